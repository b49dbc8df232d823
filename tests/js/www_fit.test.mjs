// The demonstration page's controls for every send fits (every send fits the window):
// the model's output limit, clearing old tool outputs first, a resumed large
// session and a huge pasted message. Served by the demo's own server
// (scripts/serve.mjs), in Chromium. What is expected comes from the built
// package (pkg/node) run on the page's own session script, never from
// numbers written here (16 384 is the limit the test types, as a user would).
// Needs pkg/ (scripts/build); builds nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { createRequire } from "node:module";
import { byTestId, demoPage, SCREENSHOTS as shots, setWindow, testIdText as text } from "./browser.mjs";
import { createScript, pastedLog, replayHistory, withPaste } from "../../www/session-script.js";
import { standInSummary } from "../../www/summarizers.js";
import { PASTE_CHARS, PROVIDER_UNSEEN_TOKENS, providerModel, RESUME_WINDOWS } from "../../www/simulator.js";

const cc = createRequire(import.meta.url)("../../pkg/node/compaction_core.js");

const PHONE = { width: 390, height: 844 };
const WINDOW = 128_000;
const LIMIT = 16_384;

const demo = demoPage();

const openPage = (viewport) => demo.openPage(viewport);

/** The compaction log, oldest first. */
const entries = (page) => page.$$eval("#sim-log li", (els) => els.reverse().map((li) => ({ ...li.dataset, text: li.textContent })));

/** Clicks a simulator button that runs an operation and waits until it is over (the attempts counter moves). */
async function run(page, id) {
  const n = Number(await page.getAttribute("#sim", "data-attempts"));
  await byTestId(page, id).click();
  await page.waitForSelector(`#sim[data-attempts="${n + 1}"][data-idle="true"]`);
}

/** Sends requests until a compaction ran (the page's own "Run to the next compaction"). */
async function runToCompaction(page) {
  await byTestId(page, "sim-run").click();
  await page.waitForSelector("#sim-log li");
  await page.waitForSelector('#sim[data-idle="true"]');
}

/** The stand-in summarizer of the page, for the same chat run in Node. */
const standIn = (request) => ({ text: standInSummary(request, cc.ladderConstants()), finishReason: "STOP" });

