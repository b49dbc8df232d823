// Every send fits the window and the ledger (docs/behaviour.md) through
// the built package: one test per scenario of the issues, with scripted
// summarize callbacks. Needs pkg/ (scripts/build). Every request any run
// makes is checked by ./helpers.mjs (cap ≤ the model's limit); the runs on
// resumed chats also check each request's input against the window.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { cc, outputLimit } from "./helpers.mjs";

const { ChatCompactor, CompressionStatus: S, computeThresholds, estimateContentTokens, estimatePromptTokens, slimMessage } = cc;

const WINDOW = 128_000; // warn 76 800, auto 95 000, hard 105 000
const T = computeThresholds(WINDOW);
/** A chat's own estimator (the default for threshold decisions). */
const CHAT_ESTIMATE = { estimator: "conservative" };
/** What the provider's framing of a request may add (summary_request::REQUEST_OVERHEAD_TOKENS). */
const REQUEST_OVERHEAD_TOKENS = 1_024;
const next = { role: "user", parts: [{ text: "go on with the fix" }] };

const user = (text) => ({ role: "user", parts: [{ text }] });
const model = (text) => ({ role: "model", parts: [{ text }] });

/** Varied text of `chars` characters (not one repeated letter, which estimators count unlike text). */
function prose(chars) {
  let text = "";
  for (let i = 0; text.length < chars; i++) text += `line ${i} of the pasted log: value=${(i * 7919) % 10007} ok\n`;
  return text.slice(0, chars);
}

/** The dev corpus's agent sessions (tests/corpus/histories-dev.jsonl). */
const SESSIONS = readFileSync(new URL("../corpus/histories-dev.jsonl", import.meta.url), "utf8")
  .trim().split("\n").map((line) => JSON.parse(line).history);

/** The corpus's sessions one after the other, repeated, until about `tokens` estimated tokens: a long resumed agent session. */
function agentSession(tokens) {
  const history = [];
  let total = 0;
  for (let i = 0; total < tokens; i++) {
    const session = structuredClone(SESSIONS[i % SESSIONS.length]);
    total += estimateContentTokens(session, CHAT_ESTIMATE);
    history.push(...session);
  }
  return history;
}

/** A summary that names the request it answers: about `chars` characters. */
const summaryOf = (request, n, chars = 6_000) => {
  const words = `## Task status\n- part ${n} of the work, ${request.contents.length} messages read\n`;
  return { text: words.repeat(Math.max(1, Math.floor(chars / words.length))), finishReason: "STOP" };
};

/**
 * A summarize callback that records every request and checks, for a chat
 * without usage (the provider's scale is 1), that its estimated input fits
 * the window beside the cap and the provider's framing.
 */
function recorder(chat, answer = (request, n) => summaryOf(request, n), { checkInput = true, usage = false } = {}) {
  const requests = [];
  const summarize = (request, context) => {
    requests.push(request);
    if (checkInput) {
      const input = estimateContentTokens([user(request.systemInstruction), ...request.contents], CHAT_ESTIMATE);
      const room = chat.window - request.config.maxOutputTokens - REQUEST_OVERHEAD_TOKENS;
      assert.ok(input <= room, `request ${requests.length}: input ${input} above window − cap − margin = ${room}`);
    }
    const reply = answer(request, requests.length, context);
    return usage ? withUsage(request, reply) : reply;
  };
  return { requests, summarize };
}

/**
 * `answer` with the usage the provider reports for `request`, as every ready
 * summarizer returns it (`compaction-core/summarizers`): the request's input
 * and the summary's output, counted by the chat's estimator (issue 19,
 * defect 2: the scenarios run with and without it).
 */
function withUsage(request, answer) {
  if (answer === null || typeof answer !== "object" || typeof answer.text !== "string") return answer;
  const input = estimateContentTokens([user(request.systemInstruction), ...request.contents], CHAT_ESTIMATE);
  const output = estimateContentTokens([model(answer.text)], CHAT_ESTIMATE);
  return { ...answer, usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } };
}
/** Each fitting scenario runs twice: the summary's answer without usage, and with it. */
const USAGE = [false, true];
const withOrWithout = (usage) => (usage ? " (the answer with usage)" : "");

