/**
 * The `synthetic` predictor: a model of known skill and known miscalibration over any labelled
 * question set, to test recalibration and decision policies where the truth is known. Per case
 * and question, each option's logit is a standard normal drawn from a seeded hash of (seed, case
 * id, question), plus `skill` on the gold option; the logits are divided by `temperature` and
 * passed through a softmax; an unlabelled row gets the noise only. On a yes/no question the true
 * odds of the gold option are e^(skill·d) for a logit difference d, so temperature 1/skill is
 * calibrated: with skill 1, a temperature below 1 is over-confident and above 1 under-confident.
 *
 * @module
 */
import { type Case, type GoldAnswer, optionsOf, type Question } from "../../dataset/mod.ts";
import { fmix32, hashString32, unitDraw } from "../../hash32.ts";
import type { Distributions, Predictor } from "../predictor.ts";
import { stateKey } from "./_state.ts";

/** Options of {@linkcode syntheticPredictor} and {@linkcode syntheticDistribution}. */
export interface SyntheticOptions {
  /**
   * Added to the gold option's logit (any finite number): 0 is a model that knows nothing. On a
   * yes/no question the logits' difference d makes the true odds of the gold e^(skill·d), so
   * temperature 1/skill is calibrated: with skill 1, temperature below 1 is over-confident and
   * above 1 under-confident.
   * @default 1
   */
  skill?: number | undefined;
  /**
   * Logits are divided by it (> 0): below 1 over-confident, above 1 under-confident.
   * @default 1
   */
  temperature?: number | undefined;
  /**
   * Seed of the noise (a safe integer).
   * @default 0
   */
  seed?: number | undefined;
}

/** The synthetic predictor's settings with defaults applied, checked. */
interface SyntheticParams {
  skill: number;
  temperature: number;
  seed: number;
}

function paramsOf(options: SyntheticOptions): SyntheticParams {
  const skill = options.skill ?? 1;
  const temperature = options.temperature ?? 1;
  const seed = options.seed ?? 0;
  if (!Number.isFinite(skill)) {
    throw new RangeError(`Cannot use the synthetic predictor: skill "${skill}" is not a number`);
  }
  if (!(Number.isFinite(temperature) && temperature > 0)) {
    throw new RangeError(
      `Cannot use the synthetic predictor: temperature "${temperature}" is not a number > 0`,
    );
  }
  if (!Number.isSafeInteger(seed)) {
    throw new RangeError(`Cannot use the synthetic predictor: seed "${seed}" is not an integer`);
  }
  return { skill, temperature, seed };
}

/**
 * The synthetic distribution of one case's question: option i's logit is a standard normal drawn
 * from a hash of (seed, case id, question, i), plus `skill` when option i is `gold`; divided by
 * the temperature; softmax.
 *
 * @param caseId The case id.
 * @param question The question's name.
 * @param options The question's options, in order (`optionsOf`).
 * @param gold The gold option, or null for an unlabelled row (noise only).
 * @param settings Skill, temperature, seed.
 * @returns The distribution, keyed by option.
 * @throws {RangeError} When skill, temperature or seed is out of range.
 * @example
 * ```ts
 * import { syntheticDistribution } from "./synthetic.ts";
 * const p = syntheticDistribution("c1", "ok", ["true", "false"], "true", { skill: 4, temperature: 0.5 });
 * (p.true ?? 0) > 0.5; // very likely: the gold option gets +4 before dividing by 0.5
 * ```
 */
export function syntheticDistribution(
  caseId: string,
  question: string,
  options: readonly string[],
  gold: string | null,
  settings: SyntheticOptions = {},
): Record<string, number> {
  const { skill, temperature, seed } = paramsOf(settings);
  return distributionOf(caseId, question, options, gold, skill, temperature, seed);
}

