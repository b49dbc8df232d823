// The stateless functions of the built package (pkg/node), through JS.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const cc = require("../../pkg/node/compaction_core.js");

function throwsCode(fn, code, pattern) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Error, "a real Error");
    assert.equal(e.name, "CompactionError");
    assert.equal(e.code, code);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

test("computeThresholds matches the spec table and the JS formula bit for bit", () => {
  const table = [
    [32_000, 12_000, 19_200, 22_400, 22_400],
    [128_000, 108_000, 76_800, 95_000, 105_000],
    [200_000, 180_000, 147_000, 167_000, 177_000],
    [1_000_000, 980_000, 947_000, 967_000, 977_000],
    [10_000, 0, 6_000, 7_000, 7_000],
    [0, 0, 0, 0, 0],
  ];
  for (const [w, eff, warn, auto, hard] of table) {
    const t = cc.computeThresholds(w);
    assert.deepEqual([t.effectiveWindow, t.warn, t.auto, t.hard], [eff, warn, auto, hard], `window ${w}`);
  }
  // The reference TypeScript, evaluated by this very JS engine.
  for (let i = 0; i < 2000; i++) {
    const w = i % 2 ? Math.random() * 2e6 : Math.floor(Math.random() * 1e7);
    const effective = w - 20_000;
    const auto = Math.max(0.7 * w, effective - 13_000);
    const warn = Math.max((0.7 - 0.1) * w, auto - 20_000);
    const hard = Math.max(effective - 3_000, auto);
    const t = cc.computeThresholds(w);
    assert.ok(Object.is(t.auto, auto) && Object.is(t.warn, warn) && Object.is(t.hard, hard), `window ${w}`);
    assert.ok(t.warn <= t.auto && t.auto <= t.hard);
  }
  assert.equal(cc.computeThresholds(32_000).hardRule, "auto");
  assert.equal(cc.computeThresholds(128_000).warnRule, "pct");
});

test("bad windows and counts are CompactionErrors, never traps", () => {
  for (const bad of [NaN, Infinity, -1]) throwsCode(() => cc.computeThresholds(bad), "INVALID_WINDOW", /finite number/);
  for (const bad of ["200000", null, undefined, {}, 10n]) throwsCode(() => cc.computeThresholds(bad), "INVALID_ARGUMENT", /window must be a number/);
  throwsCode(() => cc.currentTier(-5, cc.computeThresholds(1000)), "INVALID_ARGUMENT", /tokens/);
  throwsCode(() => cc.currentTier(5, "nope"), "INVALID_ARGUMENT", /thresholds must be an object/);
  // The module still works after every error.
  assert.equal(cc.computeThresholds(200_000).auto, 167_000);
});

test("currentTier checks hard first", () => {
  const t = cc.computeThresholds(200_000);
  assert.deepEqual([0, 147_000, 167_000, 177_000].map((n) => cc.currentTier(n, t)), ["safe", "warn", "auto", "hard"]);
  assert.equal(cc.currentTier(22_400, cc.computeThresholds(32_000)), "hard");
});

test("estimateContentTokens: the spec's rule per part kind", () => {
  const est = (contents, opts) => cc.estimateContentTokens(contents, opts);
  assert.equal(est([{ role: "user", parts: [{ text: "hello world" }] }]), 3);
  assert.equal(est([{ role: "user", parts: [{ text: "aaaa" }, { text: "bbbbbbbb" }] }]), 3);
  const image = [{ role: "user", parts: [{ inlineData: { mimeType: "image/png", data: "AAAA".repeat(5000) } }] }];
  assert.equal(est(image), 1600);
  assert.equal(est(image, { imageTokenEstimate: 258 }), 258);
  const call = { name: "read_file", args: { path: "src/main.rs" } };
  assert.equal(est([{ role: "model", parts: [{ functionCall: call }] }]), Math.ceil(JSON.stringify(call).length / 2));
  const response = { name: "read_file", response: { output: "fn main() {}\n\t\"quoted\" é 😀" } };
  assert.equal(est([{ role: "user", parts: [{ functionResponse: response }] }]), Math.ceil(JSON.stringify(response).length / 2));
  // JS length: surrogate pairs count 2.
  assert.equal(est([{ role: "user", parts: [{ text: "😀😀😀😀" }] }]), Math.ceil("😀😀😀😀".length / 4));
  throwsCode(() => est([{ role: "user", parts: [{ text: 1 }] }]), "INVALID_CONTENT", /contents\[0\]\.parts\[0\]\.text must be a string/);
  throwsCode(() => est("hello"), "INVALID_CONTENT", /contents must be an array/);
  throwsCode(() => est([], { imageTokenEstimate: 0 }), "INVALID_ARGUMENT", /imageTokenEstimate/);
});

