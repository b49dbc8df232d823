// The misbehaving-host matrix: every way a `summarize` callback (and the
// host around it) can go wrong, each in auto, hard and manual mode. After
// each: the result settles; on every status but COMPRESSED the history is the
// host's very array, byte for byte; the failure count is right; the next
// turn works.
import { test } from "node:test";
import assert from "node:assert/strict";

// The package, with every summary request checked against the model's limit.
import { cc } from "./helpers.mjs";
const { ChatCompactor, CompressionStatus: S } = cc;

const WINDOW = 200_000; // auto 167 000, hard 177 000
const userMessage = { role: "user", parts: [{ text: "Next step, please." }] };
const GOOD = { text: "## Task status\n- done: steps 0-11\n## Next steps\n- step 12", finishReason: "STOP" };
const good = async () => GOOD;
const tick = (ms = 0) => new Promise((r) => setTimeout(r, ms));

function makeHistory(turns, chars = 4_000) {
  const h = [];
  for (let i = 0; i < turns; i++) {
    h.push({ role: "user", parts: [{ text: `Step ${i}: continue src/mod${i}.rs. ` + "u".repeat(chars / 4) }] });
    h.push({ role: "model", parts: [{ functionCall: { id: `c${i}`, name: "read_file", args: { path: `src/mod${i}.rs` } } }] });
    h.push({ role: "user", parts: [{ functionResponse: { id: `c${i}`, name: "read_file", response: { output: "fn x() {}\n".repeat(chars / 20) } } }] });
    h.push({ role: "model", parts: [{ text: `Done with step ${i}. ` + "m".repeat(chars / 4) }] });
  }
  return h;
}

/** The three ways a run starts: a chat in each state and the call that runs it. */
const MODES = {
  auto: {
    tokens: 168_000,
    run: (chat, history, summarize, options) => chat.beforeSend(history, userMessage, summarize, options),
    counts: true,
    trigger: "auto",
  },
  hard: {
    tokens: 178_000,
    run: (chat, history, summarize, options) => chat.beforeSend(history, userMessage, summarize, options),
    counts: false,
    trigger: "hard",
  },
  manual: {
    tokens: 20_000,
    run: (chat, history, summarize, options) => chat.compact(history, summarize, options),
    counts: false,
    trigger: "manual",
  },
};

function chatAt(tokens) {
  const chat = new ChatCompactor({ window: WINDOW });
  chat.reportUsage({ totalTokenCount: tokens });
  return chat;
}

/** What a rejection reason says, for an assertion message. */
const thrownText = (reason) => {
  try {
    return String(reason?.message ?? reason);
  } catch {
    return "an unprintable reason";
  }
};