/** The next prompt after a result: its history and `message`, estimated with the chat's estimator. */
const nextPrompt = (result, message = next) => estimatePromptTokens(result.history, message, 0, CHAT_ESTIMATE);

// The paste in the last exchange, then as the last model turn, whose slimmed
// copy ends the new history (issue 19, defect 2: with usage that run was
// INFLATED, 100,818 → 67,609 without).
const PASTES = {
  "in the last exchange": () => [user("set up the project"), model("done"), user("what does the log say?"), model("paste it"),
    user(prose(400_000)), model("the log shows a timeout in the fetch loop")],
  "as the last model turn": () => [user("set up the project"), model("done"), user("print the log"), model(prose(400_000))],
};
for (const usage of USAGE) for (const [where, makeHistory] of Object.entries(PASTES)) test(`a resumed session holding a 400,000-character message ${where} compacts on 128,000, and the next prompt is below auto${withOrWithout(usage)}`, async () => {
  const history = makeHistory();
  const snapshot = JSON.stringify(history);
  const chat = new ChatCompactor({ window: WINDOW });
  const { requests, summarize } = recorder(chat, (r, n) => summaryOf(r, n, 2_000), { usage });
  const r = await chat.beforeSend(history, next, summarize);
  assert.equal(r.statusName, "COMPRESSED", `${r.statusName} ${r.noopReason}`);
  assert.equal(r.trigger, "hard");
  assert.equal(r.method, "summarized");
  assert.ok(requests.length >= 1);
  assert.equal(r.summaryCalls, requests.length);
  assert.equal(JSON.stringify(history), snapshot, "the host's history is not touched");
  const prompt = nextPrompt(r);
  assert.ok(prompt < T.auto, `next prompt ${prompt} not below auto ${T.auto}`);
  // The paste is not sent whole again: it was summarized, or slimmed with a marker.
  assert.ok(!JSON.stringify(r.history).includes(prose(400_000)));
  if (r.keptFrom === history.length) assert.match(JSON.stringify(r.history), /characters removed by compaction/);
});

for (const usage of USAGE) test(`a resumed 1,000,000-token agent session on 128,000 with maxOutputTokens 16,384: several calls, each fitting${withOrWithout(usage)}`, async () => {
  const history = agentSession(1_000_000);
  const chat = new ChatCompactor({ window: WINDOW, maxOutputTokens: 16_384 });
  assert.equal(outputLimit(chat), 16_384);
  const { requests, summarize } = recorder(chat, undefined, { usage });
  const r = await chat.beforeSend(history, next, summarize);
  assert.equal(r.statusName, "COMPRESSED", `${r.statusName} ${r.noopReason}`);
  assert.equal(r.trigger, "hard");
  assert.equal(r.method, "summarized");
  assert.ok(r.summaryCalls > 1, `${r.summaryCalls} calls`);
  assert.equal(r.summaryCalls, requests.length, "summaryCalls is the callback's call count");
  for (const request of requests) assert.ok(request.config.maxOutputTokens <= 16_384, `${request.config.maxOutputTokens}`);
  // Each request after the first carries the summary so far.
  requests.slice(1).forEach((request, i) => assert.match(JSON.stringify(request.contents[0]), new RegExp(`part ${i + 1} of the work`)));
  const prompt = nextPrompt(r);
  assert.ok(prompt < T.auto, `next prompt ${prompt} not below auto ${T.auto}`);
  // replaced is everything before the kept tail; the tail is the host's own objects.
  assert.ok(r.keptFrom > 0 && r.keptFrom < history.length);
  assert.equal(r.replaced.length, r.keptFrom);
  r.replaced.forEach((m, i) => assert.equal(m, history[i]));
  const tail = history.slice(r.keptFrom);
  tail.forEach((m, i) => assert.equal(r.history[r.history.length - tail.length + i], m));
  assert.equal(chat.lastPromptTokenCount, r.newTokenCount);
});

