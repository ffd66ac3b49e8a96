/**
 * The `oracle` predictor: answers the gold distributions of the cases it is given — the Typed
 * Decisions test split, or a user question set when the server is embedded (for tests: a
 * benchmark against it scores KL 0 and Brier 0).
 *
 * @module
 */
import { type Case, optionsOf, type Question } from "../../dataset/mod.ts";
import type { Distributions, Predictor } from "../predictor.ts";
import { canonicalJson, parseStateText } from "./_state.ts";

/**
 * Creates the `oracle` predictor over the given cases. It finds a request's case by its state
 * (compared as canonical JSON, so key order does not matter; a state sent as JSON text is parsed
 * first) and answers each asked question with that case's gold distribution: one-hot for a hard
 * label, so a benchmark against it scores accuracy 1, KL 0 and Brier 0. Rows that share one state
 * (duplicates, or rows whose differing fields are not part of the state) are answered per
 * question: with their gold when their labelled rows agree, else with the average of their gold
 * distributions — all an oracle that sees only the state can know — so no case fails. A question
 * none of them has gold for (unlabelled rows) is answered uniformly.
 *
 * @param cases The cases it knows (the Typed Decisions test split, or a user question set).
 * @returns The predictor; its `predict` throws `RangeError` for a state it does not know, a
 * question the case does not have, or a question whose options differ from the case's.
 * @example
 * ```ts
 * import { oraclePredictor } from "./oracle.ts";
 * const oracle = oraclePredictor([{
 *   id: "c1", workflow: "w", state: { a: 1 },
 *   questions: { ok: { type: "noul", instructions: "Fine?" } },
 *   gold: { ok: { type: "noul", label: "true", probabilities: { true: 0.9, false: 0.1 }, confidence: 0.8, noul: 0.9 } },
 * }]);
 * oracle.predict('{"a":1}', { ok: { type: "noul", instructions: "Fine?" } }).ok; // { true: 0.9, false: 0.1 }
 * ```
 */
export function oraclePredictor(cases: readonly Case[]): Predictor {
  const byState = new Map<string, Case[]>();
  for (const item of cases) {
    const key = canonicalJson(item.state);
    const known = byState.get(key);
    if (known) known.push(item);
    else byState.set(key, [item]);
  }
  return {
    name: "oracle",
    predict(state: unknown, questions: Record<string, Question>): Distributions {
      const matches = byState.get(canonicalJson(parseStateText(state)));
      const item = matches?.[0];
      if (matches === undefined || item === undefined) {
        throw new RangeError(
          "Cannot answer with the oracle predictor: the state matches no case it knows (a standalone server's oracle knows the Typed Decisions test split's states, sent unchanged; for your own question set use the embedded server, reference: { predictor: \"oracle\" })",
        );
      }
      const distributions: Distributions = {};
      for (const name in questions) {
        const options = optionsOf(questions[name]!);
        // Rows that share this state: each labelled one's gold for the question (unlabelled rows
        // have none). They agree, or the answer is their average: all an oracle that sees only
        // the state can know.
        const golds = matches.flatMap((c) => {
          const gold = c.gold[name];
          return gold === undefined ? [] : [{ id: c.id, gold }];
        });
        if (golds.length === 0) {
          if (!Object.hasOwn(item.questions, name)) {
            throw new RangeError(
              `Cannot answer "${name}" with the oracle predictor: case "${item.id}" has no question "${name}" (it has ${
                Object.keys(item.questions).join(", ")
              })`,
            );
          }
          const p = 1 / options.length;
          distributions[name] = Object.fromEntries(options.map((option) => [option, p]));
          continue;
        }
        const each = golds.map(({ id, gold }) => goldDistribution(name, id, gold, options));
        const first = each[0] as Record<string, number>;
        const agree = each.every((d) => options.every((o) => d[o] === first[o]));
        distributions[name] = agree ? first : Object.fromEntries(
          options.map((o) => [o, each.reduce((sum, d) => sum + (d[o] as number), 0) / each.length]),
        );
      }
      return distributions;
    },
  };
}

/** A case's gold distribution over the request's options, refusing options that differ. */
function goldDistribution(
  name: string,
  id: string,
  gold: { probabilities: Record<string, number> },
  options: readonly string[],
): Record<string, number> {
  const distribution: Record<string, number> = {};
  for (const option of options) {
    const p = gold.probabilities[option];
    if (p === undefined) {
      throw new RangeError(
        `Cannot answer "${name}" with the oracle predictor: option "${option}" is not one of case "${id}"'s (${
          Object.keys(gold.probabilities).join(", ")
        })`,
      );
    }
    distribution[option] = p;
  }
  if (options.length !== Object.keys(gold.probabilities).length) {
    throw new RangeError(
      `Cannot answer "${name}" with the oracle predictor: case "${id}" has options ${
        Object.keys(gold.probabilities).join(", ")
      }, the request asks ${options.join(", ")}`,
    );
  }
  return distribution;
}
