/**
 * The error the dataset loader throws when the vendored files are missing, edited or corrupt.
 *
 * @module
 */

/**
 * A vendored dataset file is missing, unreadable, edited, truncated or inconsistent. Thrown before
 * any request is sent; the message names the file, what is wrong and the fix.
 *
 * @example
 * ```ts
 * import { DatasetIntegrityError } from "./integrity_error.ts";
 * const error = new DatasetIntegrityError("Cannot load the test split: 'x' is missing", "x");
 * if (error.name !== "DatasetIntegrityError" || error.file !== "x") throw error;
 * ```
 */
export class DatasetIntegrityError extends Error {
  /** Always `"DatasetIntegrityError"`. */
  override readonly name = "DatasetIntegrityError";
  /** The file at fault, as shown in the message. */
  readonly file: string;

  /**
   * Creates the error.
   *
   * @param message The full message (sentence case, naming the file and the fix).
   * @param file The file at fault.
   * @param options `cause`: the underlying error, if any.
   */
  constructor(message: string, file: string, options?: ErrorOptions) {
    super(message, options);
    this.file = file;
  }
}