test("an abort at the second call leaves the history byte-identical and is not counted", async () => {
  // A hard run on the resumed 1M session, and an auto run whose chat has a failure already.
  const runs = [
    { history: agentSession(1_000_000), options: {}, usage: null, trigger: "hard" },
    { history: agentSession(600_000), options: { consecutiveFailures: 1 }, usage: 100_000, trigger: "auto" },
  ];
  for (const { history, options, usage, trigger } of runs) {
    const chat = new ChatCompactor({ window: WINDOW, maxOutputTokens: 16_384, ...options });
    if (usage !== null) chat.reportUsage({ totalTokenCount: usage });
    const failuresBefore = chat.consecutiveFailures;
    const snapshot = JSON.stringify(history);
    const controller = new AbortController();
    let calls = 0;
    let secondSignal;
    const r = await chat.beforeSend(history, next, (request, { signal }) => {
      calls += 1;
      if (calls === 1) return summaryOf(request, calls);
      secondSignal = signal;
      controller.abort();
      return new Promise(() => {});
    }, { signal: controller.signal });
    assert.equal(r.trigger, trigger);
    assert.equal(r.status, S.ABORTED, r.statusName);
    assert.equal(calls, 2);
    assert.equal(r.summaryCalls, 2);
    assert.equal(r.history, history, "the very array passed");
    assert.equal(JSON.stringify(r.history), snapshot, "byte for byte");
    assert.deepEqual(r.replaced, []);
    assert.equal(r.consecutiveFailures, failuresBefore);
    assert.equal(chat.consecutiveFailures, failuresBefore);
    assert.equal(secondSignal.aborted, true);
    assert.equal(chat.busy, false);
  }
});

test("a failure at the second call of an auto run counts once and changes nothing", async () => {
  for (const [name, second, status] of [
    ["throws", () => { throw new Error("503 from the provider"); }, S.SUMMARIZER_FAILED],
    ["rejects", async () => { throw new TypeError("network down"); }, S.SUMMARIZER_FAILED],
    ["is truncated", () => ({ text: "half", finishReason: "MAX_TOKENS" }), S.OUTPUT_TRUNCATED],
    ["is empty", () => "  ", S.EMPTY_SUMMARY],
  ]) {
    const history = agentSession(600_000);
    const snapshot = JSON.stringify(history);
    const chat = new ChatCompactor({ window: WINDOW, maxOutputTokens: 16_384 });
    chat.reportUsage({ totalTokenCount: 100_000 });
    let calls = 0;
    const r = await chat.beforeSend(history, next, (request) => (++calls === 1 ? summaryOf(request, calls) : second()));
    assert.equal(r.trigger, "auto", name);
    assert.equal(r.status, status, `${name}: ${r.statusName}`);
    assert.equal(calls, 2, name);
    assert.equal(r.summaryCalls, 2, name);
    assert.equal(r.consecutiveFailures, 1, `${name}: counted once`);
    assert.equal(chat.consecutiveFailures, 1, name);
    assert.equal(r.history, history, name);
    assert.equal(JSON.stringify(history), snapshot, name);
    assert.equal(chat.lastPromptTokenCount, 100_000, `${name}: usage untouched`);
  }
});

