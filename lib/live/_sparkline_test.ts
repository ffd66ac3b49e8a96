import assert from "node:assert/strict";
import { sparkline } from "./_sparkline.ts";

Deno.test("`sparkline()` draws values on a fixed scale, oldest first", async (t) => {
  await t.step("0, ½ and 1 on the default 0–1 scale", () => {
    assert.equal(sparkline([0, 0.5, 1], 10), "▁▅█");
  });
  await t.step("only the last `width` values are drawn", () => {
    assert.equal(sparkline([1, 1, 0, 0], 2), "▁▁");
  });
  await t.step("missing values are spaces", () => {
    assert.equal(sparkline([null, 1, Number.NaN], 5), " █ ");
  });
  await t.step("values outside the scale are clamped", () => {
    assert.equal(sparkline([-1, 0.3, 2], 5, { max: 0.3 }), "▁██");
  });
  await t.step("width 0 draws nothing", () => assert.equal(sparkline([1], 0), ""));
  await t.step("an empty scale draws the lowest block", () => {
    assert.equal(sparkline([0.5], 3, { min: 1, max: 1 }), "▁");
  });
});
