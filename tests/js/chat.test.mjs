// ChatCompactor through JS, with scripted summarize callbacks.
import { test } from "node:test";
import assert from "node:assert/strict";

// The package, with every summary request checked against the model's limit.
import { cc } from "./helpers.mjs";
const { ChatCompactor, CompressionStatus, computeThresholds, estimateContentTokens } = cc;

const WINDOW = 200_000; // warn 147 000, auto 167 000, hard 177 000

/** A realistic history: `turns` user/model exchanges with tool calls, about `chars` characters each. */
function makeHistory(turns, chars = 4_000) {
  const h = [];
  for (let i = 0; i < turns; i++) {
    h.push({ role: "user", parts: [{ text: `Step ${i}: please continue the refactor of src/mod${i}.rs. ` + "u".repeat(chars / 4) }] });
    h.push({ role: "model", parts: [{ functionCall: { id: `c${i}`, name: "read_file", args: { path: `src/mod${i}.rs` } } }] });
    h.push({ role: "user", parts: [{ functionResponse: { id: `c${i}`, name: "read_file", response: { output: "fn x() {}\n".repeat(chars / 20) } } }] });
    h.push({ role: "model", parts: [{ text: `Done with step ${i}. ` + "m".repeat(chars / 4) }] });
  }
  return h;
}

const userMessage = { role: "user", parts: [{ text: "Next step, please." }] };
const good = async () => ({ text: "## Task status\n- done: steps 0-9\n## Next steps\n- step 10", finishReason: "STOP" });

/** A chat whose last usage is `tokens`. */
function chatAt(tokens, extra = {}) {
  const chat = new ChatCompactor({ window: WINDOW, ...extra });
  chat.reportUsage({ promptTokenCount: tokens - 500, candidatesTokenCount: 500, totalTokenCount: tokens });
  return chat;
}

function assertUnchanged(result, history, snapshot) {
  assert.equal(result.history, history, "the very array the host passed");
  assert.equal(JSON.stringify(result.history), snapshot, "byte for byte");
  assert.deepEqual(result.replaced, []);
}

test("below auto: NOOP without calling summarize", async () => {
  const chat = chatAt(100_000);
  const history = makeHistory(3);
  let calls = 0;
  const r = await chat.beforeSend(history, userMessage, async () => { calls++; return "x"; });
  assert.equal(r.status, CompressionStatus.NOOP);
  assert.equal(r.statusName, "NOOP");
  assert.equal(r.noopReason, "belowAuto");
  assert.equal(r.history, history);
  assert.equal(calls, 0);
  // The chat's default estimator for thresholds is the conservative one.
  assert.equal(r.estimate, cc.estimatePromptTokens([], userMessage, 100_000, { estimator: "conservative" }));
  assert.ok(r.estimate > 100_000);
});