test("a 500,000-character message on 128,000 is NOOP messageTooLarge, with overBy and no call", async () => {
  const history = [user("hello"), model("hi")];
  const message = user(prose(500_000));
  const chat = new ChatCompactor({ window: WINDOW });
  let calls = 0;
  const r = await chat.beforeSend(history, message, () => { calls += 1; return "x"; });
  assert.equal(r.status, S.NOOP);
  assert.equal(r.noopReason, "messageTooLarge");
  assert.equal(calls, 0);
  assert.equal(r.summaryCalls, 0);
  assert.equal(r.method, null);
  assert.equal(r.summaryCheck, null);
  assert.equal(r.history, history);
  const tokens = estimateContentTokens([message], CHAT_ESTIMATE);
  assert.ok(r.overBy > 0 && r.overBy >= tokens - T.hard, `overBy ${r.overBy}, message ${tokens}`);
  assert.equal(chat.consecutiveFailures, 0);
  // Other NOOPs carry no overBy.
  const small = await chat.beforeSend(history, next, () => "x");
  assert.equal(small.noopReason, "belowAuto");
  assert.equal("overBy" in small, false);
});

for (const usage of USAGE) test(`slimMessage brings a message under a budget with the marker, and the slimmed message is sent${withOrWithout(usage)}`, async () => {
  const message = user(prose(500_000));
  const slim = slimMessage(message, 30_000, CHAT_ESTIMATE);
  assert.ok(estimateContentTokens([slim], CHAT_ESTIMATE) <= 30_000);
  const text = slim.parts[0].text;
  assert.match(text, /\[… [\d,]+ characters removed by compaction …\]/);
  assert.ok(text.startsWith("line 0 of the pasted log"), "the head is kept");
  assert.ok(text.endsWith(prose(500_000).slice(-40)), "the end is kept");
  assert.equal(message.parts[0].text.length, 500_000, "the host's message is not touched");
  // The README's flow: after messageTooLarge, slim to half the room below auto and send again.
  const history = agentSession(80_000);
  const chat = new ChatCompactor({ window: WINDOW });
  const { summarize } = recorder(chat, (r, n) => summaryOf(r, n, 2_000), { usage });
  const first = await chat.beforeSend(history, message, summarize);
  assert.equal(first.noopReason, "messageTooLarge");
  const smaller = slimMessage(message, chat.thresholds.auto / 2, CHAT_ESTIMATE);
  const r = await chat.beforeSend(history, smaller, summarize);
  assert.ok(r.status === S.COMPRESSED || r.noopReason === "belowAuto", `${r.statusName} ${r.noopReason}`);
  assert.ok(nextPrompt(r, smaller) < T.auto);
  // Bad arguments are typed errors.
  const codeOf = (fn) => { try { fn(); return "no error"; } catch (e) { return e.code; } };
  assert.equal(codeOf(() => slimMessage(message, "30000")), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => slimMessage(message, NaN)), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => slimMessage(message, -1)), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => slimMessage(message, 10, { estimator: "exact" })), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => slimMessage({ parts: [] }, 10)), "INVALID_CONTENT");
  assert.equal(codeOf(() => slimMessage(undefined, 10)), "INVALID_CONTENT");
});

for (const usage of USAGE) test(`clearToolOutputs on an agent session: COMPRESSED by clearing, without a call${withOrWithout(usage)}`, async () => {
  const history = agentSession(100_000);
  const snapshot = JSON.stringify(history);
  const chat = new ChatCompactor({ window: WINDOW, clearToolOutputs: true });
  let calls = 0;
  const r = await chat.beforeSend(history, next, () => { calls += 1; return "x"; });
  assert.equal(r.statusName, "COMPRESSED", `${r.statusName} ${r.noopReason}`);
  assert.equal(r.method, "cleared");
  assert.equal(calls, 0);
  assert.equal(r.summaryCalls, 0);
  assert.equal(r.summary, null);
  assert.equal(r.summaryCheck, null, "no summary to check");
  assert.equal(JSON.stringify(history), snapshot, "the host's messages are not modified: the head holds copies");
  assert.match(JSON.stringify(r.history.slice(0, r.keptFrom)), /cleared by compaction/);
  assert.ok(nextPrompt(r) < T.warn, `${nextPrompt(r)} below warn`);
  assert.equal(r.replaced.length, r.keptFrom);
  // Every call in the new history still has its response.
  const count = (needle) => JSON.stringify(r.history).split(needle).length - 1;
  assert.equal(count('"functionCall"'), count('"functionResponse"'));
  // Off by default: the same history is summarized.
  const plain = new ChatCompactor({ window: WINDOW });
  const { requests, summarize } = recorder(plain, (q, n) => summaryOf(q, n, 2_000), { usage });
  const s = await plain.beforeSend(history, next, summarize);
  assert.equal(s.method, "summarized");
  assert.ok(requests.length >= 1);
});

