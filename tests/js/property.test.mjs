// Property-based tests of every export and the chat class (fast-check):
// arbitrary values, valid inputs with one field mutated, and hostile objects
// (throwing getters, revoked proxies, toJSON, functions, symbols, BigInt,
// cycles, huge and odd numbers, lone surrogates, deep nesting). Every call
// must give a correct result or a real Error named CompactionError with a
// documented `code`; the results keep their invariants; after every
// failure the module still works.
//
// FUZZ_RUNS=<n> multiplies every target's run count (scripts/fuzz); the
// default is the short run scripts/test makes. Each target prints its runs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import fc from "fast-check";

// The package, with every summary request checked against the model's limit.
import { cc } from "./helpers.mjs";
const { ChatCompactor, CompressionStatus } = cc;

// The short run (scripts/test) is 15× the counts written below: about a minute.
const SCALE = Number(process.env.FUZZ_RUNS ?? 15);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);
// The documented codes: those the package's .d.ts declares (scripts/build
// checks that they are exactly the core's).
const DTS = readFileSync(new URL("../../pkg/node/compaction_core.d.ts", import.meta.url), "utf8");
const CODES = new Set([...DTS.match(/type CompactionErrorCode =([^;]*);/)[1].matchAll(/"([A-Z_]+)"/g)].map((m) => m[1]));
assert.ok(CODES.size >= 8 && CODES.has("BUSY"), "the codes are read from the .d.ts");
const TIERS = new Set(["safe", "warn", "auto", "hard"]);
const TIP_IDS = new Set(["context-warn", "context-high", "context-critical"]);

/** Runs of each target, for the summary line. */
const tally = {};
function report(target, runs, errors) {
  tally[target] = { runs, errors };
  process.stdout.write(`# fuzz ${target}: ${runs} runs, ${errors} typed errors, 0 untyped\n`);
}

// ---- hostile values ----

function revoked() {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}
function revokedArray() {
  const { proxy, revoke } = Proxy.revocable([], {});
  revoke();
  return proxy;
}
const cyclic = () => { const o = { a: 1 }; o.self = o; return o; };
const deep = (n) => { let v = { text: "x" }; for (let i = 0; i < n; i++) v = [v]; return v; };
const deepObject = (n) => { let v = 1; for (let i = 0; i < n; i++) v = { a: v }; return v; };
const DEEP = deep(10_000);
const DEEP_OBJECT = deepObject(10_000);

const hostileValues = [
  () => () => 1,
  () => function named() {},
  () => Symbol("s"),
  () => 10n,
  () => revoked(),
  () => revokedArray(),
  () => cyclic(),
  () => ({ toJSON() { throw new Error("toJSON throws"); } }),
  () => ({ toJSON: () => undefined }),
  () => ({ toJSON: () => Symbol("t") }),
  () => ({ get window() { throw new Error("getter throws"); } }),
  () => Object.defineProperty({}, "text", { enumerable: true, get() { throw new Error("getter throws"); } }),
  () => new Proxy({}, { ownKeys() { throw new Error("ownKeys throws"); } }),
  () => new Proxy([], { get() { throw new Error("get throws"); } }),
  () => DEEP,
  () => DEEP_OBJECT,
  () => [DEEP],
  () => Object.create(null),
  () => new Date(NaN),
  () => new Map([[1, 2]]),
  () => [, , 1],
  () => "\ud800",
  () => "\udc00x\ud800",
  () => "a\u0000b",
  () => NaN, () => Infinity, () => -Infinity, () => -0, () => 5e-324, () => 1e308, () => -1e308,
  () => 2 ** 53, () => 2 ** 53 + 2, () => 2 ** 64, () => 1e21, () => -1, () => 0.5,
  () => undefined, () => null, () => true, () => "", () => [], () => ({}),
];
/**
 * A hostile value is generated as a marker and made inside the property
 * (`materialize`): fast-check itself inspects generated values (`in`,
 * cloning, printing), which a revoked proxy or a throwing getter would
 * break before the library ever saw them.
 */