test("at auto: compacts through the callback; thinking off, output cap at most 20 000 and within the window; tail verbatim", async () => {
  // A history whose estimate is in [auto, hard), reported as the provider's count.
  let turns = 1;
  const conservative = { estimator: "conservative" }; // the chat's default
  while (estimateContentTokens(makeHistory(turns, 12_000), conservative) < 168_000) turns++;
  const history = makeHistory(turns, 12_000);
  const tokens = estimateContentTokens(history, conservative);
  assert.ok(tokens >= 167_000 && tokens < 177_000, `${tokens} in the auto band`);
  const chat = chatAt(tokens);
  let seen;
  const r = await chat.beforeSend(history, userMessage, async (request) => { seen = request; return good(); });
  assert.equal(r.status, CompressionStatus.COMPRESSED);
  assert.equal(r.trigger, "auto");
  assert.equal(r.forced, false);
  // The cap is 20 000, or less when the request as the provider sees it
  // (tool results written as JSON text, as the ready summarizers render
  // them; issue 19) leaves less of the window.
  assert.deepEqual(seen.config.thinkingConfig, { includeThoughts: false });
  const { renderTurns } = await import("../../pkg/summarizers/index.js");
  const rendered = estimateContentTokens([{ role: "user", parts: [{ text: seen.systemInstruction }] },
    ...renderTurns(seen.contents).map((t) => ({ role: t.role === "user" ? "user" : "model", parts: [{ text: t.text }] }))], conservative);
  const cap = seen.config.maxOutputTokens;
  assert.ok(Number.isInteger(cap) && cap <= 20_000 && cap >= 10_000, `cap ${cap}`);
  assert.ok(rendered + cap + 1_024 <= 200_000, `rendered request ${rendered} + cap ${cap} + 1 024 within the window`);
  assert.match(seen.systemInstruction, /task status/i);
  assert.ok(seen.contents.length >= 1);
  // The new history ends with the host's own objects, from keptFrom on.
  const tail = history.slice(r.keptFrom);
  assert.ok(tail.length >= 4, "at least two exchanges kept");
  assert.deepEqual(r.history.slice(-tail.length), tail);
  tail.forEach((m, i) => assert.equal(r.history[r.history.length - tail.length + i], m, "same objects"));
  assert.equal(r.history[0].role, "user");
  assert.match(JSON.stringify(r.history[0]), /steps 0-9/);
  assert.deepEqual(r.replaced, history.slice(0, r.keptFrom));
  // The indicator resets to the freed space.
  assert.ok(chat.lastPromptTokenCount < 167_000);
  assert.equal(chat.lastPromptTokenCount, r.newTokenCount);
  assert.ok(r.newTokenCountEstimated);
  assert.equal(chat.usage().tier, "safe");
});

test("the history after every kind of failure is the one before, byte for byte", async () => {
  const failures = [
    ["throws", () => { throw new Error("boom"); }, CompressionStatus.SUMMARIZER_FAILED],
    ["rejects", async () => { throw new TypeError("network down"); }, CompressionStatus.SUMMARIZER_FAILED],
    ["returns MAX_TOKENS", async () => ({ text: "partial summ", finishReason: "MAX_TOKENS" }), CompressionStatus.OUTPUT_TRUNCATED],
    ["returns length (OpenAI)", async () => ({ text: "partial", finishReason: "length" }), CompressionStatus.OUTPUT_TRUNCATED],
    ["returns an empty text", async () => ({ text: "   \n" }), CompressionStatus.EMPTY_SUMMARY],
    ["returns something malformed", async () => ({ summary: "wrong field" }), CompressionStatus.SUMMARIZER_FAILED],
    ["returns a number", async () => 42, CompressionStatus.SUMMARIZER_FAILED],
    ["returns a summary longer than what it replaces", async () => "x".repeat(2_000_000), CompressionStatus.INFLATED],
  ];
  for (const [name, summarize, status] of failures) {
    const chat = chatAt(168_000);
    const history = makeHistory(12);
    const snapshot = JSON.stringify(history);
    const r = await chat.beforeSend(history, userMessage, summarize);
    assert.equal(r.status, status, name);
    assertUnchanged(r, history, snapshot);
    assert.equal(r.consecutiveFailures, 1, `${name}: a non-forced failure counts`);
    assert.equal(chat.lastPromptTokenCount, 168_000, `${name}: usage untouched`);
  }
});

test("a thrown error is the result's cause, the host's own object", async () => {
  const chat = chatAt(168_000);
  const mine = new Error("quota exceeded");
  const r = await chat.beforeSend(makeHistory(12), userMessage, () => { throw mine; });
  assert.equal(r.status, CompressionStatus.SUMMARIZER_FAILED);
  assert.equal(r.cause, mine);
  const r2 = await chat.beforeSend(makeHistory(12), userMessage, async () => ({ nope: 1 }));
  assert.equal(r2.cause.name, "CompactionError");
  assert.equal(r2.cause.code, "INVALID_ANSWER");
});