for (const usage of USAGE) test(`compact() drops a trailing unanswered function call from the new history${withOrWithout(usage)}`, async () => {
  const history = [];
  for (let i = 0; i < 10; i++) history.push(user(`question ${i}: ${prose(2_000)}`), model(`answer ${i}: ${prose(2_000)}`));
  const question = user("read the file");
  const call = { role: "model", parts: [{ functionCall: { id: "call-trailing", name: "read_file", args: { path: "src/lib.rs" } } }] };
  history.push(question, call);
  const chat = new ChatCompactor({ window: WINDOW });
  const { requests, summarize } = recorder(chat, (r, n) => summaryOf(r, n, 500), { usage });
  const r = await chat.compact(history, summarize);
  assert.equal(r.statusName, "COMPRESSED");
  assert.equal(r.trigger, "manual");
  assert.ok(!requests.some((q) => JSON.stringify(q).includes("call-trailing")), "not summarized either");
  assert.ok(!r.history.includes(call), "the call is not in the new history");
  assert.ok(!JSON.stringify(r.history).includes("call-trailing"));
  // The messages kept before the dropped call come as copies in the head
  // (the new history is head + history[keptFrom..], and the call is last):
  // keptFrom is the whole history, which is all in `replaced`.
  assert.deepEqual(r.history.at(-1), question, "the new history ends with the message before the call");
  assert.equal(r.keptFrom, history.length);
  assert.equal(r.replaced.at(-1), call, "the dropped call is in replaced");
  // beforeSend keeps it: the pending message carries its response.
  const long = [];
  for (let i = 0; i < 60; i++) long.push(user(`question ${i}: ${prose(8_000)}`), model(`answer ${i}: ${prose(8_000)}`));
  long.push(call);
  const response = { role: "user", parts: [{ functionResponse: { id: "call-trailing", name: "read_file", response: { output: "fn main() {}" } } }] };
  const other = new ChatCompactor({ window: WINDOW });
  const kept = await other.beforeSend(long, response, recorder(other, (q, n) => summaryOf(q, n, 500), { usage }).summarize);
  assert.equal(kept.statusName, "COMPRESSED");
  assert.equal(kept.history.at(-1), call);
});

for (const usage of USAGE) test(`setWindow(window, limit): every request of the next run asks for at most the limit; null clears it${withOrWithout(usage)}`, async () => {
  const chat = new ChatCompactor({ window: 200_000 });
  chat.setWindow(WINDOW, 8_192);
  assert.equal(chat.window, WINDOW);
  assert.equal(chat.save().options.maxOutputTokens, 8_192);
  // Bad arguments change nothing.
  const codeOf = (fn) => { try { fn(); return "no error"; } catch (e) { return e.code; } };
  assert.equal(codeOf(() => chat.setWindow(WINDOW, "16k")), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => chat.setWindow(WINDOW, NaN)), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => chat.setWindow(WINDOW, 0)), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => chat.setWindow(WINDOW, 1.5)), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => chat.setWindow(WINDOW, {})), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => chat.setWindow(64_000, true)), "INVALID_ARGUMENT");
  assert.equal(codeOf(() => chat.setWindow(Infinity, 4_096)), "INVALID_WINDOW");
  assert.equal(codeOf(() => chat.setWindow("big", 4_096)), "INVALID_ARGUMENT");
  assert.equal(chat.window, WINDOW);
  // Without the second argument the limit stays.
  chat.setWindow(WINDOW);
  assert.equal(chat.save().options.maxOutputTokens, 8_192);
  const history = agentSession(400_000);
  const { requests, summarize } = recorder(chat, undefined, { usage });
  const r = await chat.beforeSend(history, next, summarize);
  assert.equal(r.statusName, "COMPRESSED", `${r.statusName} ${r.noopReason}`);
  assert.ok(requests.length > 1, `${requests.length} calls`);
  for (const request of requests) assert.ok(request.config.maxOutputTokens <= 8_192, `${request.config.maxOutputTokens}`);
  // null clears the limit: the cap is the library's 20 000 again.
  chat.setWindow(WINDOW, null);
  assert.equal("maxOutputTokens" in chat.save().options, false);
  const again = recorder(chat, undefined, { usage });
  const r2 = await chat.compact(history.slice(0, 40), again.summarize);
  assert.equal(r2.statusName, "COMPRESSED");
  assert.equal(again.requests[0].config.maxOutputTokens, 20_000);
});

