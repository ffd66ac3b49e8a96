import assert from "node:assert/strict";
import {
  type CommandSpec,
  HelpRequested,
  helpText,
  intFlag,
  numberFlag,
  parse,
  parseCommand,
  pathFlag,
  urlFlag,
  UsageError,
} from "./args.ts";

const SPEC: CommandSpec = {
  name: "demo",
  args: "[FILE]",
  summary: "A demo command.",
  options: {
    parallel: { type: "string", value: "N", help: "requests in flight" },
    json: { type: "boolean", help: "JSON lines\nsecond line" },
  },
  more: "Exit status: 0.",
};

Deno.test("`parse()` reads a value that starts with a dash as the option's value", () => {
  const { values, positionals } = parse(["--parallel", "-1", "file.ts"], {
    parallel: { type: "string" },
  });
  assert.equal(values.parallel, "-1");
  assert.deepEqual(positionals, ["file.ts"]);
});

Deno.test("`parse()` refuses mistakes with a UsageError that says what is wrong", async (t) => {
  const options = { parallel: { type: "string" as const }, json: { type: "boolean" as const } };
  const table: [string, string[], RegExp][] = [
    [
      "near miss",
      ["--paralel", "2"],
      /Cannot use "--paralel": no such option; did you mean --parallel\?/,
    ],
    ["far miss", ["--colour"], /no such option; the options are --parallel, --json/],
    ["missing value", ["--parallel"], /Cannot use --parallel: it needs a value/],
    ["value is a flag", ["--parallel", "--json"], /it needs a value/],
    ["value to a switch", ["--json=1"], /--json takes no value/],
    ["unknown short", ["-x"], /Cannot use "-x": no such option/],
    ["bare negative number", ["-5"], /an argument cannot start with "-"/],
  ];
  for (const [name, args, pattern] of table) {
    await t.step(name, () =>
      assert.throws(() => parse(args, options), (e: unknown) => {
        assert.ok(e instanceof UsageError);
        assert.match(e.message, pattern);
        return true;
      }));
  }
});

Deno.test("`parse()` keeps everything after `--` as positionals", () => {
  const { positionals } = parse(["--", "--parallel"], { parallel: { type: "string" } });
  assert.deepEqual(positionals, ["--parallel"]);
});

Deno.test("`intFlag()` and `numberFlag()` name the value and why it is refused", async (t) => {
  const table: [() => unknown, RegExp][] = [
    [
      () => intFlag("-1", "parallel", 1),
      /Cannot use --parallel "-1": it is negative; give a whole number ≥ 1/,
    ],
    [() => intFlag("abc", "limit", 1), /"abc": it is not a number/],
    [() => intFlag("", "limit", 1), /"": it is not a number/],
    [() => intFlag("1.5", "limit", 1), /"1\.5": it is not a whole number/],
    [() => intFlag("0", "limit", 1), /"0": it is too small; give a whole number ≥ 1/],
    [
      () => intFlag("70000", "port", 0, 65535),
      /it is too large; give a whole number from 0 to 65535/,
    ],
    [() => numberFlag("-0.5", "interval", 0), /"-0\.5": it is negative; give a number ≥ 0/],
    [() => numberFlag("soon", "interval", 0), /"soon": it is not a number/],
    [() => pathFlag("", "out"), /Cannot use --out "": it is empty; give a path/],
    [
      () => urlFlag("localhost:8080", "base-url"),
      /"localhost:8080": it has no scheme; did you mean "http:\/\/localhost:8080"\?/,
    ],
    [
      () => urlFlag("http://u:secret@h:1/", "base-url"),
      /^Cannot use --base-url "http:\/\/h:1\/": it embeds credentials/,
    ],
  ];
  for (const [call, pattern] of table) {
    await t.step(String(pattern), () =>
      assert.throws(call, (e: unknown) => {
        assert.ok(e instanceof UsageError);
        assert.match(e.message, pattern);
        assert.doesNotMatch(e.message, /secret/);
        return true;
      }));
  }
  assert.equal(intFlag("8", "parallel", 1), 8);
  assert.equal(intFlag(undefined, "parallel", 1), undefined);
  assert.equal(numberFlag("0.25", "interval"), 0.25);
  assert.equal(urlFlag("off", "metrics-url", ["off"]), "off");
});

Deno.test("`helpText()` lists every option with its value and help, and `parseCommand()` answers --help", () => {
  const text = helpText(SPEC);
  assert.match(text, /^Usage: deno task demo \[FILE\] \[options\]\n\nA demo command\./);
  assert.ok(text.includes("\n  --parallel N  requests in flight\n"), text);
  assert.ok(text.includes("\n  --json        JSON lines\n                second line\n"), text);
  assert.ok(text.endsWith("\n  -h, --help    show this help\n\nExit status: 0."), text);
  assert.throws(
    () => parseCommand(["-h"], SPEC),
    (error: unknown) => error instanceof HelpRequested && error.text === text,
  );
  assert.throws(() => parseCommand(["--jsn"], SPEC), /did you mean --json\?/);
});
