import { pathToFileURL } from "node:url";
import { resolve } from "node:path";

/** File URL of a path relative to the working directory. */
export function toFileUrl(path: string): URL {
  // Against Deno.cwd(): resolving a relative path alone asks node's process object for the
  // working directory, which sets that object up (≈ 8 ms of every start-up).
  return pathToFileURL(resolve(Deno.cwd(), path));
}