test("the ledger: summaryCheck on COMPRESSED, null when off; a careless summary still names every file written", async () => {
  const constraint = "All changes must be backward compatible: the old function names keep working.";
  const paths = Array.from({ length: 12 }, (_, i) => `src/parser/part_${i}.rs`);
  const history = [user(`Refactor the parser into modules. ${constraint}`), model("I will split it file by file.")];
  paths.forEach((path, i) => {
    history.push(user(`Next, ${path}.`));
    history.push({ role: "model", parts: [{ functionCall: { id: `w${i}`, name: "write_file", args: { file_path: path, content: prose(3_000) } } }] });
    history.push({ role: "user", parts: [{ functionResponse: { id: `w${i}`, name: "write_file", response: { output: `wrote ${path}` } } }] });
    history.push(model(`Done with ${path}. ${prose(1_000)}`));
  });
  // Then enough talk that the kept tail (2 % of the window, at least 2 exchanges) holds no write.
  for (let i = 0; i < 4; i++) history.push(user(`question ${i}: ${prose(4_000)}`), model(`answer ${i}: ${prose(4_000)}`));
  const careless = () => ({ text: "Worked on the code.", finishReason: "STOP" });

  const on = await new ChatCompactor({ window: WINDOW }).compact(history, careless);
  assert.equal(on.statusName, "COMPRESSED");
  assert.ok(on.keptFrom > 4 * paths.length, "every write is in the replaced part");
  assert.ok(on.summaryCheck !== null && typeof on.summaryCheck === "object");
  assert.equal(typeof on.summaryCheck.sections, "object");
  assert.ok(Object.keys(on.summaryCheck.sections).length > 0);
  assert.ok(Object.values(on.summaryCheck.sections).every((has) => has === false), "a one-line summary has none of the sections");
  assert.deepEqual([...on.summaryCheck.missingFiles].sort(), [...paths].sort(), "the check names what the summary left out");
  const kept = JSON.stringify(on.history.slice(0, on.history.length - (history.length - on.keptFrom)));
  for (const path of paths) assert.ok(kept.includes(path), `${path} survives in the summary message`);
  assert.ok(on.summary.includes(constraint), "the user's constraint, in the user's own words");

  const off = await new ChatCompactor({ window: WINDOW, ledger: { enabled: false } }).compact(history, careless);
  assert.equal(off.statusName, "COMPRESSED");
  assert.equal(off.summaryCheck, null);
  assert.equal(off.summary, "Worked on the code.");
  const summaryMessages = JSON.stringify(off.history.slice(0, off.history.length - (history.length - off.keptFrom)));
  assert.ok(!paths.some((path) => summaryMessages.includes(path)), "without the ledger the files are gone: it is the ledger that keeps them");
  assert.deepEqual(new ChatCompactor({ window: WINDOW, ledger: { enabled: false } }).save().options.ledger, { enabled: false });
});

