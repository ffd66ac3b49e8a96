/**
 * Typed Decisions rows and the vendored manifest: the interfaces below are the public contract
 * (exported from `mod.ts`); each zod schema is the runtime validator of its boundary and is checked
 * against its interface at compile time (`_SchemasMatch` at the end), so the two cannot drift.
 *
 * @module
 */
import * as z from "zod";
import type { Assert, Equals } from "../_type_check.ts";

/** The three question types System One serves (`bool` is accepted as an alias of `noul`). */
/** The question types, in the order the spec lists them. */
export const QUESTION_TYPES = ["choice", "score", "noul"] as const;
/** Validates a question type. */
export const QuestionTypeSchema = z.enum(QUESTION_TYPES);
/** A question type: `choice` (named options), `score` (levels 0..n-1) or `noul` (yes/no). */
export type QuestionType = "choice" | "score" | "noul";

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
/** A `choice` question: pick one of named options. */
export interface ChoiceQuestion {
  /** Always `choice`. */
  type: "choice";
  /** What to decide (non-empty). */
  instructions: string;
  /** At least two option names, or a map option name → description (null: no description). */
  criteria: string[] | Record<string, string | null>;
}

/** A `score` question: pick a level, 0 first. */
export interface ScoreQuestion {
  /** Always `score`. */
  type: "score";
  /** What to rate (non-empty). */
  instructions: string;
  /** Level descriptions, level 0 first: 2 to 10 of them. */
  criteria: string[];
}

/** A `noul` (yes/no) question. */
export interface NoulQuestion {
  /** Always `noul`. */
  type: "noul";
  /** The yes/no question (non-empty). */
  instructions: string;
  /** Optional descriptions of what `true` and `false` mean. */
  criteria?: {
    /** What `true` (yes) means. */
    true: string;
    /** What `false` (no) means. */
    false: string;
  } | undefined;
}

/** A question as sent on the wire, told apart by `type`. */
export type Question = ChoiceQuestion | ScoreQuestion | NoulQuestion;

/** A gold answer: the mean of three teacher samples. */
export const GoldAnswerSchema = z.object({
  type: QuestionTypeSchema,
  label: z.string(),
  probabilities: z.record(z.string(), z.number().min(0).max(1)),
  confidence: z.number(),
  noul: z.number().optional(),
  score: z.number().optional(),
});
/** A gold answer: the mean of three teacher samples. */
export interface GoldAnswer {
  /** Type of the question it answers. */
  type: QuestionType;
  /** The gold label, the answer accuracy is scored against (the dataset's own pick on a tie). */
  label: string;
  /** Gold probability per option key, each in [0, 1]. */
  probabilities: Record<string, number>;
  /** The confidence the dataset reports with the label. */
  confidence: number;
  /** P(true) of a `noul` question, when the dataset gives it. */
  noul?: number | undefined;
  /** Expected level of a `score` question, when the dataset gives it. */
  score?: number | undefined;
}

/** One Typed Decisions case as vendored. */
export const CaseSchema = z.object({
  id: z.string().min(1),
  workflow: z.string().min(1),
  state: z.unknown(),
  questions: z.record(z.string(), QuestionSchema),
  gold: z.record(z.string(), GoldAnswerSchema),
});
/** One Typed Decisions case: a state, its five questions and their gold answers. */
export interface Case {
  /** Case id (non-empty, unique in the split). */
  id: string;
  /** The workflow it belongs to, e.g. `customer_service`. */
  workflow: string;
  /** The state the questions are about (any JSON). */
  state: unknown;
  /** Questions by name. */
  questions: Record<string, Question>;
  /** Gold answers by question name. */
  gold: Record<string, GoldAnswer>;
}

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
export interface FileRef {
  /** Path inside the dataset repository, or a file name. */
  path: string;
  /** sha256 of the file, 64 lowercase hex digits. */
  sha256: string;
  /** Size in bytes. */
  bytes: number;
}

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
export interface ManifestSplit {
  /** The upstream file the rows come from, with its URL at the revision. */
  source: {
    /** Path inside the dataset repository. */
    path: string;
    /** sha256 of the file, 64 lowercase hex digits. */
    sha256: string;
    /** Size in bytes. */
    bytes: number;
    /** URL of the file at the pinned revision. */
    url: string;
  };
  /** The file the vendor script actually read (it can be a local copy of the source). */
  input: FileRef;
  /** How the content is known to equal the source. */
  check: string;
  /** Vendored file name beside the manifest, e.g. `test.jsonl.gz`. */
  data: string;
  /** Number of rows (cases). */
  rows: number;
  /** Columns kept, in row order. */
  columns: string[];
  /** sha256 of the decompressed JSONL. */
  sha256: string;
}

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
/** The vendored dataset's manifest (`vendor/typed-decisions/manifest.json`). */
export interface Manifest {
  /** Hugging Face dataset id. */
  dataset: string;
  /** Dataset page. */
  url: string;
  /** Upstream revision (commit). */
  revision: string;
  /** SPDX licence name. */
  license: string;
  /** Vendored splits by name (`train` only when it was vendored). */
  splits: {
    /** The test split. */
    test: ManifestSplit;
    /** The train split, when vendored. */
    train?: ManifestSplit | undefined;
  };
}