test("a string answer is a summary", async () => {
  const chat = chatAt(168_000);
  const r = await chat.beforeSend(makeHistory(12), userMessage, async () => "The user is refactoring src/.");
  assert.equal(r.status, CompressionStatus.COMPRESSED);
  // The summary message is the model's text, then what the ledger records.
  assert.ok(r.summary.startsWith("The user is refactoring src/."), r.summary);
  // Synchronous answers are accepted too.
  const r2 = await chatAt(168_000).beforeSend(makeHistory(12), userMessage, () => "sync summary");
  assert.equal(r2.status, CompressionStatus.COMPRESSED);
});

test("3 failures open the breaker; hard still forces a run, which recovers", async () => {
  const chat = chatAt(168_000);
  const history = makeHistory(12);
  const fail = async () => { throw new Error("down"); };
  for (let i = 1; i <= 3; i++) {
    const r = await chat.beforeSend(history, userMessage, fail);
    assert.equal(r.consecutiveFailures, i);
  }
  let calls = 0;
  const r = await chat.beforeSend(history, userMessage, async () => { calls++; return good(); });
  assert.equal(r.status, CompressionStatus.NOOP);
  assert.equal(r.noopReason, "breakerOpen");
  assert.equal(calls, 0);
  // The prompt reaches hard: the breaker is reset and the run is forced.
  chat.reportUsage({ totalTokenCount: 178_000 });
  const forced = await chat.beforeSend(history, userMessage, fail);
  assert.equal(forced.trigger, "hard");
  assert.equal(forced.forced, true);
  assert.equal(forced.consecutiveFailures, 0, "a forced failure is not counted, and hard reset the count");
  const rescued = await chat.beforeSend(history, userMessage, good);
  assert.equal(rescued.status, CompressionStatus.COMPRESSED);
  assert.equal(rescued.trigger, "hard");
  assert.equal(chat.consecutiveFailures, 0);
});

test("one failure no longer locks compaction for the session", async () => {
  const chat = chatAt(168_000);
  const history = makeHistory(12);
  const r1 = await chat.beforeSend(history, userMessage, async () => { throw new Error("once"); });
  assert.equal(r1.consecutiveFailures, 1);
  const r2 = await chat.beforeSend(history, userMessage, good);
  assert.equal(r2.status, CompressionStatus.COMPRESSED);
  assert.equal(chat.consecutiveFailures, 0);
});

test("a callback that never resolves is aborted; nothing changes, nothing counted", async () => {
  const chat = chatAt(168_000);
  const history = makeHistory(12);
  const snapshot = JSON.stringify(history);
  const controller = new AbortController();
  const pending = chat.beforeSend(history, userMessage, () => new Promise(() => {}), { signal: controller.signal });
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(chat.busy, true);
  controller.abort();
  const r = await pending;
  assert.equal(r.status, CompressionStatus.ABORTED);
  assertUnchanged(r, history, snapshot);
  assert.equal(r.consecutiveFailures, 0);
  assert.equal(chat.busy, false);
  // An already aborted signal never calls the callback.
  let calls = 0;
  const r2 = await chat.beforeSend(history, userMessage, async () => { calls++; return "x"; }, { signal: AbortSignal.abort() });
  assert.equal(r2.status, CompressionStatus.ABORTED);
  assert.equal(calls, 0);
});

test("a second call while one runs gets BUSY, never a wasm panic; the chat stays usable", async () => {
  const chat = chatAt(168_000);
  const history = makeHistory(12);
  let inner;
  const r = await chat.beforeSend(history, userMessage, async () => {
    // Re-entrant: from inside the callback, on the same chat.
    inner = await chat.beforeSend(history, userMessage, good).then(() => "resolved", (e) => e);
    // Reads work while busy.
    assert.equal(chat.busy, true);
    assert.equal(chat.window, WINDOW);
    assert.equal(typeof chat.save().version, "number");
    return good();
  });
  assert.equal(inner.name, "CompactionError");
  assert.equal(inner.code, "BUSY");
  assert.equal(r.status, CompressionStatus.COMPRESSED);
  // Concurrent calls from outside, too.
  chat.reportUsage({ totalTokenCount: 168_000 });
  let release;
  const slow = chat.beforeSend(history, userMessage, () => new Promise((res) => { release = res; }));
  await new Promise((r) => setTimeout(r, 5));
  await assert.rejects(chat.compact(history, good), (e) => e.code === "BUSY");
  // Reads and settings stay usable while a run is in flight.
  assert.equal(chat.busy, true);
  assert.equal(chat.usage().tokens, 168_000);
  release("done summary");
  assert.equal((await slow).status, CompressionStatus.COMPRESSED);
});