function revoked() {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

function cyclic() {
  const o = { text: "x" };
  o.self = o;
  return o;
}

/**
 * [name, summarize(request, context, env), expected status, counted as a
 * failure in auto mode, extra check(result, env)]. `env` has the run's
 * controller, chat and history.
 */
const FAILURES = [
  ["throws", () => { throw new Error("boom"); }, S.SUMMARIZER_FAILED, true, (r) => assert.equal(r.cause.message, "boom")],
  ["throws a non-Error", () => { throw "a string"; }, S.SUMMARIZER_FAILED, true, (r) => assert.equal(r.cause, "a string")],
  ["throws undefined", () => { throw undefined; }, S.SUMMARIZER_FAILED, true, (r) => assert.equal(r.cause, undefined)],
  ["throws an object whose message getter throws",
    () => { throw Object.defineProperty({}, "message", { get() { throw new Error("nested"); } }); },
    S.SUMMARIZER_FAILED, true, null],
  ["throws a revoked proxy", () => { throw revoked(); }, S.SUMMARIZER_FAILED, true, null],
  ["rejects", async () => { throw new TypeError("network down"); }, S.SUMMARIZER_FAILED, true, (r) => assert.ok(r.cause instanceof TypeError)],
  ["returns a rejected thenable", () => ({ then: (_, reject) => reject(new Error("thenable")) }), S.SUMMARIZER_FAILED, true,
    (r) => assert.equal(r.cause.message, "thenable")],
  ["returns a thenable whose then throws", () => ({ get then() { throw new Error("then getter"); } }), S.SUMMARIZER_FAILED, true,
    (r) => assert.equal(r.cause.message, "then getter")],
  // Its `then` reads the constructor and throws: a rejection, never a synchronous throw.
  ["returns a promise whose constructor getter throws", () => {
    const p = Promise.resolve(GOOD);
    Object.defineProperty(p, "constructor", { get() { throw new Error("ctor"); } });
    return p;
  }, S.SUMMARIZER_FAILED, true, (r) => assert.equal(r.cause.message, "ctor")],
  ["returns the wrong shape", async () => ({ summary: "wrong field" }), S.SUMMARIZER_FAILED, true,
    (r) => { assert.equal(r.cause.name, "CompactionError"); assert.equal(r.cause.code, "INVALID_ANSWER"); }],
  ["returns a number", async () => 42, S.SUMMARIZER_FAILED, true, (r) => assert.equal(r.cause.code, "INVALID_ANSWER")],
  ["returns undefined", async () => undefined, S.SUMMARIZER_FAILED, true, (r) => assert.equal(r.cause.code, "INVALID_ANSWER")],
  ["returns null", async () => null, S.SUMMARIZER_FAILED, true, (r) => assert.equal(r.cause.code, "INVALID_ANSWER")],
  ["returns text of the wrong type", async () => ({ text: 5 }), S.SUMMARIZER_FAILED, true, (r) => assert.equal(r.cause.code, "INVALID_ANSWER")],
  ["returns a function", async () => () => "x", S.SUMMARIZER_FAILED, true, (r) => assert.equal(r.cause.code, "INVALID_ANSWER")],
  ["returns a Symbol", async () => Symbol("s"), S.SUMMARIZER_FAILED, true, (r) => assert.equal(r.cause.code, "INVALID_ANSWER")],
  ["returns a BigInt inside", async () => ({ text: "x", usage: { totalTokenCount: 10n } }), S.SUMMARIZER_FAILED, true,
    (r) => assert.equal(r.cause.code, "INVALID_ANSWER")],
  ["returns a cycle", async () => cyclic(), S.SUMMARIZER_FAILED, true, (r) => assert.equal(r.cause.code, "INVALID_ANSWER")],
  ["returns a throwing toJSON", async () => ({ toJSON() { throw new Error("toJSON"); } }), S.SUMMARIZER_FAILED, true,
    (r) => assert.match(r.cause.message, /toJSON/)],
  ["returns a toJSON giving undefined", async () => ({ toJSON: () => undefined }), S.SUMMARIZER_FAILED, true,
    (r) => assert.equal(r.cause.code, "INVALID_ANSWER")],
  ["returns a throwing text getter", async () => ({ get text() { throw new Error("getter"); } }), S.SUMMARIZER_FAILED, true,
    (r) => assert.equal(r.cause.code, "INVALID_ANSWER")],
  // Resolving a promise with it reads its `then`, which throws: the promise rejects with that TypeError.
  ["returns a revoked proxy", async () => revoked(), S.SUMMARIZER_FAILED, true, (r) => assert.ok(r.cause instanceof TypeError)],
  ["returns a NaN usage", async () => ({ text: GOOD.text, usage: { totalTokenCount: NaN } }), S.COMPRESSED, false, null],
  ["returns a lone surrogate", async () => ({ text: "summary \ud800 with a lone surrogate", finishReason: "STOP" }), S.COMPRESSED, false,
    (r) => assert.match(r.summary, /summary \ufffd with/)],
  ["returns an empty text", async () => ({ text: "   \n" }), S.EMPTY_SUMMARY, true, null],
  ["returns an empty string", async () => "", S.EMPTY_SUMMARY, true, null],
  ...["MAX_TOKENS", "length", "max_tokens", "max_output_tokens"].map((reason) =>
    [`stops with ${reason}`, async () => ({ text: "partial summ", finishReason: reason }), S.OUTPUT_TRUNCATED, true, null]),
  ["uses the whole output budget without a reason", async () => ({ text: "partial", usage: { candidatesTokenCount: 20_000 } }),
    S.OUTPUT_TRUNCATED, true, null],
  ...["SAFETY", "RECITATION", "content_filter", "refusal", "tool_use", "pause_turn"].map((reason) =>
    [`stops with ${reason}`, async () => ({ text: "half a summary", finishReason: reason }), S.SUMMARIZER_FAILED, true,
      (r) => { assert.equal(r.cause.code, "INVALID_ANSWER"); assert.match(r.cause.message, new RegExp(reason)); }]),
  ["returns an inflated summary", async () => "x".repeat(2_000_000), S.INFLATED, true, null],
  ["never resolves and is aborted from outside",
    (_req, _ctx, env) => { setTimeout(() => env.controller.abort(), 5); return new Promise(() => {}); }, S.ABORTED, false, null],
  ["aborts from inside, synchronously, before its promise exists",
    (_req, _ctx, env) => { env.controller.abort(); return new Promise(() => {}); }, S.ABORTED, false, null],
  ["aborts from inside, then throws", (_req, _ctx, env) => { env.controller.abort(); throw new Error("after abort"); }, S.ABORTED, false, null],
  // The shape of `fetch` under an abort: the callback aborts, then hands back
  // a promise that rejects (at once, later, or never settles). The run is
  // ABORTED, and the rejection is observed: no unhandled rejection (issue 19).
  ["aborts from inside, then returns a rejected promise",
    (_req, _ctx, env) => { env.controller.abort(); return Promise.reject(new Error("AbortError: the operation was aborted")); },
    S.ABORTED, false, null],
  ["aborts from inside, then rejects later",
    (_req, _ctx, env) => { env.controller.abort(); return new Promise((_, reject) => setTimeout(() => reject(new Error("late abort")), 2)); },
    S.ABORTED, false, null],
  ["aborts from inside, then returns a thenable that rejects",
    (_req, _ctx, env) => { env.controller.abort(); return { then: (_, reject) => reject(new Error("thenable after abort")) }; },
    S.ABORTED, false, null],
  ["is aborted from outside, then rejects",
    (_req, _ctx, env) => new Promise((_, reject) => setTimeout(() => { env.controller.abort(); reject(new Error("after outer abort")); }, 2)),
    S.ABORTED, false, null],
  ["aborts from inside, later", async (_req, _ctx, env) => { await tick(2); env.controller.abort(); await new Promise(() => {}); },
    S.ABORTED, false, null],
  ["gets a signal that aborts with the run", (_req, ctx, env) => new Promise((_, reject) => {
    assert.ok(ctx.signal instanceof AbortSignal);
    ctx.signal.addEventListener("abort", () => reject(new Error("cancelled HTTP call")));
    setTimeout(() => env.controller.abort(), 2);
  }), S.ABORTED, false, null],
  ["calls back in (BUSY), then answers", async (_req, _ctx, env) => {
    const inner = await env.again().then(() => "resolved", (e) => e);
    assert.equal(inner.code, "BUSY");
    assert.equal(env.chat.busy, true);
    return GOOD;
  }, S.COMPRESSED, false, null],
  ["calls back in (BUSY), then throws", async (_req, _ctx, env) => {
    const inner = await env.again().then(() => "resolved", (e) => e);
    assert.equal(inner.code, "BUSY");
    throw new Error("after re-entry");
  }, S.SUMMARIZER_FAILED, true, null],
  ["mutates the request", async (request) => {
    request.contents.length = 0;
    request.config.maxOutputTokens = -1;
    request.systemInstruction = null;
    return GOOD;
  }, S.COMPRESSED, false, null],
  ["resolves twice", () => ({ then(resolve) { resolve(GOOD); resolve({ text: "" }); } }), S.COMPRESSED, false,
    (r) => assert.ok(r.summary.startsWith(GOOD.text.trim()), r.summary)],
  ["resolves, then rejects", () => ({ then(resolve, reject) { resolve(GOOD); reject(new Error("late")); } }), S.COMPRESSED, false, null],
  ["rejects, then resolves", () => ({ then(resolve, reject) { reject(new Error("first")); resolve(GOOD); } }), S.SUMMARIZER_FAILED, true,
    (r) => assert.equal(r.cause.message, "first")],
  ["calls save, usage and reportUsage meanwhile", async (_req, _ctx, env) => {
    assert.equal(env.chat.save().version, 1);
    assert.equal(typeof env.chat.usage().tier, "string");
    env.chat.reportUsage({ totalTokenCount: env.tokens });
    return { text: "" };
  }, S.EMPTY_SUMMARY, true, null],
];

// Every promise a host hands the library is observed, whatever state the run
// is in: an unhandled rejection would end a Node process (issue 19, defect 1).
const unhandled = [];
process.on("unhandledRejection", (reason) => unhandled.push(reason));

for (const [modeName, mode] of Object.entries(MODES)) {
  for (const [name, summarize, status, counted, check] of FAILURES) {
    test(`${modeName}: the callback ${name}`, async () => {
      const before = unhandled.length;
      const chat = chatAt(mode.tokens);
      const history = makeHistory(12);
      const snapshot = JSON.stringify(history);
      const controller = new AbortController();
      const env = { controller, chat, history, tokens: mode.tokens, again: () => mode.run(chat, history, good) };
      const r = await mode.run(chat, history, (req, ctx) => summarize(req, ctx, env), { signal: controller.signal });
      assert.equal(r.status, status, r.statusName);
      assert.equal(r.statusName, S[status]);
      assert.equal(r.trigger, mode.trigger);
      assert.equal(chat.busy, false);
      if (status === S.COMPRESSED) {
        assert.deepEqual(r.replaced, history.slice(0, r.keptFrom));
        const tail = history.slice(r.keptFrom);
        tail.forEach((m, i) => assert.equal(r.history[r.history.length - tail.length + i], m, "the host's own objects"));
        assert.equal(r.consecutiveFailures, 0);
      } else {
        assert.equal(r.history, history, "the very array the host passed");
        assert.equal(JSON.stringify(r.history), snapshot, "byte for byte");
        assert.deepEqual(r.replaced, []);
        assert.equal(r.consecutiveFailures, mode.counts && counted ? 1 : 0, "failure count");
      }
      assert.equal(JSON.stringify(history), snapshot, "the host's history untouched");
      check?.(r, env);
      // The next turn works.
      chat.reportUsage({ totalTokenCount: mode.tokens });
      const next = await mode.run(chat, history, good);
      assert.equal(next.status, S.COMPRESSED, `next turn: ${next.statusName}`);
      // Late rejections (2 ms) have come by now; any unobserved one is reported.
      await tick(10);
      assert.deepEqual(unhandled.slice(before).map(thrownText), [], "no unhandled rejection");
    });
  }

  test(`${modeName}: messages appended while summarize runs are kept, in order`, async () => {
    for (const pushes of [1, 2, 4, 9]) {
      const chat = chatAt(mode.tokens);
      const history = makeHistory(12);
      const started = history.slice();
      const added = [];
      const r = await mode.run(chat, history, async () => {
        for (let i = 0; i < pushes; i++) {
          const m = { role: i % 2 ? "model" : "user", parts: [{ text: `typed meanwhile ${i}` }] };
          added.push(m);
          history.push(m);
          await tick();
        }
        return GOOD;
      });
      assert.equal(r.status, S.COMPRESSED);
      assert.deepEqual(r.replaced, started.slice(0, r.keptFrom));
      r.replaced.forEach((m, i) => assert.equal(m, started[i]));
      const headLength = r.history.length - (started.length - r.keptFrom) - pushes;
      assert.ok(headLength >= 2, "summary and acknowledgement kept");
      assert.match(JSON.stringify(r.history[0]), /steps 0-11/);
      const rest = r.history.slice(headLength);
      assert.deepEqual(rest, [...started.slice(r.keptFrom), ...added]);
      rest.forEach((m, i) => assert.equal(m, [...started.slice(r.keptFrom), ...added][i], "same objects"));
    }
  });

  test(`${modeName}: the history mutated during the run: the result comes from the history as it started`, async () => {
    const chat = chatAt(mode.tokens);
    const history = makeHistory(12);
    const started = history.slice();
    const r = await mode.run(chat, history, async () => {
      history.reverse();
      history[0] = { role: "user", parts: [{ text: "replaced meanwhile" }] };
      return GOOD;
    });
    assert.equal(r.status, S.COMPRESSED);
    assert.deepEqual(r.replaced, started.slice(0, r.keptFrom));
    const tail = started.slice(r.keptFrom);
    // (slice(-0) would be the whole array: the tail may be empty.)
    assert.deepEqual(r.history.slice(r.history.length - tail.length), tail);

    const chat2 = chatAt(mode.tokens);
    const h2 = makeHistory(12);
    const r2 = await mode.run(chat2, h2, async () => { h2.length = 0; return GOOD; });
    assert.equal(r2.status, S.COMPRESSED);
    assert.ok(r2.history.length > 2);
  });
}

test("an abort listener is removed when each run ends: no MaxListenersExceededWarning", async () => {
  const warnings = [];
  const onWarning = (w) => warnings.push(w.name);
  process.on("warning", onWarning);
  try {
    const controller = new AbortController();
    for (let i = 0; i < 30; i++) {
      const chat = chatAt(168_000);
      const r = await chat.beforeSend(makeHistory(12), userMessage, i % 2 ? good : async () => { throw new Error("x"); },
        { signal: controller.signal });
      assert.ok([S.COMPRESSED, S.SUMMARIZER_FAILED].includes(r.status));
      chat.free();
    }
    await tick(10);
  } finally {
    process.off("warning", onWarning);
  }
  assert.deepEqual(warnings.filter((n) => n === "MaxListenersExceededWarning"), []);
});

test("an already-aborted signal gives ABORTED at once, without calling the callback", async () => {
  for (const mode of Object.values(MODES)) {
    const chat = chatAt(mode.tokens);
    const history = makeHistory(12);
    let calls = 0;
    const r = await mode.run(chat, history, () => { calls++; return GOOD; }, { signal: AbortSignal.abort() });
    assert.equal(r.status, S.ABORTED);
    assert.equal(calls, 0);
    assert.equal(r.history, history);
  }
});

test("without a signal, summarize still receives one", async () => {
  let seen;
  const r = await chatAt(168_000).beforeSend(makeHistory(12), userMessage, (_req, ctx) => { seen = ctx.signal; return GOOD; });
  assert.equal(r.status, S.COMPRESSED);
  assert.ok(seen instanceof AbortSignal);
  assert.equal(seen.aborted, true, "aborted once the run is over: the host's work for it can stop");
});

test("one chat's stalled or bad call never delays another's", async () => {
  const stalled = chatAt(168_000);
  const pending = stalled.beforeSend(makeHistory(12), userMessage, () => new Promise(() => {}));
  const bad = chatAt(168_000).beforeSend(makeHistory(12), Symbol("bad"), good).catch((e) => e.code);
  const fine = chatAt(168_000).beforeSend(makeHistory(12), userMessage, good);
  assert.equal(await bad, "INVALID_CONTENT");
  assert.equal((await fine).status, S.COMPRESSED);
  assert.equal(stalled.busy, true);
  // free() settles the stalled run rather than leaving it pending forever.
  stalled.free();
  await assert.rejects(pending, (e) => e.name === "CompactionError" && e.code === "INVALID_STATE");
});

test("use after free() is a typed INVALID_STATE error everywhere, never a null pointer", async () => {
  const chat = chatAt(168_000);
  chat.free();
  chat.free(); // twice is harmless
  const calls = [
    () => chat.window, () => chat.thresholds, () => chat.lastPromptTokenCount, () => chat.consecutiveFailures, () => chat.busy,
    () => chat.save(), () => chat.setWindow(1000), () => chat.reportUsage({ totalTokenCount: 5 }), () => chat.usage(),
  ];
  for (const call of calls) {
    assert.throws(call, (e) => e instanceof Error && e.name === "CompactionError" && e.code === "INVALID_STATE" && /freed/.test(e.message));
  }
  await assert.rejects(chat.beforeSend([], userMessage, good), (e) => e.code === "INVALID_STATE");
  await assert.rejects(chat.compact([], good), (e) => e.code === "INVALID_STATE");
  // Other chats are unaffected.
  assert.equal((await chatAt(168_000).beforeSend(makeHistory(12), userMessage, good)).status, S.COMPRESSED);
});

test("free() from inside the callback settles the run with INVALID_STATE", async () => {
  const chat = chatAt(168_000);
  await assert.rejects(
    chat.beforeSend(makeHistory(12), userMessage, async () => { chat.free(); return GOOD; }),
    (e) => e.code === "INVALID_STATE",
  );
});

test("hostile arguments to the async methods reject with typed errors; nothing escapes", async () => {
  const uncaught = [];
  const onUncaught = (e) => uncaught.push(e);
  process.on("uncaughtException", onUncaught);
  process.on("unhandledRejection", onUncaught);
  try {
    const chat = chatAt(168_000);
    const history = makeHistory(12);
    const deep = (() => { let v = []; for (let i = 0; i < 10_000; i++) v = [v]; return v; })();
    const cases = [
      [() => chat.beforeSend(history, () => 1, good), "INVALID_CONTENT"],
      [() => chat.beforeSend(history, Symbol(), good), "INVALID_CONTENT"],
      [() => chat.beforeSend(history, revoked(), good), "INVALID_CONTENT"],
      [() => chat.beforeSend(history, { toJSON: () => undefined }, good), "INVALID_CONTENT"],
      [() => chat.beforeSend(history, { role: "user", parts: [{ text: 1n }] }, good), "INVALID_CONTENT"],
      [() => chat.beforeSend(revoked(), userMessage, good), "INVALID_CONTENT"],
      [() => chat.beforeSend([cyclic()], userMessage, good), "INVALID_CONTENT"],
      [() => chat.beforeSend([deep], userMessage, good), "INVALID_CONTENT"],
      [() => chat.beforeSend([...history, () => 1], userMessage, good), "INVALID_CONTENT"],
      [() => chat.beforeSend(history, userMessage, good, { get signal() { throw new Error("getter"); } }), "INVALID_ARGUMENT"],
      [() => chat.beforeSend(history, userMessage, good, revoked()), "INVALID_ARGUMENT"],
      [() => chat.beforeSend(history, userMessage, good, { signal: revoked() }), "INVALID_ARGUMENT"],
      [() => chat.compact(history, good, { get focus() { throw new Error("getter"); } }), "INVALID_ARGUMENT"],
      [() => chat.compact(history, good, 5), "INVALID_ARGUMENT"],
    ];
    for (const [call, code] of cases) {
      await assert.rejects(call(), (e) => e instanceof Error && e.name === "CompactionError" && e.code === code, String(call));
      assert.equal(chat.busy, false);
    }
    assert.equal((await chat.beforeSend(history, userMessage, good)).status, S.COMPRESSED);
    await tick(10);
  } finally {
    process.off("uncaughtException", onUncaught);
    process.off("unhandledRejection", onUncaught);
  }
  assert.deepEqual(uncaught, []);
});

test("an error the host's value threw while being read is the CompactionError's cause", async () => {
  const mine = new Error("toJSON says no");
  const value = { toJSON() { throw mine; } };
  for (const call of [() => cc.loadSettings(value), () => cc.estimateContentTokens([value]), () => new ChatCompactor(value),
    () => cc.selectTip({ lastPromptTokenCount: 1, get contextWindowSize() { throw mine; } })]) {
    assert.throws(call, (e) => e.name === "CompactionError" && e.cause === mine && /toJSON says no/.test(e.message));
  }
  const chat = chatAt(168_000);
  await assert.rejects(chat.beforeSend(makeHistory(12), value, good), (e) => e.code === "INVALID_CONTENT" && e.cause === mine);
  await assert.rejects(chat.compact(makeHistory(12), good, { get focus() { throw mine; } }), (e) => e.code === "INVALID_ARGUMENT" && e.cause === mine);
  // An answer that throws while serialized: an INVALID_ANSWER cause, whose own cause is the host's error.
  const r = await chat.beforeSend(makeHistory(12), userMessage, async () => value);
  assert.equal(r.status, S.SUMMARIZER_FAILED);
  assert.equal(r.cause.code, "INVALID_ANSWER");
  assert.equal(r.cause.cause, mine);
});

// Built without reference types (scripts/build), wasm-bindgen keeps no
// externref table, so not even its table set-up is imported.
test("the wasm cannot call host JS: it imports nothing", async () => {
  const { readFileSync } = await import("node:fs");
  for (const build of ["web", "bundler", "node"]) {
    const module = new WebAssembly.Module(readFileSync(new URL(`../../pkg/${build}/compaction_core_bg.wasm`, import.meta.url)));
    const imports = WebAssembly.Module.imports(module).map((i) => i.name);
    assert.deepEqual(imports, [], build);
  }
});

test("lone surrogates anywhere in a history: counted, compacted, never an error", async () => {
  for (const mode of Object.values(MODES)) {
    const chat = chatAt(mode.tokens);
    const history = makeHistory(12);
    history[1] = { role: "model", parts: [{ text: "broken \ud800 high and \udc00 low" }] };
    history[history.length - 1] = { role: "model", parts: [{ text: "tail \udbff end" }] };
    let seen;
    const r = await mode.run(chat, history, async (request) => { seen = JSON.stringify(request); return GOOD; });
    assert.equal(r.status, S.COMPRESSED, r.statusName);
    assert.match(seen, /broken \ufffd high and \ufffd low/, "read as U+FFFD");
    assert.equal(r.history[r.history.length - 1], history[history.length - 1], "the host's own object, surrogate and all");
  }
});
