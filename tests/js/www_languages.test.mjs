// The estimator box's language samples (issue 23): one held-out sample per
// language with the real counts of seven tokenizers beside this build's
// calibrated estimate, which the page computes with the library.
import { test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { createRequire } from "node:module";
import { byTestId, demoPage, SCREENSHOTS as shots } from "./browser.mjs";
import { LANGUAGE_SAMPLES } from "../../www/language-samples-data.js";

const cc = createRequire(import.meta.url)("../../pkg/node/compaction_core.js");
const demo = demoPage();
const FAMILIES = ["o200k", "cl100k", "claude", "qwen", "gemini", "llama3", "deepseek"];

test("each language shows its real counts and the library's estimate, and puts its text in the box", async () => {
  assert.ok(LANGUAGE_SAMPLES.length >= 20);
  const { page, problems } = await demo.openPage({ width: 1280, height: 900 });
  const rows = byTestId(page, "language-sample");
  assert.equal(await rows.count(), LANGUAGE_SAMPLES.length);
  for (const [i, s] of LANGUAGE_SAMPLES.entries()) {
    const cells = await rows.nth(i).locator("td").allTextContents();
    const want = FAMILIES.map((f) => {
      const ours = cc.estimateTextTokens(s.text, { estimator: "calibrated", tokenizer: f });
      return `${s.tokens[f]} / ${ours} (×${(ours / s.tokens[f]).toFixed(2)})`;
    });
    assert.deepEqual(cells, want, s.language);
  }
  const greek = LANGUAGE_SAMPLES.findIndex((s) => s.lang === "el");
  await rows.nth(greek).locator("button").click();
  assert.equal(await byTestId(page, "estimator-input").inputValue(), LANGUAGE_SAMPLES[greek].text);
  await byTestId(page, "language-table").screenshot({ path: join(shots, "www-languages.png") });
  assert.deepEqual(problems, []);
  await page.close();
});