test("a resumed chat (no usage yet) with a long history triggers on its first send", async () => {
  const chat = new ChatCompactor({ window: 128_000 });
  const history = makeHistory(40, 12_000); // about 120K estimated tokens
  assert.ok(computeThresholds(128_000).auto < 120_000);
  const r = await chat.beforeSend(history, userMessage, good);
  assert.equal(r.status, CompressionStatus.COMPRESSED);
  assert.ok(r.estimate >= computeThresholds(128_000).auto);
});

test("manual compact is forced, keeps the focus, and its failure is not counted", async () => {
  const chat = chatAt(20_000);
  const history = makeHistory(12);
  let seen;
  const r = await chat.compact(history, async (req) => { seen = req; return good(); }, { focus: "keep the API decisions" });
  assert.equal(r.status, CompressionStatus.COMPRESSED);
  assert.equal(r.trigger, "manual");
  assert.match(seen.systemInstruction + JSON.stringify(seen.contents), /keep the API decisions/);
  const f = await chat.compact(makeHistory(12), async () => { throw new Error("x"); });
  assert.equal(f.status, CompressionStatus.SUMMARIZER_FAILED);
  assert.equal(f.consecutiveFailures, 0);
});

test("legacy hasFailedCompressionAttempt maps true → 3 and false → 0, warning once", () => {
  const warnings = [];
  const original = console.warn;
  console.warn = (m) => warnings.push(m);
  try {
    assert.equal(new ChatCompactor({ window: WINDOW, hasFailedCompressionAttempt: true }).consecutiveFailures, 3);
    assert.equal(new ChatCompactor({ window: WINDOW, hasFailedCompressionAttempt: false }).consecutiveFailures, 0);
    assert.equal(new ChatCompactor({ window: WINDOW, consecutiveFailures: 2, hasFailedCompressionAttempt: true }).consecutiveFailures, 2);
  } finally {
    console.warn = original;
  }
  assert.equal(warnings.length, 1);
  assert.match(warnings[0], /deprecated.*consecutiveFailures/);
});

test("state saved and restored mid-session resumes with the same failures and usage", async () => {
  const chat = chatAt(168_000, { excludeMessages: 3 });
  await chat.beforeSend(makeHistory(12), userMessage, async () => { throw new Error("x"); });
  const saved = JSON.parse(JSON.stringify(chat.save()));
  chat.free();
  const restored = ChatCompactor.restore(saved);
  assert.equal(restored.consecutiveFailures, 1);
  assert.equal(restored.lastPromptTokenCount, 168_000);
  assert.equal(restored.window, WINDOW);
  assert.equal(restored.save().options.excludeMessages, 3);
  const r = await restored.beforeSend(makeHistory(12), userMessage, good);
  assert.equal(r.status, CompressionStatus.COMPRESSED);
});

