/**
 * The error thrown when the vendored model files are missing, edited or corrupt.
 *
 * @module
 */

/**
 * A vendored model file is missing, unreadable, edited or does not match its manifest. The
 * message names the file, what is wrong and the fix (`deno task train`).
 *
 * @example
 * ```ts
 * import { ModelIntegrityError } from "./integrity_error.ts";
 * const error = new ModelIntegrityError("Cannot load the fitted model: 'x' is missing", "x");
 * if (error.name !== "ModelIntegrityError" || error.file !== "x") throw error;
 * ```
 */
export class ModelIntegrityError extends Error {
  /** Always `"ModelIntegrityError"`. */
  override readonly name = "ModelIntegrityError";
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
