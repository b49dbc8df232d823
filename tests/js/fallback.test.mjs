// Issue 19: a chat that keeps working when the summarizer is down
// (`fallback: "ledger"`), and small windows with a dead summarizer
// (defect 7). A 32,000-token chat whose summarizer always throws grows by
// about 2,000 tokens a turn for 30 turns, with usage reported after every
// response. With the fallback no prompt ever sent exceeds the window and
// `method: "ledger"` results appear; without it the specification's
// behaviour is unchanged (every turn past `hard` is a forced run that fails,
// is not counted, and the prompt grows past the window).
import { test } from "node:test";
import assert from "node:assert/strict";
import { cc } from "./helpers.mjs";

const { ChatCompactor, CompressionStatus: S, estimateContentTokens } = cc;

const WINDOW = 32_000; // auto = hard = 22 400: every run is forced
const ESTIMATE = { estimator: "conservative" };
const user = (text) => ({ role: "user", parts: [{ text }] });
const model = (text) => ({ role: "model", parts: [{ text }] });

/** Varied prose of about `chars` characters. */
function prose(chars, seed) {
  let text = "";
  for (let i = 0; text.length < chars; i++) text += `step ${seed}.${i}: the parser reads token ${(i * 7919 + seed) % 10007} and moves on. `;
  return text.slice(0, chars);
}

/** One turn of about 2,000 tokens: the user's words, a file written by a tool, and the model's reply. */
function turn(i) {
  const path = `src/module_${i}.rs`;
  return {
    message: user(`Turn ${i}: now write ${path}. Keep the public names stable. ${prose(1_200, i)}`),
    reply: [
      { role: "model", parts: [{ functionCall: { id: `w${i}`, name: "write_file", args: { file_path: path, content: prose(2_400, i + 100) } } }] },
      { role: "user", parts: [{ functionResponse: { id: `w${i}`, name: "write_file", response: { output: `wrote ${path}` } } }] },
      model(`Wrote ${path}. ${prose(2_400, i + 200)}`),
    ],
    path,
  };
}

/** The summarizer that is down: every call throws, as a client does on a 503. */
const down = () => { throw new Error("503 Service Unavailable"); };

/**
 * Runs the 30 turns. Returns every result, the size of every prompt sent
 * (the history and the message, as the provider would count them with the
 * chat's estimator) and the final history.
 */
async function chatFor30Turns(options) {
  const chat = new ChatCompactor({ window: WINDOW, ...options });
  let history = [];
  const results = [];
  const sent = [];
  for (let i = 0; i < 30; i++) {
    const { message, reply } = turn(i);
    const r = await chat.beforeSend(history, message, down);
    results.push(r);
    if (r.status === S.COMPRESSED) history = r.history;
    history = [...history, message];
    const prompt = estimateContentTokens(history, ESTIMATE);
    sent.push(prompt);
    history = [...history, ...reply];
    // The provider's usage for the response: the prompt and the reply.
    const output = estimateContentTokens(reply, ESTIMATE);
    chat.reportUsage({ prompt_tokens: prompt, completion_tokens: output, total_tokens: prompt + output });
  }
  chat.free();
  return { results, sent, history };
}