class Hostile {
  constructor(index) { this.index = index; }
  toString() { return `hostile#${this.index}`; }
}
const hostile = fc.integer({ min: 0, max: hostileValues.length - 1 }).map((i) => new Hostile(i));
/** The value with every marker replaced by its hostile value (plain arrays and objects copied). */
function materialize(value) {
  if (value instanceof Hostile) return hostileValues[value.index]();
  if (Array.isArray(value)) return value.map(materialize);
  if (value !== null && typeof value === "object") {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    const copy = Object.create(proto);
    for (const key of Object.keys(value)) copy[key] = materialize(value[key]);
    return copy;
  }
  return value;
}

/** Strings of any UTF-16 units, lone surrogates included. */
const units = fc.array(fc.oneof(fc.integer({ min: 0, max: 0x7f }), fc.integer({ min: 0, max: 0xffff }),
  fc.constantFrom(0xd800, 0xdbff, 0xdc00, 0xdfff, 0xfffd, 0x2028)), { maxLength: 60 })
  .map((codes) => String.fromCharCode(...codes));
const text = fc.oneof(fc.string(), units, fc.constantFrom("", "hello world", "你好，世界", "😀😀"));
const odd = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, 1, 1000, 200_000, 2 ** 53 - 1, 2 ** 53, 1e300));
/** Anything: fast-check's values, hostile ones, and hostile ones nested in plain data. */
const wild = fc.oneof(
  fc.anything({ withBigInt: true, withDate: true, withMap: true, withSet: true, withNullPrototype: true,
    withTypedArray: true, withSparseArray: true, withBoxedValues: true, withObjectString: true, maxDepth: 3 }),
  hostile,
  text,
  odd,
  fc.dictionary(fc.string({ maxLength: 6 }), hostile, { maxKeys: 3 }),
  fc.array(hostile, { maxLength: 3 }),
);

// ---- valid inputs, and one field mutated ----

const jsonValue = fc.jsonValue({ maxDepth: 2 });
const part = fc.oneof(
  fc.record({ text }),
  fc.record({ text, thought: fc.boolean() }),
  fc.record({ functionCall: fc.record({ name: fc.string(), args: fc.dictionary(fc.string(), jsonValue, { maxKeys: 3 }) }) }),
  fc.record({ functionResponse: fc.record({ name: fc.string(), response: fc.dictionary(fc.string(), jsonValue, { maxKeys: 3 }) }) }),
  fc.record({ inlineData: fc.record({ mimeType: fc.constantFrom("image/png", "application/pdf"), data: fc.base64String() }) }),
  fc.record({ fileData: fc.record({ mimeType: fc.constant("image/png"), fileUri: fc.webUrl() }) }),
);
const message = fc.record({ role: fc.constantFrom("user", "model", "assistant"), parts: fc.array(part, { maxLength: 4 }) });
const history = fc.array(message, { maxLength: 12 });
const estimateOptions = fc.record({
  estimator: fc.constantFrom("reference", "calibrated", "conservative"),
  tokenizer: fc.constantFrom("universal", "o200k", "cl100k", "claude", "qwen", "gemini", "llama3", "deepseek"),
  imageTokenEstimate: fc.integer({ min: 1, max: 5000 }),
}, { requiredKeys: [] });
const thresholds = fc.integer({ min: 0, max: 2_000_000 }).map((w) => cc.computeThresholds(w));
const tipContext = fc.record({
  lastPromptTokenCount: fc.integer({ min: 0, max: 2_000_000 }),
  contextWindowSize: fc.integer({ min: 0, max: 2_000_000 }),
  sessionPromptCount: fc.nat(100),
  lastShown: fc.dictionary(fc.constantFrom(...TIP_IDS), fc.nat(100)),
}, { requiredKeys: ["lastPromptTokenCount"] });
const settings = fc.record({
  chatCompression: fc.record({ imageTokenEstimate: fc.integer({ min: 1, max: 5000 }), contextPercentageThreshold: fc.double({ min: 0, max: 1 }) }, { requiredKeys: [] }),
  compaction: fc.record({ excludeMessages: fc.nat(10), excludeContextWindowPercent: fc.integer({ min: 0, max: 100 }) }, { requiredKeys: [] }),
}, { requiredKeys: [] });
const chatOptions = fc.record({
  window: fc.integer({ min: 1, max: 2_000_000 }),
  consecutiveFailures: fc.nat(5),
  hasFailedCompressionAttempt: fc.boolean(),
  imageTokenEstimate: fc.integer({ min: 1, max: 5000 }),
  estimator: fc.constantFrom("reference", "calibrated", "conservative"),
  tokenizer: fc.constantFrom("universal", "o200k"),
  excludeMessages: fc.nat(5),
  excludeContextWindowPercent: fc.integer({ min: 0, max: 100 }),
  systemPrompt: fc.string(),
  extraInstructions: text,
}, { requiredKeys: ["window"] });
const usageReport = fc.oneof(
  fc.record({ promptTokenCount: odd, candidatesTokenCount: odd, totalTokenCount: odd }, { requiredKeys: [] }),
  fc.record({ prompt_tokens: odd, completion_tokens: odd, total_tokens: odd }, { requiredKeys: [] }),
  fc.record({ input_tokens: odd, output_tokens: odd, cache_read_input_tokens: odd }, { requiredKeys: [] }),
  fc.record({ usageMetadata: fc.record({ totalTokenCount: odd }) }),
);

