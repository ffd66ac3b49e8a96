// scripts/test_deps.sh (run by `deno task test`) installs missing tools with apt-get. While another
// apt or dpkg holds the package lock (an unattended upgrade, say), apt-get fails at once unless it
// is asked to wait: the script must ask for up to 5 minutes on every apt-get call. An `apt-get` on
// a PATH of its own stands in for the real one (which needs root and changes the machine): like
// apt-get with the lock held, it fails with apt's message unless given DPkg::Lock::Timeout.
import assert from "node:assert/strict";
import { join } from "node:path";
import { ROOT } from "./bench_cli_helpers.ts";

const LOCKED_APT = `#!/bin/bash
echo "apt-get $*" >> "$CALLS"
for arg in "$@"; do
  if [ "$arg" = "DPkg::Lock::Timeout=300" ]; then exit 0; fi
done
echo "E: Could not get lock /var/lib/dpkg/lock-frontend. It is held by process 4242 (apt-get)" >&2
exit 100
`;

Deno.test("scripts/test_deps.sh waits up to 5 minutes for the package lock on every apt-get call", async () => {
  const bin = await Deno.makeTempDir({ prefix: "decibench-test-deps-" });
  try {
    await Deno.writeTextFile(join(bin, "apt-get"), LOCKED_APT, { mode: 0o755 });
    // Root, so the script calls apt-get without sudo; tmux, chromium and nbconvert are absent.
    await Deno.writeTextFile(join(bin, "id"), "#!/bin/bash\necho 0\n", { mode: 0o755 });
    const calls = join(bin, "calls.txt");
    const { code, stderr } = await new Deno.Command("/bin/bash", {
      args: [join(ROOT, "scripts/test_deps.sh")],
      env: { PATH: bin, CALLS: calls, HOME: bin },
      clearEnv: true,
      stdout: "null",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(stderr);
    assert.equal(code, 0, text);
    const lines = (await Deno.readTextFile(calls)).trim().split("\n");
    assert.equal(lines.length, 2, "update, then install");
    assert.ok(lines.every((l) => l.includes("-o DPkg::Lock::Timeout=300")), lines.join("\n"));
    assert.match(lines[1] ?? "", / install .*tmux/);
  } finally {
    await Deno.remove(bin, { recursive: true });
  }
});