test("fallback \"ledger\": a 32K chat whose summarizer always throws keeps every prompt within the window", async () => {
  const { results, sent, history } = await chatFor30Turns({ fallback: "ledger" });
  const ledger = results.filter((r) => r.method === "ledger");
  assert.ok(ledger.length >= 2, `ledger results: ${ledger.length}`);
  for (const [i, prompt] of sent.entries()) assert.ok(prompt <= WINDOW, `turn ${i}: prompt ${prompt} above the window ${WINDOW}`);
  for (const r of ledger) {
    assert.equal(r.status, S.COMPRESSED);
    assert.equal(r.statusName, "COMPRESSED");
    assert.equal(r.trigger, "hard");
    assert.ok(r.cause instanceof Error, "the summarizer's own error is the cause");
    assert.equal(r.cause.message, "503 Service Unavailable");
    assert.equal(r.consecutiveFailures, 0);
    assert.equal(r.summaryCheck, null, "no model summary to check");
    assert.ok(r.summaryCalls >= 1, "the summarizer was tried first");
    assert.ok(r.newTokenCount < r.originalTokenCount, `${r.newTokenCount} < ${r.originalTokenCount}`);
    assert.ok(r.replaced.length > 0);
    // The record: the line saying the model was unavailable, and the ledger.
    assert.match(r.summary, /^The summary model was unavailable/);
    assert.match(r.summary, /compaction-ledger/);
  }
  // Nothing is invented: every file the record names was written by a tool
  // call of the history, and every quoted line is the user's own words.
  const written = new Set(Array.from({ length: 30 }, (_, i) => turn(i).path));
  const last = ledger.at(-1);
  const named = [...last.summary.matchAll(/^- (src\/\S+) \(/gm)].map((m) => m[1]);
  assert.ok(named.length > 0, "the record names the files written");
  for (const path of named) assert.ok(written.has(path), `${path} was written`);
  const userTexts = Array.from({ length: 30 }, (_, i) => turn(i).message.parts[0].text);
  for (const [, quoted] of last.summary.matchAll(/^- (".*")$/gm)) {
    const words = JSON.parse(quoted);
    assert.ok(userTexts.some((t) => t.includes(words.replace(/…$/, "").trim().slice(0, 40))), `the user's words: ${words.slice(0, 60)}`);
  }
  // The second record carries the first one's files: the oldest file
  // written survives every fallback.
  assert.match(last.summary, /src\/module_0\.rs/);
  // Tool calls and results stay paired in the final history.
  const text = JSON.stringify(history);
  assert.equal(text.split('"functionCall"').length, text.split('"functionResponse"').length);
});

test("without the fallback the specification's behaviour is unchanged: forced runs fail, uncounted, and the prompt outgrows the window", async () => {
  const { results, sent } = await chatFor30Turns({});
  assert.ok(results.every((r) => r.method !== "ledger"));
  const failed = results.filter((r) => r.status === S.SUMMARIZER_FAILED);
  assert.ok(failed.length > 10, `${failed.length} failed runs`);
  for (const r of failed) {
    assert.equal(r.trigger, "hard", "every run on this window is forced");
    assert.equal(r.consecutiveFailures, 0, "forced runs are not counted");
    assert.equal(r.cause.message, "503 Service Unavailable");
  }
  assert.ok(sent.at(-1) > WINDOW, `the last prompt ${sent.at(-1)} is past the window: the provider would refuse it`);
});

test("the fallback is off by default, is saved when on, and refuses unknown values", () => {
  assert.equal("fallback" in new ChatCompactor({ window: WINDOW }).save().options, false);
  const saved = new ChatCompactor({ window: WINDOW, fallback: "ledger" }).save();
  assert.equal(saved.options.fallback, "ledger");
  assert.equal(ChatCompactor.restore(saved).save().options.fallback, "ledger");
  assert.equal("fallback" in new ChatCompactor({ window: WINDOW, fallback: "none" }).save().options, false);
  assert.throws(() => new ChatCompactor({ window: WINDOW, fallback: "summary" }),
    (e) => e.code === "INVALID_ARGUMENT" && /options\.fallback must be one of none, ledger/.test(e.message));
});

test("the fallback: an empty, truncated or inflating summary on a forced run; never on an auto run; never on an abort", async () => {
  const history = [];
  for (let i = 0; i < 12; i++) {
    const t = turn(i);
    history.push(t.message, ...t.reply);
  }
  const next = user("go on");
  for (const [name, answer] of [
    ["empty", () => ({ text: "  ", finishReason: "STOP" })],
    ["truncated", () => ({ text: "half a sum", finishReason: "length" })],
    ["inflating", () => ({ text: prose(400_000, 7), finishReason: "STOP" })],
    ["a refusal", () => ({ text: "", finishReason: "content_filter" })],
  ]) {
    const chat = new ChatCompactor({ window: WINDOW, fallback: "ledger" });
    const r = await chat.beforeSend(history, next, answer);
    assert.equal(r.method, "ledger", `${name}: ${r.statusName} ${r.method}`);
    assert.equal(r.cause.name, "CompactionError", name);
    assert.equal(r.cause.code, "INVALID_ANSWER", name);
    assert.match(r.summary, /src\/module_0\.rs/, name);
    assert.equal(chat.lastPromptTokenCount, r.newTokenCount);
  }
  // An auto run (a 200K window at auto) that fails stays a failure, counted.
  const auto = new ChatCompactor({ window: 200_000, fallback: "ledger" });
  auto.reportUsage({ totalTokenCount: 168_000 });
  const a = await auto.beforeSend(history, next, down);
  assert.equal(a.trigger, "auto");
  assert.equal(a.status, S.SUMMARIZER_FAILED);
  assert.equal(a.consecutiveFailures, 1);
  assert.equal(a.history, history);
  // An abort is the host's choice: nothing changes.
  const controller = new AbortController();
  const aborted = await new ChatCompactor({ window: WINDOW, fallback: "ledger" })
    .beforeSend(history, next, () => { controller.abort(); return new Promise(() => {}); }, { signal: controller.signal });
  assert.equal(aborted.status, S.ABORTED);
  assert.equal(aborted.history, history);
  // A manual run below hard: the next send fits, so the failure stands.
  const manual = await new ChatCompactor({ window: 200_000, fallback: "ledger" }).compact(history, down);
  assert.equal(manual.status, S.SUMMARIZER_FAILED);
});
