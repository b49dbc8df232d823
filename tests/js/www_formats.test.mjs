// The demonstration page in the library's four message formats (the message formats, docs/api.md):
// the estimator box reads a history in the chosen format, shows the
// library's INVALID_CONTENT message for another format's shape, and the same
// agent turn estimates alike in all four; the simulator keeps its history in
// the chosen format end to end, through compaction. Served by the demo's own
// server (scripts/serve.mjs), in Chromium. What is expected comes from the
// built package (pkg/node) run on the page's own samples and session script,
// never from numbers written here. Needs pkg/ (scripts/build); builds nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createRequire } from "node:module";
import { byTestId, demoPage, SCREENSHOTS as shots, setWindow, testIdText as text } from "./browser.mjs";
import { agentMessages } from "../../www/samples.js";
import { createScript, replayHistory, SYSTEM_PROMPT } from "../../www/session-script.js";
import { standInSummary } from "../../www/summarizers.js";
import { formatLabel, shortened } from "../../www/message-formats.js";

const cc = createRequire(import.meta.url)("../../pkg/node/compaction_core.js");

const FORMATS = ["gemini", "openai", "anthropic", "ai-sdk"];
/** The formats that keep the system prompt in the messages. */
const WITH_SYSTEM = new Set(["openai", "ai-sdk"]);
const PHONE = { width: 390, height: 844 };
/** The system message as the page shows it (long strings cut for display only). */
const SHOWN_SYSTEM = shortened({ role: "system", content: SYSTEM_PROMPT });

const demo = demoPage();

/** The options of an estimator column, from its label ("calibrated · o200k"). */
function options(label) {
  const [estimator, tokenizer] = label.split(" · ");
  return tokenizer ? { estimator, tokenizer } : { estimator };
}

const number = (s) => Number(s.replaceAll(",", ""));

/** The estimator table's totals, per column label; {} when there is no table. */
async function totals(page) {
  return Object.fromEntries(await page.$$eval('[data-testid="estimate-total"] td[data-estimator]',
    (els) => els.map((e) => [e.dataset.estimator, e.textContent])));
}

/** The library's message for `messages` read in `format`, or null when it reads them. */
function libraryError(messages, format) {
  try {
    cc.estimateContentTokens(messages, { format });
    return null;
  } catch (e) {
    assert.equal(e.code, "INVALID_CONTENT");
    return `${e.code}: ${e.message}`;
  }
}