/** Every path into a plain-data value (arrays and objects), the root included. */
function paths(value, prefix = [], out = []) {
  out.push(prefix);
  if (value !== null && typeof value === "object" && out.length < 200) {
    for (const key of Object.keys(value)) paths(value[key], [...prefix, key], out);
  }
  return out;
}
function setAt(value, path, replacement) {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value);
  let node = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  node[path[path.length - 1]] = replacement;
  return copy;
}
/** A valid value, or the same with one field (or the whole) replaced by a wild one. */
function mutated(valid) {
  return fc.oneof(
    { weight: 1, arbitrary: valid },
    { weight: 3, arbitrary: fc.tuple(valid, fc.nat(), wild).map(([v, k, w]) => { const p = paths(v); return setAt(v, p[k % p.length], w); }) },
    { weight: 1, arbitrary: wild },
  );
}

// ---- the contract ----

/** Calls `fn`: its value, or (checked) the CompactionError it threw. */
function attempt(fn) {
  try {
    return { ok: true, value: fn() };
  } catch (error) {
    checkError(error);
    return { ok: false, error };
  }
}
function checkError(error) {
  assert.ok(error instanceof Error, `a real Error, got ${String(error)}`);
  assert.equal(error.name, "CompactionError", error.stack);
  assert.ok(CODES.has(error.code), `a documented code, got ${error.code}: ${error.message}`);
  assert.equal(typeof error.message, "string");
  assert.ok(error.message.length > 0);
}
/** The module still works. */
function alive() {
  assert.equal(cc.computeThresholds(200_000).auto, 167_000);
  assert.equal(cc.estimateTextTokens("hello world"), 3);
}
function checkThresholds(t) {
  for (const k of ["window", "effectiveWindow", "warn", "auto", "hard"]) assert.equal(typeof t[k], "number", k);
  assert.ok(t.warn <= t.auto && t.auto <= t.hard, JSON.stringify(t));
}
function checkCount(n) {
  // One clamp for every count: 2^53 − 1 (issue 19).
  assert.ok(Number.isInteger(n) && n >= 0 && n <= Number.MAX_SAFE_INTEGER, `a non-negative integer up to 2^53 − 1, got ${n}`);
}

/** One fuzz target over the stateless exports: `call(input)` → result checked by `check`. */
function target(name, arbitrary, call, check, runs) {
  test(`fuzz: ${name}`, () => {
    let count = 0;
    let errors = 0;
    fc.assert(fc.property(arbitrary, (input) => {
      count++;
      const r = attempt(() => call(materialize(input)));
      if (r.ok) check?.(r.value, materialize(input));
      else errors++;
      alive();
    }), { numRuns: Math.round(runs * SCALE), seed: SEED });
    report(name, count, errors);
  });
}

