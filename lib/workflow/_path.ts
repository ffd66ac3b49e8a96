import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

/** File URL of a path relative to the working directory. */
export function toFileUrl(path: string): URL {
  return pathToFileURL(resolve(path));
}