test("the estimator box: each format's sample gives the library's estimates; read in another format, the library's INVALID_CONTENT message", async () => {
  const { page, problems } = await demo.openPage();
  const image = Number(await page.inputValue("#image-token-estimate"));
  const seen = {};
  for (const format of FORMATS) {
    const messages = agentMessages(format);
    await byTestId(page, `sample-${format}`).click();
    assert.equal(await page.inputValue("#estimator-format"), format, "the sample switches the box to its format");
    assert.deepEqual(JSON.parse(await page.inputValue("#estimator-input")), messages, "the box holds the sample");
    assert.ok(!(await byTestId(page, "estimator-error").isVisible()), `no error for the ${format} sample`);
    const shown = await totals(page);
    assert.ok(Object.keys(shown).length > 1, "a total per estimator");
    for (const [label, value] of Object.entries(shown)) {
      assert.equal(number(value), cc.estimateContentTokens(messages, { ...options(label), format, imageTokenEstimate: image }), `${format}, ${label}`);
    }
    // One row per part: the OpenAI sample's tool calls and tool messages, the others' content blocks.
    const kinds = await page.$$eval('[data-testid="estimate-part"] td:nth-of-type(1)', (els) => els.map((e) => e.textContent));
    assert.ok(kinds.length >= messages.length, kinds.join(" | "));
    seen[format] = shown;

    // The same text read in each other format: the library's own message, no number.
    for (const other of FORMATS.filter((f) => f !== format)) {
      await page.selectOption("#estimator-format", other);
      const expected = libraryError(messages, other);
      assert.ok(expected, `the ${format} sample is not read as ${other}`);
      assert.equal(await text(page, "estimator-error"), expected, `${format} sample read as ${other}`);
      assert.deepEqual(await totals(page), {}, "no estimate is shown");
      // The page offers the formats the message suggests; the sample's own is one of them.
      const offered = await page.$$eval('[data-testid="estimator-switch"] button', (els) => els.map((e) => e.dataset.format));
      assert.ok(offered.includes(format), `${other}: offered ${offered}`);
    }
    await page.locator(`[data-testid="estimator-switch"] button[data-format="${format}"]`).click();
    assert.equal(await page.inputValue("#estimator-format"), format);
    assert.deepEqual(await totals(page), shown, "taking the suggested format gives the sample's estimates back");
  }

  // The same conversation in the four formats estimates within 2%, under every estimator.
  for (const label of Object.keys(seen.gemini)) {
    const values = FORMATS.map((f) => number(seen[f][label]));
    assert.ok(Math.max(...values) / Math.min(...values) <= 1.02, `${label}: ${values}`);
  }

  // The page's own line comparing the four formats shows the library's numbers.
  const agreement = await text(page, "sample-agreement");
  const fmt = (n) => new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 }).format(n);
  for (const label of ["reference", "calibrated · o200k"]) {
    const values = FORMATS.map((f) => `${formatLabel(f)} ${fmt(cc.estimateContentTokens(agentMessages(f), { ...options(label), format: f }))}`);
    assert.ok(agreement.includes(`${label}: ${values.join(", ")}`), agreement);
  }

  // Plain text is one user message of the chosen format; a message list in the wrong shape is never 0.
  await page.selectOption("#estimator-format", "anthropic");
  await page.fill("#estimator-input", "hello world, twice: hello world");
  assert.equal(number((await totals(page)).reference),
    cc.estimateContentTokens([{ role: "user", content: "hello world, twice: hello world" }], { format: "anthropic" }));
  await page.fill("#estimator-input", JSON.stringify({ contents: agentMessages("gemini") }));
  assert.equal(await text(page, "estimator-error"), libraryError(agentMessages("gemini"), "anthropic"));
  assert.deepEqual(problems, []);
  await page.close();
});

/** The messages the page shows as JSON: { index, message }, in order. */
const shownHistory = (page) => page.$$eval('[data-testid="sim-history-message"]',
  (els) => els.map((e) => ({ index: Number(e.dataset.index), message: JSON.parse(e.textContent) })));

/** A message has the shape of `format` (the SDK's message type), and none of another's. */
function assertShape(format, m, where) {
  if (format === "gemini") {
    assert.ok(Array.isArray(m.parts), `${where} has parts`);
    assert.ok(["user", "model"].includes(m.role), `${where}: role ${m.role}`);
    assert.ok(!("content" in m), `${where} has no content`);
    return;
  }
  assert.ok(!("parts" in m), `${where} is Gemini-shaped: ${JSON.stringify(m).slice(0, 200)}`);
  assert.notEqual(m.role, "model", `${where} has role "model"`);
  const roles = { openai: ["system", "user", "assistant", "tool"], anthropic: ["user", "assistant"], "ai-sdk": ["system", "user", "assistant", "tool"] }[format];
  assert.ok(roles.includes(m.role), `${where}: role ${m.role} in ${format}`);
  const blocks = Array.isArray(m.content) ? m.content : [];
  if (format === "openai") {
    if (m.role === "tool") assert.equal(typeof m.tool_call_id, "string", `${where}: tool_call_id`);
    for (const call of m.tool_calls ?? []) assert.equal(typeof call.function.arguments, "string", `${where}: arguments as a JSON string`);
    assert.ok(blocks.every((b) => b.type === "text" || b.type === "image_url"), `${where}: OpenAI content parts`);
  } else {
    assert.ok(typeof m.content === "string" || Array.isArray(m.content), `${where}: content`);
    const types = format === "anthropic" ? ["text", "tool_use", "tool_result", "image"] : ["text", "tool-call", "tool-result", "image"];
    assert.ok(blocks.every((b) => types.includes(b.type)), `${where}: ${format} blocks ${blocks.map((b) => b.type)}`);
    if (format === "ai-sdk" && m.role === "tool") assert.ok(blocks.every((b) => b.type === "tool-result" && typeof b.toolCallId === "string"), where);
  }
}

