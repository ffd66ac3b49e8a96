/**
 * Zod schemas for Typed Decisions rows and the vendored manifest.
 *
 * @module
 */
import { z } from "zod";

/** The three question types System One serves (`bool` is accepted as an alias of `noul`). */
export const QuestionTypeSchema = z.enum(["choice", "score", "noul"]);
/** A question type. */
export type QuestionType = z.infer<typeof QuestionTypeSchema>;

/** A `choice` question: criteria is a list of option names or a map name → description. */
export const ChoiceQuestionSchema = z.object({
  type: z.literal("choice"),
  instructions: z.string().min(1),
  criteria: z.union([
    z.array(z.string().min(1)).min(2),
    z.record(z.string().min(1), z.string().nullable()),
  ]),
}).strict();

/** A `score` question: criteria is the list of level descriptions, level 0 first. */
export const ScoreQuestionSchema = z.object({
  type: z.literal("score"),
  instructions: z.string().min(1),
  criteria: z.array(z.string()).min(2).max(10),
}).strict();

/** A `noul` (yes/no) question with optional descriptions of `true` and `false`. */
export const NoulQuestionSchema = z.object({
  type: z.literal("noul"),
  instructions: z.string().min(1),
  criteria: z.object({ true: z.string(), false: z.string() }).strict().optional(),
}).strict();

/** Any question. */
export const QuestionSchema = z.discriminatedUnion("type", [
  ChoiceQuestionSchema,
  ScoreQuestionSchema,
  NoulQuestionSchema,
]);
/** A question as sent on the wire. */
export type Question = z.infer<typeof QuestionSchema>;

/** A gold answer: the mean of three teacher samples. */
export const GoldAnswerSchema = z.object({
  type: QuestionTypeSchema,
  label: z.string(),
  probabilities: z.record(z.string(), z.number().min(0).max(1)),
  confidence: z.number(),
  noul: z.number().optional(),
  score: z.number().optional(),
});
/** A gold answer. */
export type GoldAnswer = z.infer<typeof GoldAnswerSchema>;

/** One Typed Decisions case as vendored. */
export const CaseSchema = z.object({
  id: z.string().min(1),
  workflow: z.string().min(1),
  state: z.unknown(),
  questions: z.record(z.string(), QuestionSchema),
  gold: z.record(z.string(), GoldAnswerSchema),
});
/** One Typed Decisions case: a state, its five questions and their gold answers. */
export type Case = z.infer<typeof CaseSchema>;

/** The split names that can be vendored. */
export type Split = "test" | "train";

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, "expected 64 lowercase hex digits");

/** A file described by name, size and hash. */
export const FileRefSchema = z.object({
  /** Path inside the dataset repository, or a file name. */
  path: z.string().min(1),
  /** sha256 of the file, lowercase hex. */
  sha256: Sha256Schema,
  /** Size in bytes. */
  bytes: z.number().int().nonnegative(),
});
/** A file described by name, size and hash. */
export type FileRef = z.infer<typeof FileRefSchema>;

/** One vendored split in `manifest.json`. */
export const ManifestSplitSchema = z.object({
  /** The upstream file the rows come from, with its URL at the revision. */
  source: FileRefSchema.extend({ url: z.url() }),
  /** The file the vendor script actually read (it can be a local copy of the source). */
  input: FileRefSchema,
  /** How the content is known to equal the source. */
  check: z.string(),
  /** Vendored file name, beside the manifest. */
  data: z.string().regex(
    /^[A-Za-z0-9._-]+\.jsonl\.gz$/,
    "expected a file name like 'test.jsonl.gz'",
  ),
  /** Number of rows (cases). */
  rows: z.number().int().positive(),
  /** Columns kept, in row order. */
  columns: z.array(z.string()).min(1),
  /** sha256 of the decompressed JSONL. */
  sha256: Sha256Schema,
});
/** One vendored split in `manifest.json`. */
export type ManifestSplit = z.infer<typeof ManifestSplitSchema>;

/** `vendor/typed-decisions/manifest.json`. */
export const ManifestSchema = z.object({
  /** Hugging Face dataset id. */
  dataset: z.string().min(1),
  /** Dataset page. */
  url: z.url(),
  /** Upstream revision (commit). */
  revision: z.string().min(1),
  /** SPDX licence name. */
  license: z.string().min(1),
  /** Vendored splits by name. */
  splits: z.object({ test: ManifestSplitSchema, train: ManifestSplitSchema.optional() }),
});
/** The vendored dataset's manifest. */
export type Manifest = z.infer<typeof ManifestSchema>;