test("a message between auto and hard does not start an auto run: NOOP wouldNotFit, nothing counted", async () => {
  // The spec's estimator (4 characters a token): about 97 000 tokens alone, at auto, below hard.
  const chat = new ChatCompactor({ window: WINDOW, estimator: "reference" });
  const history = [user("hello"), model("hi"), user("and?"), model("ok")];
  const message = user("word ".repeat(77_600));
  const tokens = estimateContentTokens([message], { estimator: "reference" });
  assert.ok(tokens >= T.auto && tokens < T.hard, `${tokens}`);
  let calls = 0;
  const r = await chat.beforeSend(history, message, () => { calls += 1; return "x"; });
  assert.equal(r.status, S.NOOP);
  assert.equal(r.noopReason, "wouldNotFit");
  assert.equal("overBy" in r, false);
  assert.equal(calls, 0);
  assert.equal(r.summaryCalls, 0);
  assert.equal(r.history, history);
  assert.equal(chat.consecutiveFailures, 0);
});

test("the new options are checked, saved only when set, and restored", () => {
  const codeOf = (fn) => { try { fn(); return "no error"; } catch (e) { return `${e.code}: ${e.message}`; } };
  for (const [options, needle] of [
    [{ maxOutputTokens: 0 }, "maxOutputTokens"],
    [{ maxOutputTokens: 1.5 }, "maxOutputTokens"],
    [{ maxOutputTokens: NaN }, "maxOutputTokens must be a whole number of tokens >= 1, got NaN"],
    [{ maxOutputTokens: "16k" }, "maxOutputTokens"],
    [{ clearToolOutputs: "yes" }, "clearToolOutputs"],
    [{ ledger: { edited: "patch_source" } }, "ledger.edited must be an array of strings"],
    [{ ledger: { enabled: 1 } }, "ledger.enabled"],
    [{ ledger: { userWordsBudget: -1 } }, "ledger.userWordsBudget"],
    [{ ledger: { files: [] } }, "files"],
  ]) {
    const error = codeOf(() => new ChatCompactor({ window: WINDOW, ...options }));
    assert.ok(error.startsWith("INVALID_ARGUMENT: ") && error.includes(needle), `${JSON.stringify(options)}: ${error}`);
  }
  const options = { window: WINDOW, maxOutputTokens: 16_384, clearToolOutputs: true,
    ledger: { written: ["save_document"], pathArguments: ["doc"], userWordsBudget: 300 } };
  const chat = new ChatCompactor(options);
  const saved = JSON.parse(JSON.stringify(chat.save()));
  assert.equal(saved.options.maxOutputTokens, 16_384);
  assert.equal(saved.options.clearToolOutputs, true);
  assert.deepEqual(saved.options.ledger, { enabled: true, ...options.ledger });
  assert.deepEqual(ChatCompactor.restore(saved).save(), saved);
  // At their defaults they are not written: older saved states stay alike.
  const plain = new ChatCompactor({ window: WINDOW }).save();
  assert.equal("maxOutputTokens" in plain.options, false);
  assert.equal("clearToolOutputs" in plain.options, false);
  assert.deepEqual(plain.options.ledger, { enabled: true });
});

test("the ledger recognises the host's own tool names through the option", async () => {
  const paths = ["docs/a.md", "docs/b.md", "docs/c.md"];
  const history = [user("Rewrite the docs. Keep every heading.")];
  paths.forEach((doc, i) => {
    history.push({ role: "model", parts: [{ functionCall: { id: `s${i}`, name: "save_document", args: { doc, body: prose(2_000) } } }] });
    history.push({ role: "user", parts: [{ functionResponse: { id: `s${i}`, name: "save_document", response: { ok: true } } }] });
  });
  history.push(model("Saved all three."));
  for (let i = 0; i < 4; i++) history.push(user(`question ${i}: ${prose(4_000)}`), model(`answer ${i}: ${prose(4_000)}`));
  const careless = () => "Worked on the docs.";
  const own = await new ChatCompactor({ window: WINDOW, ledger: { written: ["save_document"], pathArguments: ["doc"] } })
    .compact(history, careless);
  assert.equal(own.statusName, "COMPRESSED");
  assert.ok(own.keptFrom > 2 * paths.length);
  for (const path of paths) assert.ok(own.summary.includes(`${path} (written)`), `${path} in ${own.summary}`);
  assert.deepEqual(own.summaryCheck.missingFiles, paths);
  // Without the option the library does not know the tool.
  const plain = await new ChatCompactor({ window: WINDOW }).compact(history, careless);
  assert.ok(!paths.some((path) => plain.summary.includes(path)));
  assert.deepEqual(plain.summaryCheck.missingFiles, []);
});