/**
 * The library's acknowledgement and summary messages in `format`: a manual
 * compaction, in Node, of the page's own session script replayed in that format.
 */
async function libraryHead(format) {
  const constants = cc.ladderConstants();
  const chat = new cc.ChatCompactor({ window: 64_000, format });
  const { history } = replayHistory(createScript(7, format), (m) => cc.estimateContentTokens([m], { format }), 40_000);
  const r = await chat.compact(history, (request) => ({ text: standInSummary(request, constants), finishReason: "STOP" }));
  chat.free();
  assert.equal(r.statusName, "COMPRESSED");
  const has = (s) => (m) => JSON.stringify(m).includes(JSON.stringify(s).slice(1, -1));
  return { ack: r.history.find(has(constants.acknowledgement)), summary: r.history.find(has(constants.summaryOpenTag)) };
}

/** Clicks a simulator button that runs until a compaction, and waits until it is over. */
async function runToCompaction(page) {
  const runs = await page.locator("#sim-log li").count();
  await byTestId(page, "sim-run").click();
  await page.waitForFunction((n) => document.querySelectorAll("#sim-log li").length > n, runs);
  await page.waitForSelector('#sim[data-idle="true"]');
}

for (const format of FORMATS) {
  test(`the simulator in the ${format} format: compacts twice, and the history stays ${format}-shaped${WITH_SYSTEM.has(format) ? ", its system message first" : ""}`, async () => {
    const { page, problems } = await demo.openPage();
    const constants = cc.ladderConstants();
    const expected = await libraryHead(format);
    await setWindow(page, 64_000);
    await page.selectOption("#sim-format", format);
    assert.equal(await page.getAttribute("#sim", "data-format"), format);
    assert.equal(await page.getAttribute('[data-testid="sim-history"]', "data-format"), format);
    const usage = { gemini: "usageMetadata", openai: "prompt_tokens", anthropic: "input_tokens", "ai-sdk": "inputTokens" }[format];
    assert.ok((await text(page, "sim-provider-note")).includes(usage), "the provider reports usage in the format's SDK shape");

    // Before any request: the system message alone, where the format keeps it in the messages.
    const start = await shownHistory(page);
    assert.deepEqual(start.map((s) => s.message), WITH_SYSTEM.has(format) ? [SHOWN_SYSTEM] : []);

    for (let run = 1; run <= 2; run++) {
      await runToCompaction(page);
      const entry = await page.locator("#sim-log li").first();
      assert.equal(await entry.getAttribute("data-status"), "COMPRESSED", `run ${run}`);
      assert.ok(Number(await entry.getAttribute("data-new-tokens")) < Number(await entry.getAttribute("data-before")), "the compaction frees space");
      // The simulated summarizer still reads every format: the files the tools changed are in its summary.
      const summary = await text(page, "sim-summary");
      assert.match(summary, /## Files\n- modified: /, `run ${run}: the stand-in saw the tool calls`);

      const shown = await shownHistory(page);
      const count = Number(await page.getAttribute('[data-testid="sim-history"]', "data-count"));
      assert.equal(count, Number(await text(page, "sim-messages")));
      assert.ok(shown.length >= Math.min(count, 8), `${shown.length} messages shown of ${count}`);
      assert.equal(shown[0].index, 0, "the view starts at the history's first message");
      assert.equal(shown.at(-1).index, count - 1, "and ends at its last");
      for (const { index, message } of shown) assertShape(format, message, `${format} history[${index}] after compaction ${run}`);

      // The head: the pinned system message, then the summary and the acknowledgement as the library writes them in this format.
      const at = WITH_SYSTEM.has(format) ? 1 : 0;
      if (WITH_SYSTEM.has(format)) {
        assert.deepEqual(shown[0].message, SHOWN_SYSTEM, "the system message first, verbatim");
      } else {
        assert.ok(shown.every(({ message }) => message.role !== "system"), "no system message in the messages");
      }
      const summaryMessage = shown[at].message;
      assert.ok(JSON.stringify(summaryMessage).includes(constants.summaryOpenTag), `history[${at}] is the summary`);
      assert.deepEqual(Object.keys(summaryMessage).sort(), Object.keys(expected.summary).sort(), "the summary message has the library's keys");
      assert.equal(summaryMessage.role, expected.summary.role);
      assert.deepEqual(shown[at + 1].message, expected.ack, "the acknowledgement, exactly as the library writes it");
    }

    // The download: the history before the last compaction, in the format.
    const [download] = await Promise.all([page.waitForEvent("download"), byTestId(page, "sim-download").click()]);
    const data = JSON.parse(readFileSync(await download.path(), "utf8"));
    assert.equal(data.format, format);
    data.history.forEach((m, i) => assertShape(format, m, `downloaded history[${i}]`));
    if (WITH_SYSTEM.has(format)) assert.deepEqual(data.history[0], { role: "system", content: SYSTEM_PROMPT });
    assert.equal(cc.estimateContentTokens(data.history, { format }) > 0, true, "the library reads it in its format");
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test("a resumed session and a huge paste in the OpenAI, Anthropic and AI SDK formats: compacted in several calls, sent slimmed", async () => {
  const { page, problems } = await demo.openPage();
  await setWindow(page, 128_000);
  for (const format of ["openai", "anthropic", "ai-sdk"]) {
    await page.selectOption("#sim-format", format);
    const attempts = async () => Number(await page.getAttribute("#sim", "data-attempts"));
    const run = async (id) => {
      const n = await attempts();
      await byTestId(page, id).click();
      await page.waitForSelector(`#sim[data-attempts="${n + 1}"][data-idle="true"]`);
    };
    await byTestId(page, "sim-resume").click();
    const resumed = await shownHistory(page);
    assert.equal(resumed[0].index, 0);
    if (WITH_SYSTEM.has(format)) assert.equal(resumed[0].message.role, "system");
    await run("sim-step");
    const entry = page.locator("#sim-log li").first();
    assert.equal(await entry.getAttribute("data-status"), "COMPRESSED", format);
    assert.ok(Number(await entry.getAttribute("data-summary-calls")) > 1, `${format}: several summary calls`);
    for (const { index, message } of await shownHistory(page)) assertShape(format, message, `${format} resumed history[${index}]`);

    await byTestId(page, "sim-paste").click();
    for (let i = 0; i < 40 && (await page.getAttribute("#sim", "data-paste")) !== "tooLarge"; i++) await run("sim-step");
    assert.equal(await page.getAttribute("#sim", "data-paste"), "tooLarge", `${format}: the paste is too large`);
    await run("sim-slim");
    assert.equal(await page.getAttribute("#sim", "data-paste"), "", `${format}: the slimmed message was sent`);
    assert.match(await text(page, "sim-notice"), /Slimmed with slimMessage/);
    // The slimmed request is the user's message in the format: the typed request, then the (slimmed) log as a second text block.
    const shown = await shownHistory(page);
    const sent = shown.map((s) => s.message).findLast((m) => m.role === "user" && Array.isArray(m.content) && m.content.length === 2);
    assert.ok(sent, `${format}: the slimmed request is in the history`);
    assertShape(format, sent, `${format} slimmed request`);
    assert.ok(sent.content.every((b) => b.type === "text"), `${format}: two text blocks`);
    assert.match(sent.content[1].text, /^Here is the whole CI log/);
  }
  assert.deepEqual(problems, []);
  await page.close();
});

test("the formats at 390×844: no horizontal overflow with the JSON history shown, a screenshot", async () => {
  const { page, problems } = await demo.openPage(PHONE);
  await setWindow(page, 64_000);
  await page.selectOption("#sim-format", "openai");
  await runToCompaction(page);
  await byTestId(page, "sample-anthropic").click();
  await page.selectOption("#estimator-format", "openai");
  assert.ok(await byTestId(page, "estimator-error").isVisible());
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth) <= PHONE.width, "no horizontal scroll");
  await page.locator("#estimator-section").screenshot({ path: resolve(shots, "www-formats-phone-estimator.png") });
  await page.locator("#sim-history-details").screenshot({ path: resolve(shots, "www-formats-phone-history.png") });
  assert.deepEqual(problems, []);
  await page.close();
});