target("computeThresholds", fc.oneof(odd, wild), (w) => cc.computeThresholds(w), (t, w) => {
  checkThresholds(t);
  assert.ok(Object.is(t.window, w));
}, 3000);
target("currentTier", fc.tuple(fc.oneof(odd, wild), mutated(thresholds)), ([n, t]) => cc.currentTier(n, t),
  (tier) => assert.ok(TIERS.has(tier)), 3000);
target("estimateContentTokens", fc.tuple(mutated(history), fc.option(mutated(estimateOptions), { nil: undefined })),
  ([h, o]) => cc.estimateContentTokens(h, o), checkCount, 2000);
target("estimateTextTokens", fc.tuple(fc.oneof(text, text, wild), fc.option(mutated(estimateOptions), { nil: undefined })),
  ([t, o]) => cc.estimateTextTokens(t, o), checkCount, 3000);
target("estimatePromptTokens", fc.tuple(mutated(history), mutated(message), fc.oneof(odd, wild), fc.option(mutated(estimateOptions), { nil: undefined })),
  ([h, m, n, o]) => cc.estimatePromptTokens(h, m, n, o), checkCount, 2000);
target("selectTip", mutated(tipContext), (c) => cc.selectTip(c), (tip) => {
  if (tip !== undefined) {
    assert.ok(TIP_IDS.has(tip.id));
    assert.ok(TIERS.has(tip.tier));
  }
}, 3000);
target("contextReport", fc.tuple(fc.oneof(odd, wild), fc.oneof(odd, wild)), ([n, w]) => cc.contextReport(n, w), (r) => {
  checkThresholds(r.thresholds);
  assert.ok(TIERS.has(r.tier));
  assert.equal(typeof r.percentUsed, "number", "never null");
  assert.ok(r.tokensUntilAuto >= 0);
}, 3000);
target("formatContextReport", fc.tuple(fc.oneof(odd, wild), fc.oneof(odd, wild)), ([n, w]) => cc.formatContextReport(n, w), (s) => {
  assert.equal(typeof s, "string");
  assert.match(s, /^Compaction thresholds\n/);
  assert.doesNotMatch(s, /e,|NaN|undefined/);
}, 3000);
target("loadSettings", fc.option(mutated(settings), { nil: undefined }), (s) => cc.loadSettings(s), (r) => {
  checkCount(r.settings.excludeMessages);
  assert.ok(r.settings.imageTokenEstimate >= 1);
  assert.ok(Array.isArray(r.warnings));
}, 3000);
target("ladderConstants", fc.constant(null), () => cc.ladderConstants(), (k) => {
  assert.equal(k.maxConsecutiveFailures, 3);
  assert.equal(k.pct, 0.7);
}, 10);
target("new ChatCompactor", mutated(chatOptions), (o) => new ChatCompactor(o), (chat) => {
  checkThresholds(chat.thresholds);
  checkCount(chat.consecutiveFailures);
  const again = ChatCompactor.restore(JSON.parse(JSON.stringify(chat.save())));
  assert.deepEqual(again.save(), chat.save(), "save → restore is exact");
  again.free();
  chat.free();
}, 2000);

// Every send fits and the ledger (docs/behaviour.md): the options, setWindow's second argument and slimMessage.
const names = fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 });
const fitOptions = fc.record({
  window: fc.integer({ min: 1, max: 2_000_000 }),
  maxOutputTokens: fc.integer({ min: 1, max: 100_000 }),
  clearToolOutputs: fc.boolean(),
  ledger: fc.record({
    enabled: fc.boolean(), created: names, written: names, edited: names, moved: names, deleted: names,
    commandTools: names, patchTools: names, pathArguments: names, sourceArguments: names, destinationArguments: names,
    userWordsBudget: fc.integer({ min: 0, max: 10_000 }),
  }, { requiredKeys: [] }),
}, { requiredKeys: ["window"] });
target("new ChatCompactor (maxOutputTokens, clearToolOutputs, ledger)", mutated(fitOptions), (o) => new ChatCompactor(o), (chat, o) => {
  const saved = chat.save();
  if (typeof o?.maxOutputTokens === "number") assert.equal(saved.options.maxOutputTokens, o.maxOutputTokens);
  const again = ChatCompactor.restore(JSON.parse(JSON.stringify(saved)));
  assert.deepEqual(again.save(), saved, "save → restore is exact");
  again.free();
  chat.free();
}, 2000);
target("slimMessage", fc.tuple(mutated(message), fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 0, max: 5_000 }) }, odd, wild),
  fc.option(mutated(estimateOptions), { nil: undefined })), ([m, b, o]) => cc.slimMessage(m, b, o), (slim, [m, , o]) => {
  assert.equal(typeof slim.role, "string");
  assert.ok(Array.isArray(slim.parts));
  // Never larger than the message it slims.
  const before = attempt(() => cc.estimateContentTokens([m], o));
  if (before.ok) assert.ok(cc.estimateContentTokens([slim], o) <= before.value);
}, 2000);