test("estimatePromptTokens: both paths", () => {
  const history = [{ role: "user", parts: [{ text: "x".repeat(4000) }] }];
  const msg = { role: "user", parts: [{ text: "hello world" }] };
  assert.equal(cc.estimatePromptTokens(history, msg, 50_000), 50_003);
  assert.equal(cc.estimatePromptTokens(history, msg, 0), Math.ceil(4011 / 4));
  // A large pasted message crosses auto in the cheap gate.
  const t = cc.computeThresholds(128_000);
  const big = { role: "user", parts: [{ text: "y".repeat(24_000) }] };
  assert.ok(cc.estimatePromptTokens([], big, 90_000) >= t.auto);
  throwsCode(() => cc.estimatePromptTokens(history, msg, -1), "INVALID_ARGUMENT", /lastPromptTokenCount/);
});

test("selectTip, contextReport, formatContextReport", () => {
  const tip = (n, w = 200_000) => cc.selectTip({ lastPromptTokenCount: n, contextWindowSize: w })?.id;
  assert.deepEqual([100_000, 150_000, 170_000, 180_000].map((n) => tip(n)), [undefined, "context-warn", "context-high", "context-critical"]);
  assert.equal(tip(22_400, 32_000), "context-critical");
  assert.equal(cc.selectTip({ lastPromptTokenCount: 1e9 }), undefined);
  const withThresholds = cc.selectTip({ lastPromptTokenCount: 100_000, thresholds: cc.computeThresholds(128_000) });
  assert.equal(withThresholds.id, "context-high");
  const cooled = cc.selectTip({ lastPromptTokenCount: 180_000, contextWindowSize: 200_000, sessionPromptCount: 4, lastShown: { "context-critical": 3 } });
  assert.equal(cooled, undefined);

  const r = cc.contextReport(150_000, 200_000);
  assert.deepEqual([r.tier, r.percentUsed, r.tokensUntilAuto, r.showFooter], ["warn", 75, 17_000, true]);
  assert.equal(
    cc.formatContextReport(150_000, 200_000),
    "Compaction thresholds\n" +
      "  Effective window:   180,000  (window − 20,000 reserve)\n" +
      "  Warn threshold:     147,000\n" +
      "  Auto threshold:     167,000\n" +
      "  Hard threshold:     177,000\n" +
      "  Current tier:       warn",
  );
});

test("loadSettings warns once on console.warn and returns the warning every time", () => {
  const seen = [];
  const original = console.warn;
  console.warn = (m) => seen.push(m);
  try {
    const a = cc.loadSettings({ chatCompression: { contextPercentageThreshold: 0.5 } });
    const b = cc.loadSettings({ "chatCompression.contextPercentageThreshold": 0.9 });
    assert.equal(a.warnings.length, 1);
    assert.deepEqual(b.warnings, a.warnings);
    assert.match(a.warnings[0], /has been removed and is now controlled by built-in thresholds/);
    assert.deepEqual(a.settings, { imageTokenEstimate: 1600, excludeMessages: 2, excludeContextWindowPercent: 2 });
  } finally {
    console.warn = original;
  }
  assert.equal(seen.length, 1);
  assert.deepEqual(cc.loadSettings(undefined).settings.excludeMessages, 2);
  throwsCode(() => cc.loadSettings({ compaction: { excludeMessages: 1.5 } }), "INVALID_SETTINGS", /excludeMessages must be an integer/);
});

test("estimators: reference by default, calibrated and conservative per tokenizer family", () => {
  const zh = [{ role: "user", parts: [{ text: "压缩会在上下文接近模型限制时自动触发，保留任务状态、修改过的文件和用户的要求。".repeat(20) }] }];
  const ref = cc.estimateContentTokens(zh);
  assert.equal(ref, cc.estimateContentTokens(zh, { estimator: "reference" }));
  for (const tokenizer of ["universal", "o200k", "cl100k", "claude", "qwen", "gemini", "llama3", "deepseek"]) {
    const cal = cc.estimateContentTokens(zh, { estimator: "calibrated", tokenizer });
    const con = cc.estimateContentTokens(zh, { estimator: "conservative", tokenizer });
    assert.ok(cal > ref, `${tokenizer}: chars/4 under-counts Chinese (${cal} vs ${ref})`);
    assert.ok(con >= cal, `${tokenizer}: conservative never below calibrated`);
  }
  // A surrogate pair crosses the boundary as one character, whatever the encoding.
  const emoji = [{ role: "user", parts: [{ text: "ok 😀 ".repeat(50) }] }];
  assert.ok(cc.estimateContentTokens(emoji, { estimator: "calibrated" }) > 0);
  throwsCode(() => cc.estimateContentTokens(zh, { estimator: "tiktoken" }), "INVALID_ARGUMENT", /estimator/);
  throwsCode(() => cc.estimateContentTokens(zh, { tokenizer: "gpt2" }), "INVALID_ARGUMENT", /tokenizer/);
});

