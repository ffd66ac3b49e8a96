// The project speaks of the software, never of how it was built: no file of the docs, the code,
// the scripts or the tests narrates working sessions, cites tracker issues or an outside spec's
// sections, or keeps a list of what was tried. (A run's `sessions` — its first start and each
// `--resume` — and the live monitor's session are the software's own words and stay.)
import assert from "node:assert/strict";
import { join, relative } from "node:path";
import { ROOT } from "./bench_cli_helpers.ts";

const SESSION = "sess" + "ion";
const ORDINALS = [
  "first",
  "second",
  "third",
  "fourth",
  "fifth",
  "sixth",
  "seventh",
  "eighth",
  "ninth",
  "tenth",
  "eleventh",
  "twelfth",
  "this",
  "last",
  "next",
  "previous",
  "earlier",
];

/** Phrases that narrate how the project was built, each with the reason it is refused. */
const HISTORY: readonly [RegExp, string][] = [
  [new RegExp(`\\b(${ORDINALS.join("|")}) ${SESSION}\\b`, "i"), "a working session"],
  [new RegExp(`${SESSION} history`, "i"), "a working session"],
  [new RegExp(`tried and ${"left"} out`, "i"), "a list of what was tried"],
  [new RegExp(`\\b${"iss"}ues? #?[0-9]+\\b`, "i"), "a tracker issue"],
  [new RegExp(`\\b${"SP"}EC (${"§"}|section)`, "i"), "a section of a spec outside the repository"],
  [
    new RegExp(`\\b(on|against) (?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\\b`),
    "a commit named as the tree something ran on",
  ],
];

/** The places the rule covers; data files (CSV, JSONL, Parquet, gzip) are left out. */
const PLACES = [
  "README.md",
  "ARCHITECTURE.md",
  "mod.ts",
  "docs",
  "lib",
  "scripts",
  "tests",
  "workflows",
  "examples",
  "notebooks",
];
const TEXT = /\.(ts|md|py|sh|ipynb|json)$/;

async function* files(path: string): AsyncGenerator<string> {
  const info = await Deno.stat(path).catch(() => null);
  if (info === null) return;
  if (info.isFile) {
    if (TEXT.test(path)) yield path;
    return;
  }
  for await (const entry of Deno.readDir(path)) {
    if (entry.isSymlink) continue;
    yield* files(join(path, entry.name));
  }
}

Deno.test("no file of the docs, code, scripts or tests narrates how the project was built", async () => {
  const found: string[] = [];
  let checked = 0;
  for (const place of PLACES) {
    for await (const file of files(join(ROOT, place))) {
      checked++;
      const lines = (await Deno.readTextFile(file)).split("\n");
      lines.forEach((line, i) => {
        for (const [pattern, reason] of HISTORY) {
          const m = pattern.exec(line);
          if (m) found.push(`${relative(ROOT, file)}:${i + 1}: "${m[0]}" (${reason})`);
        }
      });
    }
  }
  assert.ok(checked > 100, `only ${checked} files were read`);
  assert.deepEqual(found, [], `history belongs in git log, not in the files:\n${found.join("\n")}`);
});

Deno.test("the history patterns catch the phrases they are for and spare a run's sessions", () => {
  const refused = (text: string) => HISTORY.some(([pattern]) => pattern.test(text));
  for (
    const text of [
      `the eleventh ${SESSION}'s perf figures`,
      `in this ${SESSION}, start-up went down`,
      `${"Tr"}ied and ${"left"} out, each measured`,
      `as ${"iss"}ue 13 asks`,
      `${"iss"}ue #2's must-shows`,
      `${"SP"}EC ${"§"}5 defines them`,
      `on ${"0214"}46e, three rounds`,
    ]
  ) assert.ok(refused(text), text);
  for (
    const text of [
      "run.json lists each resume session in `sessions`",
      "Ctrl+R starts a new session",
      "When the session started (ISO 8601)",
      "const issue = parsed.error.issues[0];",
    ]
  ) assert.ok(!refused(text), text);
});