test("fuzz: setWindow(window, maxOutputTokens)", () => {
  const arbitrary = fc.tuple(fc.oneof(fc.integer({ min: 1, max: 2_000_000 }), odd, wild),
    fc.oneof(fc.integer({ min: 1, max: 100_000 }), fc.constant(null), fc.constant(undefined), odd, wild));
  const chat = new ChatCompactor({ window: 200_000, maxOutputTokens: 8_192 });
  let count = 0;
  let errors = 0;
  fc.assert(fc.property(arbitrary, (input) => {
    const [window, limit] = materialize(input);
    count++;
    const before = chat.save();
    const set = attempt(() => chat.setWindow(window, limit));
    const after = chat.save();
    if (!set.ok) {
      errors++;
      assert.deepEqual(after, before, "nothing changes on an error");
    } else {
      assert.equal(after.window, window);
      const expected = limit === undefined ? before.options.maxOutputTokens : limit === null ? undefined : limit;
      assert.equal(after.options.maxOutputTokens, expected);
    }
    checkThresholds(chat.thresholds);
    alive();
  }), { numRuns: Math.round(2000 * SCALE), seed: SEED });
  chat.free();
  report("setWindow(window, maxOutputTokens)", count, errors);
});

test("fuzz: ChatCompactor.restore, reportUsage, setWindow", () => {
  const base = new ChatCompactor({ window: 200_000, excludeMessages: 3 });
  base.reportUsage({ totalTokenCount: 12_345 });
  const saved = base.save();
  const arbitrary = fc.tuple(mutated(fc.constant(saved)), mutated(usageReport), fc.oneof(odd, wild));
  let count = 0;
  let errors = 0;
  fc.assert(fc.property(arbitrary, (input) => {
    const [state, usage, window] = materialize(input);
    count++;
    const restored = attempt(() => ChatCompactor.restore(state));
    if (!restored.ok) errors++;
    const chat = restored.ok ? restored.value : new ChatCompactor({ window: 100_000 });
    const before = chat.lastPromptTokenCount;
    const update = attempt(() => chat.reportUsage(usage));
    if (update.ok) {
      checkCount(update.value.lastPromptTokenCount);
      assert.ok(update.value.lastPromptTokenCount <= Number.MAX_SAFE_INTEGER);
      assert.ok(Array.isArray(update.value.ignored));
      assert.equal(chat.lastPromptTokenCount, update.value.taken ? update.value.lastPromptTokenCount : before);
    } else errors++;
    const set = attempt(() => chat.setWindow(window));
    if (!set.ok) errors++;
    checkThresholds(chat.thresholds);
    // Whatever happened, the state saves and restores exactly.
    const copy = ChatCompactor.restore(JSON.parse(JSON.stringify(chat.save())));
    assert.deepEqual(copy.save(), chat.save());
    assert.equal(copy.usage().tier, chat.usage().tier);
    copy.free();
    chat.free();
    alive();
  }), { numRuns: Math.round(2000 * SCALE), seed: SEED });
  base.free();
  report("ChatCompactor.restore/reportUsage/setWindow", count, errors);
});

// ---- the chat's runs ----