test("estimateTextTokens: one text under each estimator", () => {
  assert.equal(cc.estimateTextTokens("hello world"), 3);
  assert.equal(cc.estimateTextTokens(""), 0);
  const zh = "上下文压缩保留任务状态和用户的要求。".repeat(30);
  assert.equal(cc.estimateTextTokens(zh), Math.ceil(zh.length / 4));
  assert.ok(cc.estimateTextTokens(zh, { estimator: "calibrated", tokenizer: "o200k" }) > Math.ceil(zh.length / 4));
  const code = "fn main() { println!(\"hello\"); }\n".repeat(20);
  assert.ok(cc.estimateTextTokens(code, { estimator: "conservative" }) >= cc.estimateTextTokens(code, { estimator: "calibrated" }));
  throwsCode(() => cc.estimateTextTokens(42), "INVALID_ARGUMENT", /text must be a string/);
});

test("estimate options: the quick read of plain objects agrees with the strict one", () => {
  // A plain object of known fields is read without the strict reader; an own
  // field left undefined sends the same options through the strict reader
  // (which skips it), so the two must give the same estimate.
  const text = "naïve café 你好 parseJSON(42) ----------------\n".repeat(10);
  const plain = [
    {},
    { estimator: "calibrated" },
    { estimator: "calibrated", tokenizer: "o200k" },
    { tokenizer: "qwen", estimator: "conservative" },
    { estimator: "reference", imageTokenEstimate: 300 },
    { estimator: "conservative", tokenizer: "claude", imageTokenEstimate: 1.5 },
  ];
  for (const o of plain) {
    assert.equal(cc.estimateTextTokens(text, o), cc.estimateTextTokens(text, { ...o, unused: undefined }), JSON.stringify(o));
  }
  // Inherited fields are not options (as Object.entries sees them), and an
  // unknown own field is an error even next to valid ones.
  const inherited = Object.create({ estimator: "calibrated", foo: 1 });
  assert.equal(cc.estimateTextTokens(text, inherited), cc.estimateTextTokens(text));
  inherited.tokenizer = "qwen";
  assert.equal(cc.estimateTextTokens(text, inherited), cc.estimateTextTokens(text, { tokenizer: "qwen" }));
  throwsCode(() => cc.estimateTextTokens(text, { estimator: "calibrated", foo: 1 }), "INVALID_ARGUMENT", /foo/);
  throwsCode(() => cc.estimateTextTokens(text, { estimator: "Calibrated" }), "INVALID_ARGUMENT", /estimator/);
  throwsCode(() => cc.estimateTextTokens(text, { estimator: 3 }), "INVALID_ARGUMENT", /estimator/);
  throwsCode(() => cc.estimateTextTokens(text, { imageTokenEstimate: NaN }), "INVALID_ARGUMENT", /imageTokenEstimate/);
  throwsCode(() => cc.estimateTextTokens(text, { imageTokenEstimate: 0.5 }), "INVALID_ARGUMENT", /imageTokenEstimate/);
});

test("every string reaches the wasm whole, short or long, ASCII or not (scripts/patch-glue.mjs)", () => {
  // The glue copies strings of up to 64 chars with its own loop and longer
  // ones with TextEncoder.encodeInto; the spec's rule counts UTF-16 units,
  // so a lost, doubled or mangled char shows in the count. A lone surrogate
  // arrives as U+FFFD, still one unit.
  const kinds = {
    ascii: "a",
    accented: "é",
    cjk: "日",
    emoji: "🙂",
    lone: "\ud800",
  };
  for (const [kind, c] of Object.entries(kinds)) {
    for (const length of [0, 1, 63, 64, 65, 1_000, 100_003]) {
      for (const at of [0, Math.floor(length / 2), length - 1]) {
        if (at < 0) continue;
        const text = "x".repeat(at) + c + "y".repeat(Math.max(0, length - at - 1));
        assert.equal(
          cc.estimateTextTokens(text, { estimator: "reference" }),
          Math.ceil(text.length / 4),
          `${kind} at ${at} of ${length}`,
        );
      }
    }
  }
});

