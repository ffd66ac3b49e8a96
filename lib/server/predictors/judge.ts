/**
 * The `judge` predictor: a transparent, rule-based stand-in for a judge model, so audits can run
 * against the reference server on a machine with no model. It answers arbitrary questions from
 * lexical cues and is deliberately simple — it is not a good judge, and prompt injections steer it.
 *
 * The rules, all of them:
 * - Evidence is the state's `assistant_messages` (strings), else its `messages` (strings or
 *   `{content}`), else the state as text; it is split into sentences.
 * - Words are lowercased, `n't` becomes `not`, words of 1–2 letters and common function words are
 *   dropped, and a word longer than five letters is cut to its first five (so "refunded" and
 *   "refund" match). Negation words (not, no, never, cannot, unable, failed, refuse, …) are not
 *   cues; they give a text its polarity: negative when it contains one.
 * - `choice`: each option's cues are the words of its name and description, and its polarity is
 *   that of its description. For every sentence, an option gains one point per cue the sentence
 *   shares with it when their polarities match (a negated sentence supports "does not say …"
 *   options, a plain one supports "says …" options). Logits are 1.5 × points, plus 0.6 for an
 *   option whose description is negated (absence of a claim supports the option that denies it);
 *   an option named `unclear` gets a fixed logit of 0.5 and no cues. The answer is the softmax.
 * - `noul`: cues from the instructions and the `true` description; P(yes) is the logistic of
 *   (points from sentences with the question's polarity − points from the others).
 * - `score`: uniform over the levels (this predictor does not grade scales).
 *
 * It reads nothing but the request: it never sees a transcript's deterministic verdict.
 *
 * @module
 */
import { optionsOf, type Question } from "../../dataset/mod.ts";
import type { Distributions, Predictor } from "../predictor.ts";

const NEGATIONS: ReadonlySet<string> = new Set([
  "not",
  "no",
  "never",
  "cannot",
  "unable",
  "failed",
  "fails",
  "fail",
  "nothing",
  "none",
  "neither",
  "nor",
  "without",
  "refuse",
  "refuses",
  "refused",
  "declines",
  "declined",
  "denies",
  "denied",
]);

const STOPWORDS: ReadonlySet<string> = new Set([
  "the",
  "and",
  "for",
  "that",
  "this",
  "with",
  "was",
  "were",
  "are",
  "has",
  "have",
  "had",
  "did",
  "does",
  "its",
  "it's",
  "from",
  "into",
  "any",
  "all",
  "you",
  "your",
  "our",
  "their",
  "they",
  "them",
  "there",
  "here",
  "will",
  "would",
  "could",
  "should",
  "can",
  "been",
  "being",
  "but",
  "or",
  "if",
  "then",
  "than",
  "also",
  "just",
  "now",
  "some",
  "about",
  "whether",
  "what",
  "who",
  "assistant",
  "assis",
  "says",
  "said",
  "message",
  "messa",
  "user",
  "option",
  "optio",
]);

/** Fixed logit of an option named `unclear`. */
export const JUDGE_UNCLEAR_LOGIT = 0.5;
/** Logit per matching cue. */
export const JUDGE_CUE_WEIGHT = 1.5;
/** Logit bonus of an option whose description is negated. */
export const JUDGE_ABSENCE_BONUS = 0.6;

