import assert from "node:assert/strict";
import { describeOsError, fsErrorMessage } from "./fs_errors.ts";

Deno.test("`fsErrorMessage()` turns OS errors into sentences naming the path, the part at fault and the fix", async (t) => {
  const tmp = await Deno.makeTempDir();
  try {
    const file = `${tmp}/file`;
    await Deno.writeTextFile(file, "x");
    const capture = async (call: () => Promise<unknown>): Promise<unknown> => {
      try {
        await call();
      } catch (error) {
        return error;
      }
      throw new Error("expected a failure");
    };
    await t.step("File exists (os error 17)", async () => {
      const error = await capture(() => Deno.mkdir(file, { recursive: true }));
      assert.equal(
        fsErrorMessage(error, file, "create the run directory", { fix: "choose another --out" }),
        `Cannot create the run directory "${file}": "${file}" is a file, not a folder; choose another --out`,
      );
    });
    await t.step("Not a directory (os error 20)", async () => {
      const error = await capture(() => Deno.mkdir(`${file}/sub`, { recursive: true }));
      assert.match(
        fsErrorMessage(error, `${file}/sub`, "create the run directory"),
        /^Cannot create the run directory ".*file\/sub": ".*file" is a file, not a folder$/,
      );
    });
    await t.step("Permission denied (os error 13)", () => {
      // Tests run as root, where nothing is denied: the error is made as Deno makes it.
      const error = new Deno.errors.PermissionDenied(
        `Permission denied (os error 13): mkdir '${tmp}/x'`,
      );
      assert.equal(
        fsErrorMessage(error, `${tmp}/x`, "create the run directory", {
          fix: "choose another --out",
        }),
        `Cannot create the run directory "${tmp}/x": permission denied: this user may not write in "${tmp}"; choose another --out`,
      );
    });
    await t.step("a raw error that reached the top", async () => {
      const error = await capture(() => Deno.mkdir(file));
      const message = describeOsError(error);
      assert.equal(
        message,
        `Cannot create the folder "${file}": "${file}" is a file, not a folder; choose another path`,
      );
      assert.equal(describeOsError(new Error("plain")), undefined);
    });
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
