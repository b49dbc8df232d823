// The demonstration page's careless summarizer (the ledger, docs/behaviour.md): a one-line
// generic summary, and the library's ledger still keeps every file the
// replaced messages changed and the user's own words, across compactions.
// Served by the demo's own server (scripts/serve.mjs), in Chromium. What is
// expected comes from the page's own history (its download) and the
// stand-in's own text, never from values written here. Needs pkg/
// (scripts/build); builds nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { demoPage, setWindow, stepUntil } from "./browser.mjs";
import { CARELESS_SUMMARY, SUMMARIZER_LABELS } from "../../www/summarizers.js";

const demo = demoPage();

/** The history before the last compaction, from the page's download. */
async function downloadedHistory(page) {
  const [download] = await Promise.all([page.waitForEvent("download"), page.locator('[data-testid="sim-download"]').click()]);
  return JSON.parse(readFileSync(await download.path(), "utf8"));
}

/** The files the replaced messages changed (the session script's write tools) and the user's requests. */
function replacedFacts(data) {
  const replaced = data.history.slice(0, data.keptFrom);
  const files = new Set();
  const asks = [];
  for (const message of replaced) {
    for (const part of message.parts) {
      const call = part.functionCall;
      if (call && (call.name === "replace" || call.name === "write_file")) files.add(call.args.file_path);
      if (message.role === "user" && typeof part.text === "string") asks.push(part.text);
    }
  }
  return { files: [...files], asks };
}

const summaryText = async (page) => page.locator('[data-testid="sim-summary"]').textContent();

test("a careless one-line summary: the ledger keeps the files changed and the user's own words, across compactions", async () => {
  const { page, problems } = await demo.openPage();
  await setWindow(page, 128_000);
  await page.locator('input[name="summarizer"][value="careless"]').check();

  const first = await stepUntil(page, (entries) => entries.some((e) => e.status === "COMPRESSED"), 600);
  assert.ok(!first.exhausted, "a compaction ran");
  const run = first.entries.find((e) => e.status === "COMPRESSED");
  assert.ok(run.text.includes(SUMMARIZER_LABELS.careless), "the log names the careless stand-in");
  assert.ok(Number(run.newTokens) < Number(run.before), "the compaction frees space");

  const data = await downloadedHistory(page);
  const { files, asks } = replacedFacts(data);
  assert.ok(files.length >= 3, `the replaced part changed files: ${files}`);
  assert.ok(asks.length >= 2, "the replaced part holds the user's requests");
  const summary = await summaryText(page);
  // The model's line first, then what the library recorded, which it left out.
  assert.ok(summary.startsWith(CARELESS_SUMMARY), summary.slice(0, 200));
  for (const file of files) {
    assert.ok(CARELESS_SUMMARY.indexOf(file) < 0);
    assert.ok(summary.includes(`- ${file} (`), `${file} is listed`);
  }
  // The user's words verbatim, constraints included ("Keep the text output
  // as the default."), each one a JSON string line of the ledger.
  for (const ask of asks) assert.ok(summary.includes(`- ${JSON.stringify(ask)}`), `kept: ${ask}`);

  // A second careless compaction still has the files of before the first.
  const second = await stepUntil(page, (entries) => entries.filter((e) => e.status === "COMPRESSED").length >= 2, 600);
  assert.ok(!second.exhausted, "a second compaction ran");
  const again = await summaryText(page);
  assert.ok(again.startsWith(CARELESS_SUMMARY));
  for (const file of files) assert.ok(again.includes(file), `${file} survives the second compaction`);
  const later = replacedFacts(await downloadedHistory(page));
  for (const file of later.files) assert.ok(again.includes(file), `${file} is listed`);

  assert.deepEqual(problems, []);
  await page.close();
});