test("a resumed large session with an output limit of 16,384: several summary calls, every cap within the limit", async () => {
  const { page, problems } = await openPage();
  await setWindow(page, WINDOW);
  await page.fill("#sim-limit", String(LIMIT));
  await page.press("#sim-limit", "Enter");
  await byTestId(page, "sim-resume").click();
  const resumed = Number(await text(page, "sim-messages"));
  assert.ok(resumed > 0, "the resumed history is shown");
  assert.equal(await text(page, "sim-requests"), "0");
  assert.equal(Number(await page.getAttribute("#sim", "data-tokens")), 0, "no usage yet");
  assert.match(await text(page, "sim-notice"), /Resumed an earlier session/);

  await run(page, "sim-step");
  const [entry, ...more] = await entries(page);
  assert.equal(more.length, 0, "one compaction run");
  assert.deepEqual([entry.status, entry.trigger, entry.method], ["COMPRESSED", "hard", "summarized"]);
  const calls = Number(entry.summaryCalls);
  assert.ok(calls > 1, `${calls} summary calls`);
  assert.ok(entry.text.includes(`summary calls: ${calls}`), entry.text);
  assert.equal(entry.limit, String(LIMIT), "the chat has the limit typed");
  const caps = entry.caps.split(",").map(Number);
  assert.equal(caps.length, calls, "one cap shown per call");
  for (const cap of caps) assert.ok(cap >= 1 && cap <= LIMIT, `cap ${cap}`);
  assert.ok(Number(entry.newTokens) < cc.computeThresholds(WINDOW).auto, "the next prompt is below auto");
  assert.equal(await text(page, "sim-requests"), "1", "the send went through");

  // The same chat in Node over the same replayed history: the library's own count of calls.
  const script = createScript();
  const { history, tokens } = replayHistory(script, providerModel(cc).count, RESUME_WINDOWS * WINDOW, PROVIDER_UNSEEN_TOKENS);
  assert.equal(history.length, resumed, "the page's resumed history");
  assert.ok(tokens >= RESUME_WINDOWS * WINDOW);
  const chat = new cc.ChatCompactor({ window: WINDOW, maxOutputTokens: LIMIT });
  const caps2 = [];
  const r = await chat.beforeSend(history, script.peek().send, (request) => { caps2.push(request.config.maxOutputTokens); return standIn(request); });
  assert.equal(r.summaryCalls, calls, "the page shows the library's summaryCalls");
  assert.deepEqual(caps2, caps, "and the library's caps");
  chat.free();

  // The limit goes with the window: switching models keeps it.
  await setWindow(page, 200_000);
  await run(page, "sim-compact");
  const manual = (await entries(page)).at(-1);
  assert.equal(manual.trigger, "manual");
  for (const cap of manual.caps.split(",").map(Number)) assert.ok(cap <= LIMIT, `cap ${cap} after the window changed`);
  // Emptying the field clears the limit: the cap is the library's own again
  // (on a resumed session again: the history is short after the compaction).
  await page.fill("#sim-limit", "");
  await page.press("#sim-limit", "Enter");
  await byTestId(page, "sim-resume").click();
  await run(page, "sim-step");
  const unlimited = (await entries(page)).at(-1);
  assert.deepEqual([unlimited.status, unlimited.limit], ["COMPRESSED", ""]);
  assert.ok(unlimited.caps.split(",").map(Number).some((cap) => cap > LIMIT), unlimited.caps);
  assert.ok(unlimited.caps.split(",").map(Number).every((cap) => cap <= cc.ladderConstants().compactMaxOutputTokens));
  // A limit the library refuses is reported and the last one kept.
  await page.fill("#sim-limit", "1.5");
  await page.press("#sim-limit", "Enter");
  assert.match(await text(page, "sim-notice"), /maxOutputTokens/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a huge pasted message: NOOP messageTooLarge with overBy, no call; sent slimmed, it goes through", async () => {
  const { page, problems } = await openPage();
  await setWindow(page, WINDOW);
  await byTestId(page, "sim-paste").click();
  assert.equal(await page.getAttribute("#sim", "data-paste"), "pending");
  assert.ok(await byTestId(page, "sim-slim").isDisabled(), "nothing to slim yet");

  await run(page, "sim-step");
  const [entry] = await entries(page);
  assert.deepEqual([entry.status, entry.noopReason, entry.summaryCalls, entry.caps], ["NOOP", "messageTooLarge", "0", ""]);
  // The library's overBy for the same message on a fresh chat.
  const message = withPaste(createScript().peek().send, pastedLog(PASTE_CHARS));
  const chat = new cc.ChatCompactor({ window: WINDOW });
  const expected = await chat.beforeSend([], message, () => assert.fail("no summary call"));
  assert.equal(expected.noopReason, "messageTooLarge");
  assert.equal(Number(entry.overBy), expected.overBy);
  const fmt = new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 }).format;
  assert.ok(entry.text.includes(`${fmt(expected.overBy)} tokens above hard`), entry.text);
  assert.equal(await text(page, "sim-requests"), "0", "not sent");
  assert.equal(await page.getAttribute("#sim", "data-paste"), "tooLarge");
  assert.match(await text(page, "sim-notice"), /slimMessage/);
  assert.ok(await byTestId(page, "sim-paste-box").isVisible());

  await run(page, "sim-slim");
  assert.equal(await text(page, "sim-requests"), "1", "the slimmed message was sent");
  assert.equal(await text(page, "sim-messages"), "2");
  assert.equal(await page.getAttribute("#sim", "data-paste"), "");
  assert.ok(!(await byTestId(page, "sim-paste-box").isVisible()));
  assert.equal((await entries(page)).filter((e) => e.noopReason === "messageTooLarge").length, 1, "no second messageTooLarge");
  const notice = await text(page, "sim-notice");
  assert.match(notice, /Slimmed with slimMessage/);
  assert.match(notice, /Request 1 was sent/);
  // The slimmed message is what the library makes of it at half of auto.
  const { estimator, tokenizer } = chat.save().options;
  const slim = cc.slimMessage(message, chat.thresholds.auto / 2, { estimator, tokenizer });
  const chars = slim.parts.reduce((n, p) => n + p.text.length, 0);
  assert.ok(notice.includes(`→ ${fmt(chars)} characters`), notice);
  assert.match(slim.parts[1].text, /characters removed by compaction/);
  chat.free();
  assert.deepEqual(problems, []);
  await page.close();
});

test("clear old tool outputs first: the scripted session compacts with method \"cleared\", no summary call", async () => {
  const { page, problems } = await openPage();
  await setWindow(page, WINDOW);
  await byTestId(page, "sim-clear").check();
  await runToCompaction(page);
  const [entry] = await entries(page);
  assert.deepEqual([entry.status, entry.trigger, entry.method, entry.summaryCalls, entry.caps], ["COMPRESSED", "auto", "cleared", "0", ""]);
  assert.ok(Number(entry.newTokens) < cc.computeThresholds(WINDOW).warn, `cleared below warn: ${entry.newTokens}`);
  assert.match(await text(page, "sim-summary"), /No summary: the old tool outputs were cleared/);
  assert.match(await text(page, "sim-notice"), /no summary call/);
  // Unchecked, the same session is summarized.
  await byTestId(page, "sim-clear").uncheck();
  await runToCompaction(page);
  const [plain] = await entries(page);
  assert.deepEqual([plain.status, plain.method, plain.summaryCalls], ["COMPRESSED", "summarized", "1"]);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the new controls at 390×844: no horizontal overflow, a screenshot", async () => {
  const { page, problems } = await openPage(PHONE);
  const overflow = () => page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(await overflow() <= PHONE.width, "no horizontal scroll on load");
  await setWindow(page, WINDOW);
  await page.fill("#sim-limit", String(LIMIT));
  await page.press("#sim-limit", "Enter");
  await byTestId(page, "sim-resume").click();
  await run(page, "sim-step");
  await byTestId(page, "sim-paste").click();
  // The paste waits for the next request the user types: the current task's tool results go first.
  for (let i = 0; i < 40 && (await page.getAttribute("#sim", "data-paste")) !== "tooLarge"; i++) await run(page, "sim-step");
  assert.equal(await page.getAttribute("#sim", "data-paste"), "tooLarge");
  assert.ok(await overflow() <= PHONE.width, "no horizontal scroll with the scenarios shown");
  await page.locator("#sim-section").screenshot({ path: resolve(shots, "www-fit-phone-sim.png") });
  assert.deepEqual(problems, []);
  await page.close();
});