test("bad arguments are typed errors, never traps; the chat survives them", async () => {
  const codeOf = (fn) => { try { fn(); return "no error"; } catch (e) { assert.equal(e.name, "CompactionError"); return e.code; } };
  assert.equal(codeOf(() => new ChatCompactor()), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => new ChatCompactor({ window: "big" })), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => new ChatCompactor({ window: NaN })), "INVALID_WINDOW");
  assert.equal(codeOf(() => new ChatCompactor({ window: 1e5, excludeMessage: 3 })), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => new ChatCompactor({ window: 1e5, imageTokenEstimate: 0 })), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => ChatCompactor.restore({ version: 1 })), "INVALID_STATE");
  assert.equal(codeOf(() => ChatCompactor.restore("garbage")), "INVALID_STATE");
  // A value that cannot even be serialized is not a saved state either.
  assert.equal(codeOf(() => ChatCompactor.restore(() => 1)), "INVALID_STATE");
  assert.equal(codeOf(() => ChatCompactor.restore({ get version() { throw new Error("x"); } })), "INVALID_STATE");
  assert.equal(codeOf(() => ChatCompactor.restore(Symbol("s"))), "INVALID_STATE");
  const chat = chatAt(168_000);
  const reject = async (p) => { try { await p; return "no error"; } catch (e) { return e.code; } };
  assert.equal(await reject(chat.beforeSend("not an array", userMessage, good)), "INVALID_CONTENT");
  assert.equal(await reject(chat.beforeSend([], { role: 5 }, good)), "INVALID_CONTENT");
  assert.equal(await reject(chat.beforeSend(makeHistory(2), userMessage, "not a function")), "INVALID_ARGUMENT");
  assert.equal(await reject(chat.beforeSend(makeHistory(2), userMessage, good, { signal: {} })), "INVALID_ARGUMENT");
  assert.equal(await reject(chat.compact(makeHistory(2), good, { focus: 3 })), "INVALID_ARGUMENT");
  assert.equal(await reject(chat.beforeSend([{ role: "user", parts: [{ text: 1 }] }], userMessage, good)), "INVALID_CONTENT");
  // Usage garbage is ignored, not trusted.
  const u = chat.reportUsage({ totalTokenCount: -5, promptTokenCount: "many" });
  assert.equal(u.taken, false);
  assert.equal(chat.lastPromptTokenCount, 168_000);
  // Still works.
  assert.equal((await chat.beforeSend(makeHistory(12), userMessage, good)).status, CompressionStatus.COMPRESSED);
});

test("CompressionStatus is a frozen enum with the reference's numbers", async () => {
  // The JS enum and the engine's statuses name the same numbers.
  const chat = chatAt(168_000);
  const seen = [
    await chat.beforeSend(makeHistory(12), userMessage, async () => ({ text: "" })),
    await chat.beforeSend(makeHistory(12), userMessage, async () => ({ text: "x", finishReason: "MAX_TOKENS" })),
    await chat.beforeSend(makeHistory(12), userMessage, async () => { throw new Error("x"); }),
    await chat.beforeSend(makeHistory(12), userMessage, good),
  ];
  for (const r of seen) assert.equal(CompressionStatus[r.statusName], r.status, r.statusName);
  assert.deepEqual(seen.map((r) => r.statusName), ["EMPTY_SUMMARY", "OUTPUT_TRUNCATED", "SUMMARIZER_FAILED", "NOOP"]);
  assert.ok(Object.isFrozen(CompressionStatus));
  assert.deepEqual(
    [CompressionStatus.COMPRESSED, CompressionStatus.INFLATED, CompressionStatus.TOKEN_COUNT_ERROR, CompressionStatus.EMPTY_SUMMARY,
      CompressionStatus.NOOP, CompressionStatus.OUTPUT_TRUNCATED, CompressionStatus.SUMMARIZER_FAILED, CompressionStatus.ABORTED],
    [1, 2, 3, 4, 5, 6, 7, 8],
  );
});

test("usage from OpenAI and Anthropic shapes", () => {
  const chat = new ChatCompactor({ window: WINDOW });
  assert.equal(chat.reportUsage({ prompt_tokens: 1000, completion_tokens: 50, total_tokens: 1050 }).lastPromptTokenCount, 1050);
  const a = chat.reportUsage({ input_tokens: 10, cache_read_input_tokens: 2000, output_tokens: 40 });
  assert.equal(a.lastPromptTokenCount, 2050);
  assert.equal(chat.usage().tokens, 2050);
});
