/**
 * The `dataset` and `questions` fields of a workflow file: a user question set's file with its
 * field mapping, and the questions asked of each row with their gold fields. The interfaces live
 * in `lib/dataset` (where the set is loaded); these zod schemas validate a workflow file and are
 * checked against them at compile time (`_SchemasMatch` at the end).
 *
 * @module
 */
import * as z from "zod";
import type { Assert, Equals } from "../_type_check.ts";
import type { DatasetSpec, QuestionDefinition } from "../dataset/mod.ts";

/** Option names that JavaScript would move to the front of an object (so their order is lost). */
const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;

function keepsOrder(question: { type: string; criteria?: unknown }): boolean {
  if (question.type !== "choice" || Array.isArray(question.criteria)) return true;
  return !Object.keys(question.criteria as object).some((key) => INTEGER_LIKE.test(key));
}

const GoldFieldSchema = z.string().min(1).optional();

/** A question a workflow declares: the question as sent, plus its gold field. */
export const QuestionDefinitionSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("choice"),
    instructions: z.string().min(1),
    criteria: z.union([
      z.array(z.string().min(1)).min(2),
      z.record(z.string().min(1), z.string().nullable()),
    ]),
    gold: GoldFieldSchema,
  }).strict(),
  z.object({
    type: z.literal("score"),
    instructions: z.string().min(1),
    criteria: z.array(z.string()).min(2).max(10),
    gold: GoldFieldSchema,
  }).strict(),
  z.object({
    type: z.literal("noul"),
    instructions: z.string().min(1),
    criteria: z.object({ true: z.string(), false: z.string() }).strict().optional(),
    gold: GoldFieldSchema,
  }).strict(),
]).refine(keepsOrder, {
  message: 'an option name is integer-like (such as "1"), which loses the option order; ' +
    "give criteria as a list or rename the option",
  path: ["criteria"],
});

/** A user question set's file and which of its fields mean what. */
export const DatasetSpecSchema = z.object({
  path: z.string().min(1).regex(
    /\.(?:jsonl|csv|parquet)$/i,
    "must name a .jsonl, .csv or .parquet file",
  ),
  id: z.string().min(1),
  state: z.union([
    z.string().min(1),
    z.array(z.string().min(1)).min(1).refine(
      (fields) => new Set(fields).size === fields.length,
      "lists a field twice",
    ),
  ]),
  lane: z.string().min(1).optional(),
}).strict();

/** Each schema's parsed (output) and written (input) types equal the public interfaces. */
type _SchemasMatch = [
  Assert<Equals<z.input<typeof QuestionDefinitionSchema>, QuestionDefinition>>,
  Assert<Equals<z.output<typeof QuestionDefinitionSchema>, QuestionDefinition>>,
  Assert<Equals<z.input<typeof DatasetSpecSchema>, DatasetSpec>>,
  Assert<Equals<z.output<typeof DatasetSpecSchema>, DatasetSpec>>,
];