function tokens(text: string): string[] {
  return text.toLowerCase().replace(/[’‘]/g, "'").replace(/n't\b/g, " not").split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0);
}

function stem(word: string): string {
  return word.length > 5 ? word.slice(0, 5) : word;
}

interface Cues {
  words: Set<string>;
  negative: boolean;
}

function cuesOf(text: string): Cues {
  const words = new Set<string>();
  let negative = false;
  for (const token of tokens(text)) {
    if (NEGATIONS.has(token)) {
      negative = true;
      continue;
    }
    if (token.length < 3 || STOPWORDS.has(token)) continue;
    const s = stem(token);
    if (!STOPWORDS.has(s)) words.add(s);
  }
  return { words, negative };
}

function textsOf(state: unknown): string[] {
  if (typeof state === "string") return [state];
  if (state && typeof state === "object" && !Array.isArray(state)) {
    const record = state as Record<string, unknown>;
    const assistant = record.assistant_messages;
    if (Array.isArray(assistant)) return assistant.filter((m) => typeof m === "string");
    const messages = record.messages;
    if (Array.isArray(messages)) {
      return messages.map((m) =>
        typeof m === "string"
          ? m
          : m && typeof m === "object" && typeof (m as { content?: unknown }).content === "string"
          ? (m as { content: string }).content
          : ""
      ).filter((m) => m !== "");
    }
  }
  return [JSON.stringify(state)];
}

function sentencesOf(state: unknown): Cues[] {
  return textsOf(state)
    .flatMap((text) => text.split(/(?<=[.!?])\s+|\n+/))
    .filter((s) => s.trim() !== "")
    .map(cuesOf);
}

function overlap(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  let n = 0;
  for (const w of a) if (b.has(w)) n++;
  return n;
}

function softmax(logits: readonly number[]): number[] {
  const max = Math.max(...logits);
  const exps = logits.map((l) => Math.exp(l - max));
  const sum = exps.reduce((a, b) => a + b, 0);
  return exps.map((e) => e / sum);
}

function choiceDistribution(
  question: Extract<Question, { type: "choice" }>,
  sentences: readonly Cues[],
): Record<string, number> {
  const options = optionsOf(question);
  const descriptions: Record<string, string | null> = Array.isArray(question.criteria)
    ? {}
    : question.criteria;
  const logits = options.map((option) => {
    if (option === "unclear") return JUDGE_UNCLEAR_LOGIT;
    const description = descriptions[option] ?? "";
    const cues = cuesOf(`${option.replace(/[_-]+/g, " ")} ${description}`);
    const negative = cuesOf(description || option.replace(/[_-]+/g, " ")).negative;
    let points = 0;
    for (const sentence of sentences) {
      if (sentence.negative === negative) points += overlap(cues.words, sentence.words);
    }
    return JUDGE_CUE_WEIGHT * points + (negative ? JUDGE_ABSENCE_BONUS : 0);
  });
  const probabilities = softmax(logits);
  const out: Record<string, number> = {};
  options.forEach((option, i) => (out[option] = probabilities[i] ?? 0));
  return out;
}

function noulDistribution(
  question: Extract<Question, { type: "noul" }>,
  sentences: readonly Cues[],
): Record<string, number> {
  const yes = question.criteria?.true ?? "";
  const cues = cuesOf(`${question.instructions} ${yes}`);
  const negative = cuesOf(yes || question.instructions).negative;
  let margin = 0;
  for (const sentence of sentences) {
    const n = overlap(cues.words, sentence.words);
    margin += sentence.negative === negative ? n : -n;
  }
  const p = 1 / (1 + Math.exp(-margin));
  return { true: p, false: 1 - p };
}

/**
 * Creates the `judge` predictor (rules in the module documentation).
 *
 * @returns The predictor.
 * @example
 * ```ts
 * import { judgePredictor } from "./judge.ts";
 * const answer = judgePredictor().predict(
 *   { assistant_messages: ["Your refund has been issued."] },
 *   {
 *     refund: {
 *       type: "choice",
 *       instructions: "Did the assistant say a refund was issued?",
 *       criteria: {
 *         claims_refund: "says a refund was issued",
 *         no_claim: "does not say a refund was issued",
 *         unclear: "cannot tell",
 *       },
 *     },
 *   },
 * );
 * answer.refund; // claims_refund on top
 * ```
 */
export function judgePredictor(): Predictor {
  return {
    name: "judge",
    predict(state: unknown, questions: Record<string, Question>): Distributions {
      const sentences = sentencesOf(state);
      const out: Distributions = {};
      for (const [name, question] of Object.entries(questions)) {
        if (question.type === "choice") out[name] = choiceDistribution(question, sentences);
        else if (question.type === "noul") out[name] = noulDistribution(question, sentences);
        else {
          const levels = optionsOf(question);
          out[name] = Object.fromEntries(levels.map((l) => [l, 1 / levels.length]));
        }
      }
      return out;
    },
  };
}