// Issue 19, defect 8: the summary request as the provider sees it. The
// ready summarizers render tool calls and results as their JSON text
// (escaped newlines and quotes), which costs more than the library's count
// of the same parts; a 32,000-token OpenAI loop got a request of 19,065
// prompt tokens with a 13,179 cap. The cap is sized from the rendered
// request: its text, counted by the chat's estimator, and the cap fit the
// window with the provider's margin.
test("the summary request as rendered for the provider fits the window with its cap (tool results as escaped JSON)", async () => {
  const { renderTurns } = await import("../../pkg/summarizers/index.js");
  const code = (i) => Array.from({ length: 60 }, (_, j) => `    let value_${j} = "item \\"${i}.${j}\\"";\n\tprintln!("{}", value_${j});`).join("\n");
  for (const window of [32_000, 48_000]) {
    const history = [];
    for (let i = 0; i < 40; i++) {
      history.push(user(`Read src/file_${i}.rs and fix the quoting.`));
      history.push({ role: "model", parts: [{ functionCall: { id: `r${i}`, name: "read_file", args: { path: `src/file_${i}.rs` } } }] });
      history.push({ role: "user", parts: [{ functionResponse: { id: `r${i}`, name: "read_file", response: { output: code(i) } } }] });
      history.push(model(`Fixed src/file_${i}.rs.`));
    }
    const chat = new ChatCompactor({ window });
    const seen = [];
    const r = await chat.beforeSend(history, next, (request) => {
      const turns = renderTurns(request.contents);
      const input = estimateContentTokens([user(request.systemInstruction), ...turns.map((t) => (t.role === "user" ? user(t.text) : model(t.text)))], CHAT_ESTIMATE);
      seen.push({ input, cap: request.config.maxOutputTokens });
      return summaryOf(request, seen.length, 1_000);
    });
    assert.equal(r.statusName, "COMPRESSED", `${window}: ${r.statusName}`);
    for (const { input, cap } of seen) {
      assert.ok(input + cap + REQUEST_OVERHEAD_TOKENS <= window,
        `window ${window}: rendered input ${input} + cap ${cap} + margin ${REQUEST_OVERHEAD_TOKENS} = ${input + cap + REQUEST_OVERHEAD_TOKENS}`);
    }
  }
});

test("the repeated line of code in the LangChain guide's tool output: the calibrated estimate is under o200k by no more than the summary request's margin covers (tests/fit.rs assumes 13.2%)", async () => {
  const { countTokens } = await import("gpt-tokenizer/encoding/o200k_base");
  const code = `// src/a.rs\n${"fn helper() { let x = parse(input)?; }\n".repeat(150)}`;
  const real = countTokens(code);
  const estimated = cc.estimateTextTokens(code, { estimator: "calibrated", tokenizer: "o200k" });
  const under = 1 - estimated / real;
  // REQUEST_SIZE_MARGIN (src/summary_request.rs) is 1.2: a request up to 1 - 1/1.2 (16.7%) under still fits.
  assert.ok(under <= 0.132 + 0.0005, `the estimate is ${(under * 100).toFixed(1)}% under o200k's ${real} (estimated ${estimated})`);
  assert.ok(estimated < real, `the estimate (${estimated}) still under-counts o200k's ${real}: the case the margin is for`);
});