function distributionOf(
  caseId: string,
  question: string,
  options: readonly string[],
  gold: string | null,
  skill: number,
  temperature: number,
  seed: number,
): Record<string, number> {
  const low = seed >>> 0;
  const high = Math.floor(seed / 0x1_0000_0000) >>> 0;
  const seed32 = fmix32(low ^ fmix32(high + 0x7f4a7c15));
  const key = fmix32(hashString32(caseId, seed32) ^ fmix32(hashString32(question, ~seed32)));
  const logits = options.map((option, i) => {
    const u1 = 1 - unitDraw(key, 2 * i);
    const u2 = unitDraw(key, 2 * i + 1);
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    return (z + (option === gold ? skill : 0)) / temperature;
  });
  const max = Math.max(...logits);
  const exps = logits.map((l) => Math.exp(l - max));
  const total = exps.reduce((a, b) => a + b, 0);
  return Object.fromEntries(options.map((option, i) => [option, (exps[i] as number) / total]));
}

/** The gold option of a question: the label when it is an option, else the likeliest option. */
function goldOption(gold: GoldAnswer | undefined, options: readonly string[]): string | null {
  if (gold === undefined) return null;
  if (options.includes(gold.label)) return gold.label;
  let best: string | null = null;
  let bestP = -1;
  for (const option of options) {
    const p = gold.probabilities[option] ?? -1;
    if (p > bestP) [best, bestP] = [option, p];
  }
  return best;
}

/** What the predictor keeps of a case: its id and its gold option per question. */
interface KnownCase {
  id: string;
  questions: Record<string, Question>;
  gold: Record<string, string | null>;
}

/**
 * Creates the `synthetic` predictor over the cases of a labelled question set. A request's case
 * is found by its state (canonical JSON); when several cases share a state, the first one is
 * answered (a model sees only the state). Only each case's id and gold options are kept.
 *
 * @param cases The question set's cases (read once).
 * @param options Skill, temperature, seed.
 * @returns The predictor; its `predict` throws `RangeError` for a state it does not know or a
 *   question the case does not ask.
 * @throws {RangeError} When skill, temperature or seed is out of range.
 * @example
 * ```ts
 * import { syntheticPredictor } from "./synthetic.ts";
 * const questions = { ok: { type: "noul" as const, instructions: "Fine?" } };
 * const predictor = await syntheticPredictor([{
 *   id: "c1", workflow: "w", state: { a: 1 }, questions,
 *   gold: { ok: { type: "noul", label: "true", probabilities: { true: 1, false: 0 }, confidence: 1 } },
 * }], { skill: 3, temperature: 0.5, seed: 1 });
 * Object.keys(predictor.predict({ a: 1 }, questions).ok ?? {}); // ["true", "false"]
 * ```
 */
export async function syntheticPredictor(
  cases: Iterable<Case> | AsyncIterable<Case>,
  options: SyntheticOptions = {},
): Promise<Predictor> {
  const { skill, temperature, seed } = paramsOf(options);
  const byState = new Map<string, KnownCase>();
  for await (const item of cases) {
    const key = stateKey(item.state);
    if (byState.has(key)) continue;
    const gold: Record<string, string | null> = {};
    for (const [name, question] of Object.entries(item.questions)) {
      gold[name] = goldOption(item.gold[name], optionsOf(question));
    }
    byState.set(key, { id: item.id, questions: item.questions, gold });
  }
  return {
    name: "synthetic",
    predict(state: unknown, questions: Record<string, Question>): Distributions {
      const known = byState.get(stateKey(state));
      if (known === undefined) {
        throw new RangeError(
          "Cannot answer with the synthetic predictor: the state matches no case of its question set (start it with the workflow whose cases you send: deno task serve --predictor synthetic --workflow FILE)",
        );
      }
      const out: Distributions = {};
      for (const name in questions) {
        if (!Object.hasOwn(known.questions, name)) {
          throw new RangeError(
            `Cannot answer "${name}" with the synthetic predictor: case "${known.id}" has no question "${name}" (it has ${
              Object.keys(known.questions).join(", ")
            })`,
          );
        }
        const asked = optionsOf(questions[name] as Question);
        const gold = known.gold[name] ?? null;
        out[name] = distributionOf(
          known.id,
          name,
          asked,
          gold !== null && asked.includes(gold) ? gold : null,
          skill,
          temperature,
          seed,
        );
      }
      return out;
    },
  };
}