const GOOD = { text: "## Task status\n- done", finishReason: "STOP" };
const bigHistory = (turns) => Array.from({ length: turns * 2 }, (_, i) => ({
  role: i % 2 ? "model" : "user", parts: [{ text: `turn ${i} ` + "x".repeat(3000) }],
}));
const answerArb = fc.oneof(
  fc.constant(GOOD),
  mutated(fc.record({ text, finishReason: fc.option(fc.constantFrom("STOP", "MAX_TOKENS", "length", "SAFETY", "end_turn", "weird")),
    usage: fc.option(usageReport) }, { requiredKeys: ["text"] })),
  text,
  wild,
);
const behaviour = fc.constantFrom("resolve", "return", "throw", "reject", "abortBefore", "abortInside", "abortLater", "resolveTwice", "reenter",
  // The callback aborts the run's signal, then throws, rejects at once,
  // rejects later, or never settles (issue 19): each promise is observed.
  "abortThenThrow", "abortThenReject", "abortThenRejectLater", "abortThenHang");
/** The callbacks that abort first: plain functions, so that their throw and their promise reach the library as they are. */
const ABORT_FIRST = {
  abortThenThrow: (controller, answer) => { controller.abort(); throw answer; },
  abortThenReject: (controller, answer) => { controller.abort(); return Promise.reject(answer); },
  abortThenRejectLater: (controller, answer) => {
    controller.abort();
    return new Promise((_, reject) => setTimeout(() => reject(answer), 1));
  },
  abortThenHang: (controller) => { controller.abort(); return new Promise(() => {}); },
};
/** Rejections no one observed during the fuzz runs (a listener keeps Node from exiting on them). */
const unhandled = [];
process.on("unhandledRejection", (reason) => unhandled.push(reason));
const run = fc.record({
  mode: fc.constantFrom("auto", "hard", "manual", "quiet"),
  behaviour,
  answer: answerArb,
  history: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 0, max: 14 }).map(bigHistory) }, { weight: 1, arbitrary: mutated(history) }),
  userMessage: mutated(message),
  appended: fc.nat(3),
  options: fc.option(mutated(fc.record({ focus: text }, { requiredKeys: [] })), { nil: undefined }),
});
const TOKENS = { auto: 168_000, hard: 178_000, manual: 20_000, quiet: 1_000 };

async function oneRun(generated) {
  const input = materialize(generated);
  const { mode, behaviour, answer, history: h, userMessage, appended, options } = input;
  const chat = new ChatCompactor({ window: 200_000 });
  chat.reportUsage({ totalTokenCount: TOKENS[mode] });
  const controller = new AbortController();
  let snapshot;
  try {
    snapshot = JSON.stringify(h);
  } catch {
    snapshot = null;
  }
  // What the test itself can read of the history (a revoked proxy, or a
  // proxy whose every read throws, is not an array the test can compare).
  let isArray = false;
  let started = null;
  try {
    isArray = Array.isArray(h);
    started = isArray ? Array.prototype.slice.call(h) : null;
  } catch {
    isArray = false;
  }
  const added = [];
  let inner;
  const summarize = async () => {
    for (let i = 0; i < appended && isArray; i++) {
      const m = { role: "user", parts: [{ text: `meanwhile ${i}` }] };
      added.push(m);
      h.push(m);
    }
    switch (behaviour) {
      case "throw": throw answer;
      case "reject": return Promise.reject(answer);
      case "abortInside": controller.abort(); return new Promise(() => {});
      case "abortLater": setTimeout(() => controller.abort(), 1); return new Promise(() => {});
      case "resolveTwice": return { then(ok) { ok(answer); ok(GOOD); } };
      case "reenter": inner = await chat.compact(isArray ? h : [], () => GOOD).then(() => "resolved", (e) => e); return answer;
      default: return answer;
    }
  };
  const abortFirst = ABORT_FIRST[behaviour];
  const call = behaviour === "return" ? () => answer : abortFirst ? () => abortFirst(controller, answer) : summarize;
  const opts = { signal: behaviour === "abortBefore" ? AbortSignal.abort() : controller.signal };
  let result;
  try {
    result = mode === "manual"
      // A callback that never settles needs the signal that ends it.
      ? await chat.compact(h, call, options === undefined || behaviour.startsWith("abort") ? opts : options)
      : await chat.beforeSend(h, userMessage, call, opts);
  } catch (error) {
    checkError(error);
    assert.equal(chat.busy, false);
    chat.free();
    return "error";
  }
  if (inner !== undefined) assert.equal(inner.code, "BUSY");
  assert.equal(CompressionStatus[result.statusName], result.status);
  checkCount(result.estimate);
  checkCount(result.consecutiveFailures);
  assert.equal(chat.busy, false);
  if (result.status === CompressionStatus.COMPRESSED) {
    const tail = started.slice(result.keptFrom);
    const end = [...tail, ...added];
    end.forEach((m, i) => assert.equal(result.history[result.history.length - end.length + i], m, "the host's own objects, appended ones after"));
    result.replaced.forEach((m, i) => assert.equal(m, started[i]));
    assert.equal(result.replaced.length, result.keptFrom);
  } else {
    assert.equal(result.history, h, "the very array");
    if (isArray) h.length = started.length; // drop what the callback appended
    if (snapshot !== null) assert.equal(JSON.stringify(h), snapshot, "unchanged JSON");
    assert.deepEqual(result.replaced, []);
    if (result.status === CompressionStatus.SUMMARIZER_FAILED) assert.ok("cause" in result);
  }
  chat.free();
  return "result";
}