/** A `choice` question of a user question set. */
export interface ChoiceQuestionDefinition extends ChoiceQuestion {
  /** The field holding the expected option name (or a distribution); absent: asked, not scored. */
  gold?: string | undefined;
}

/** A `score` question of a user question set. */
export interface ScoreQuestionDefinition extends ScoreQuestion {
  /** The field holding the expected level index (or a distribution); absent: asked, not scored. */
  gold?: string | undefined;
}

/** A `noul` (yes/no) question of a user question set. */
export interface NoulQuestionDefinition extends NoulQuestion {
  /** The field holding the expected answer, `true`/`false` (or a distribution); absent: not scored. */
  gold?: string | undefined;
}

/**
 * A question a workflow declares: the question as sent, plus `gold`, the name of the field that
 * holds its expected answer.
 */
export type QuestionDefinition =
  | ChoiceQuestionDefinition
  | ScoreQuestionDefinition
  | NoulQuestionDefinition;

/** The file formats a user question set can be read from, by file extension. */
export const QUESTION_SET_FORMATS = ["jsonl", "csv", "parquet"] as const;
/** A user question set's file format. */
export type QuestionSetFormat = "jsonl" | "csv" | "parquet";

/** A user question set's file, as a workflow's `dataset` field declares it. */
export interface DatasetSpec {
  /** The file, relative to the workflow file: `.jsonl`, `.csv` or `.parquet`. */
  path: string;
  /** The field holding each case's unique id. */
  id: string;
  /** The field whose value is the state, or a list of fields sent as an object of them. */
  state: string | string[];
  /**
   * The grouping field, reported like Typed Decisions' workflows.
   * @default undefined (every case in one lane named after the workflow)
   */
  lane?: string | undefined;
}

/** A subset of Typed Decisions' questions (`cases.questions`): not the card protocol. */
export interface TypedQuestionsRecord {
  /** Always `typed-decisions`. */
  kind: "typed-decisions";
  /** Always false: the card asks all five questions of a case in one request. */
  card_protocol: false;
  /** The question names asked. */
  questions: string[];
}

/** A user question set: the file, its integrity and the question definitions. */
export interface FileQuestionSetRecord {
  /** Always `file`. */
  kind: "file";
  /** Always false. */
  card_protocol: false;
  /** The file as read (relative to the working directory when the workflow's path was relative). */
  path: string;
  /** Its format. */
  format: QuestionSetFormat;
  /** sha256 of the file's bytes. */
  sha256: string;
  /** Size in bytes. */
  bytes: number;
  /** Number of rows (cases) in the file. */
  rows: number;
  /** The id field. */
  id: string;
  /** The state field or fields. */
  state: string | string[];
  /** The lane field, or null when every case is in one lane. */
  lane: string | null;
  /** The question definitions, gold fields included. */
  questions: Record<string, QuestionDefinition>;
  /** sha256 of the definitions and the field mapping (id, state, lane) as JSON. */
  definitions_sha256: string;
  /** Rows with a gold value, per question (a question without `gold` has 0). */
  labelled: Record<string, number>;
}

/** What a run records about its question set when it is not the card protocol. */
export type QuestionSetRecord = TypedQuestionsRecord | FileQuestionSetRecord;

/** Each schema's parsed type equals its public interface. */
type _SchemasMatch = [
  Assert<Equals<typeof QUESTION_SET_FORMATS[number], QuestionSetFormat>>,
  Assert<Equals<z.infer<typeof QuestionTypeSchema>, QuestionType>>,
  Assert<Equals<z.infer<typeof ChoiceQuestionSchema>, ChoiceQuestion>>,
  Assert<Equals<z.infer<typeof ScoreQuestionSchema>, ScoreQuestion>>,
  Assert<Equals<z.infer<typeof NoulQuestionSchema>, NoulQuestion>>,
  Assert<Equals<z.infer<typeof QuestionSchema>, Question>>,
  Assert<Equals<z.infer<typeof GoldAnswerSchema>, GoldAnswer>>,
  Assert<Equals<z.infer<typeof CaseSchema>, Case>>,
  Assert<Equals<z.infer<typeof FileRefSchema>, FileRef>>,
  Assert<Equals<z.infer<typeof ManifestSplitSchema>, ManifestSplit>>,
  Assert<Equals<z.infer<typeof ManifestSchema>, Manifest>>,
];