// Issue 19, defect 5: a function or a Symbol where a number belongs was
// silently left out by JSON.stringify, so the field took its default
// (`selectTip({ lastPromptTokenCount: () => 5 })` returned a tip). Every
// reader of a number agrees: it is a typed error naming the field.
test("a function or a Symbol in a numeric field is a typed error naming the field, never a silent default", () => {
  for (const [label, bad] of [["a function", () => 5], ["a Symbol", Symbol("five")]]) {
    const cases = [
      [() => cc.selectTip({ lastPromptTokenCount: bad, contextWindowSize: 200_000 }), "INVALID_ARGUMENT", "lastPromptTokenCount"],
      [() => cc.selectTip({ lastPromptTokenCount: 190_000, contextWindowSize: bad }), "INVALID_ARGUMENT", "contextWindowSize"],
      [() => cc.contextReport(bad, 200_000), "INVALID_ARGUMENT", "tokens"],
      [() => cc.contextReport(1_000, bad), "INVALID_ARGUMENT", "window"],
      [() => new cc.ChatCompactor({ window: bad }), "INVALID_ARGUMENT", "window"],
      [() => new cc.ChatCompactor({ window: 200_000, excludeMessages: bad }), "INVALID_ARGUMENT", "excludeMessages"],
      [() => new cc.ChatCompactor({ window: 200_000, excludeContextWindowPercent: bad }), "INVALID_ARGUMENT", "excludeContextWindowPercent"],
      [() => new cc.ChatCompactor({ window: 200_000, imageTokenEstimate: bad }), "INVALID_ARGUMENT", "imageTokenEstimate"],
      [() => new cc.ChatCompactor({ window: 200_000, maxOutputTokens: bad }), "INVALID_ARGUMENT", "maxOutputTokens"],
      [() => new cc.ChatCompactor({ window: 200_000, consecutiveFailures: bad }), "INVALID_ARGUMENT", "consecutiveFailures"],
      [() => cc.estimateContentTokens([], { imageTokenEstimate: bad }), "INVALID_ARGUMENT", "imageTokenEstimate"],
      [() => cc.estimateTextTokens("hello", { imageTokenEstimate: bad }), "INVALID_ARGUMENT", "imageTokenEstimate"],
      [() => cc.estimatePromptTokens([], { role: "user", parts: [{ text: "x" }] }, 0, { imageTokenEstimate: bad }), "INVALID_ARGUMENT", "imageTokenEstimate"],
      [() => cc.slimMessage({ role: "user", parts: [{ text: "x" }] }, 10, { imageTokenEstimate: bad }), "INVALID_ARGUMENT", "imageTokenEstimate"],
      [() => cc.loadSettings({ chatCompression: { imageTokenEstimate: bad } }), "INVALID_SETTINGS", "imageTokenEstimate"],
      [() => cc.currentTier(1_000, { warn: 1, auto: bad, hard: 3 }), "INVALID_ARGUMENT", "auto"],
    ];
    for (const [call, code, field] of cases) {
      let error = null;
      let returned;
      try {
        returned = call();
      } catch (e) {
        error = e;
      }
      assert.ok(error !== null, `${label} in ${field}: returned ${JSON.stringify(returned)} instead of an error`);
      assert.equal(error.name, "CompactionError", `${label} in ${field}`);
      assert.equal(error.code, code, `${label} in ${field}: ${error.message}`);
      assert.ok(error.message.includes(field), `${label} in ${field}: ${error.message}`);
    }
  }
});

test("a bad value reads the same whichever side finds it: the JS layer describes it in the core's words", () => {
  // `setWindow` checks its argument in JS; the constructor's `window` is
  // read by the core (src/read.rs's describe). One vocabulary for both.
  const chat = new cc.ChatCompactor({ window: 32_000 });
  const got = (run) => {
    try {
      run();
    } catch (error) {
      assert.equal(error.code, "INVALID_ARGUMENT", error.message);
      return error.message.slice(error.message.indexOf(", got ") + 6);
    }
    assert.fail("no error");
  };
  for (const value of [true, false, [1], {}, "32000", () => 1, Symbol("w")]) {
    const js = got(() => chat.setWindow(value));
    const core = got(() => new cc.ChatCompactor({ window: value }));
    assert.equal(js, core, `${String(typeof value)}: the JS layer says "${js}", the core "${core}"`);
  }
  chat.free();
});