test("fuzz: ChatCompactor beforeSend / compact runs", async () => {
  let count = 0;
  let errors = 0;
  await fc.assert(fc.asyncProperty(run, async (input) => {
    count++;
    if ((await oneRun(input)) === "error") errors++;
    alive();
  }), { numRuns: Math.round(400 * SCALE), seed: SEED });
  // The last run's late rejection (1 ms) has come by now.
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(unhandled.length, 0, `${unhandled.length} unhandled rejections, the first: ${String(unhandled[0]?.message ?? unhandled[0])}`);
  report("ChatCompactor runs", count, errors);
});

test("100,000 hostile calls in a row, then a normal call, in one module instance", async () => {
  const calls = [
    (v) => cc.computeThresholds(v),
    (v) => cc.currentTier(1, v),
    (v) => cc.estimateContentTokens(v),
    (v) => cc.estimateContentTokens([], v),
    (v) => cc.estimateTextTokens(v),
    (v) => cc.estimatePromptTokens([], v, 0),
    (v) => cc.selectTip(v),
    (v) => cc.contextReport(v, 1),
    (v) => cc.loadSettings(v),
    (v) => new ChatCompactor(v),
    (v) => ChatCompactor.restore(v),
  ];
  const chat = new ChatCompactor({ window: 200_000 });
  const methods = [(v) => chat.reportUsage(v), (v) => chat.setWindow(v)];
  const all = [...calls, ...methods];
  // Only the values that ran host code that throws (or wrote nothing) before:
  // each one leaked wasm stack under the old binding.
  const values = hostileValues.slice(0, 14).map((make) => make());
  let typed = 0;
  for (let i = 0; i < 100_000; i++) {
    try {
      const made = all[i % all.length](values[(i * 7) % values.length]);
      if (made instanceof ChatCompactor) made.free();
    } catch (error) {
      if (!(error instanceof Error) || error.name !== "CompactionError" || !CODES.has(error.code)) throw error;
      typed++;
    }
  }
  assert.ok(typed > 90_000, `${typed} typed errors`);
  // Async methods, too: a thousand hostile runs.
  for (let i = 0; i < 1000; i++) {
    await chat.beforeSend(values[i % values.length], values[(i + 3) % values.length], () => GOOD).catch((e) => checkError(e));
  }
  alive();
  chat.reportUsage({ totalTokenCount: 168_000 });
  const r = await chat.beforeSend(bigHistory(12), { role: "user", parts: [{ text: "next" }] }, async () => GOOD);
  assert.equal(r.status, CompressionStatus.COMPRESSED);
  report("hostile calls in a row", 101_000, typed);
});

test("fuzz: summary of runs per target", () => {
  const total = Object.values(tally).reduce((n, t) => n + t.runs, 0);
  process.stdout.write(`# fuzz total: ${total} runs over ${Object.keys(tally).length} targets (FUZZ_RUNS=${SCALE})\n`);
  assert.ok(total > 0);
});
