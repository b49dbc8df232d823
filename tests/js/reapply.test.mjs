// A compaction that survives loops which rebuild the prompt (issue 21):
// `chat.reapply` puts the last compaction's head back in any prompt that
// starts with the messages it replaced (by content, not identity), leaves a
// prompt that has it already as it is, drops it for an edited conversation,
// keeps it across save/restore, and composes several compactions; the
// usage's anchor says what is pending. Also: `beforeSend` with an array of
// pending messages, and `setOverhead`.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { cc } from "./helpers.mjs";

const { ChatCompactor, CompressionStatus } = cc;
const clone = (v) => JSON.parse(JSON.stringify(v));

function conversation(turns, tokens, tag) {
  const out = [{ role: "system", content: "You are a coding agent." }];
  for (let i = 0; i < turns; i++) {
    out.push({ role: "user", content: `${tag} question ${i} ${"q".repeat(tokens * 4)}` });
    out.push({ role: "assistant", content: `${tag} answer ${i} ${"a".repeat(tokens * 4)}` });
  }
  return out;
}
const summarize = async () => ({ text: "The user asked questions; all were answered.", finishReason: "stop" });
const newChat = () => new ChatCompactor({ window: 32_000, format: "openai", estimator: "reference" });

test("a rebuilt prompt gets the compaction back without a summary call", async () => {
  const chat = newChat();
  const history = conversation(12, 1_000, "a");
  const user = { role: "user", content: "go on" };
  assert.equal(chat.reapply(history).match, "none");
  const done = await chat.beforeSend(history, user, summarize);
  assert.equal(done.status, CompressionStatus.COMPRESSED);
  const answer = { role: "assistant", content: "done" };
  const next = { role: "user", content: "and now?" };
  // The framework rebuilds the whole conversation as new objects.
  const prompt = clone([...history, user, answer, next]);
  let calls = 0;
  const found = chat.reapply(prompt);
  assert.equal(found.match, "applied");
  assert.deepEqual(found.history, [...done.history, user, answer, next]);
  assert.equal(calls, 0);
  // Already applied (ai@7 keeps prepareStep's messages): a no-op.
  const again = chat.reapply(clone(found.history));
  assert.equal(again.match, "current");
  assert.deepEqual(again.history, found.history);
  // Kept across save and restore (JSON, as a store keeps it).
  const restored = ChatCompactor.restore(JSON.parse(JSON.stringify(chat.save())));
  assert.deepEqual(restored.reapply(prompt).history, found.history);
  // An edited conversation is a new one: the record goes, the usage count too.
  const edited = clone(prompt);
  edited[1] = { role: "user", content: "a different first question" };
  const diverged = chat.reapply(edited);
  assert.equal(diverged.match, "diverged");
  assert.equal(diverged.history, edited);
  assert.equal(chat.reapply(prompt).match, "none");
  assert.equal(chat.lastPromptTokenCount, 0);
  calls += 0;
});

test("the usage's anchor: what follows the measured prompt is pending", () => {
  const chat = newChat();
  const prompt = conversation(2, 10, "b");
  assert.equal(chat.reapply(prompt).covered, null);
  chat.reportUsage({ prompt_tokens: 500, completion_tokens: 20 });
  const later = [...clone(prompt), { role: "assistant", content: "ok" }, { role: "user", content: "next" }];
  assert.equal(chat.reapply(later).covered, prompt.length);
  chat.reportUsage({ prompt_tokens: 600, completion_tokens: 20 });
  assert.equal(chat.reapply(conversation(2, 10, "c")).covered, null);
  assert.equal(chat.lastPromptTokenCount, 0, "another prompt: the count is dropped");
});

test("a second compaction is re-applied to the original prompt", async () => {
  const chat = newChat();
  const original = conversation(12, 1_000, "d");
  const user = { role: "user", content: "go on" };
  assert.equal((await chat.beforeSend(original, user, summarize)).status, CompressionStatus.COMPRESSED);
  original.push(user);
  let compactions = 1;
  for (let i = 0; i < 20; i++) {
    original.push({ role: "assistant", content: `answer ${i} ${"z".repeat(4_000)}` });
    const next = { role: "user", content: `question ${i} ${"y".repeat(4_000)}` };
    const found = chat.reapply(original);
    assert.notEqual(found.match, "diverged");
    const done = await chat.beforeSend(found.history, next, summarize);
    const sent = [...done.history, next];
    chat.reportUsage({ prompt_tokens: cc.estimateContentTokens(sent, { format: "openai", estimator: "reference" }) });
    original.push(next);
    if (done.status === CompressionStatus.COMPRESSED) {
      compactions += 1;
      const again = chat.reapply(clone(original));
      assert.equal(again.match, "applied");
      assert.deepEqual(again.history, sent);
      assert.equal(again.covered, sent.length);
    }
  }
  assert.ok(compactions >= 3, `${compactions}`);
});

test("beforeSend counts every pending message (parallel tool results)", async () => {
  const chat = new ChatCompactor({ window: 32_000, format: "openai", estimator: "reference" });
  chat.reportUsage({ prompt_tokens: 10_000, completion_tokens: 100 });
  const history = [
    { role: "user", content: "read both" },
    { role: "assistant", content: null, tool_calls: ["a", "b"].map((id) => ({ id, type: "function", function: { name: "read", arguments: "{}" } })) },
  ];
  const result = (id) => ({ role: "tool", tool_call_id: id, content: "x".repeat(13_000) });
  const one = await chat.beforeSend(history, result("a"), summarize);
  const both = await chat.beforeSend(history, [result("a"), result("b")], summarize);
  assert.ok(both.estimate - 10_100 >= 2 * (one.estimate - 10_100) - 1, `${one.estimate} / ${both.estimate}`);
});

test("setOverhead declares the fixed part: tokens, none, or the call's system prompt and tools", () => {
  const chat = newChat();
  assert.equal(chat.setOverhead(1_234), 1_234);
  assert.equal(chat.save().options.overheadTokens, 1_234);
  assert.equal(chat.setOverhead(null), null);
  assert.equal(chat.save().options.overheadTokens, undefined);
  const tokens = chat.setOverhead({ system: "You are a coding agent.", tools: [{ name: "read_file", parameters: { type: "object" } }] });
  assert.ok(tokens > 10 && tokens < 200, `${tokens}`);
  assert.throws(() => chat.setOverhead("lots"), { code: "INVALID_ARGUMENT" });
  assert.throws(() => chat.setOverhead(NaN), { code: "INVALID_ARGUMENT" });
  assert.throws(() => chat.setOverhead(-1), { code: "INVALID_ARGUMENT" });
});

/**
 * Whether `reapply` takes message `y` for message `x`: a prompt `[x]` the
 * usage measured is found again (as the anchor) at the start of `[y, …]`.
 */
function sameMessage(x, y) {
  const chat = newChat();
  try {
    chat.reapply([x]);
    chat.reportUsage({ prompt_tokens: 100, completion_tokens: 1 });
    return chat.reapply([y, { role: "user", content: "next" }]).covered === 1;
  } finally {
    chat.free();
  }
}

test("messages are matched by their JSON text: the same text matches, any other does not", () => {
  const long = "fn parse(input: &str) -> Span { todo!() }\n".repeat(40);
  const date = new Date(Date.UTC(2026, 0, 2));
  const cases = [
    // [x, y]: the same JSON text, written from different values
    [{ a: 1, b: undefined, f() {} }, { a: 1 }],
    [{ n: NaN, m: -Infinity, z: -0 }, { n: null, m: null, z: 0 }],
    [[1, , undefined, () => 1, Symbol("s")], [1, null, null, null, null]],
    [{ when: date, v: { toJSON: () => "x" }, gone: { toJSON: () => undefined } }, { when: date.toISOString(), v: "x" }],
    [[new String("s"), new Number(2), new Boolean(false)], ["s", 2, false]],
    [{ big: 1e21, sum: 0.1 + 0.2 }, JSON.parse('{"big":1000000000000000000000,"sum":0.30000000000000004}')],
    [{ text: long, [long]: long }, JSON.parse(JSON.stringify({ text: long, [long]: long }))],
    [Object.assign(Object.create(null), { role: "user" }), { role: "user" }],
    [new Map([["k", 1]]), {}],
    [Object.assign([1], { extra: 2 }), [1]],
    // other texts
    [{ a: 1, b: 2 }, { b: 2, a: 1 }],
    [["ab"], ["a", "b"]],
    [{ a: "b" }, ["a", "b"]],
    [[[]], []],
    [{ a: {} }, { a: [] }],
    [{ "": "" }, {}],
    [[1, [2]], [[1], 2]],
    ["1", 1],
    ["true", true],
    ["null", null],
    [{ text: long }, { text: long.slice(0, 800) + "X" + long.slice(801) }],
    [{ text: long }, { text: long + " " }],
    ["\ud800", "\ufffd"],
    [{ content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }, { content: [{ type: "text", text: "ab" }] }],
  ];
  for (const [x, y] of cases) {
    const same = JSON.stringify(x) === JSON.stringify(y);
    assert.equal(sameMessage(x, y), same, `${JSON.stringify(x)?.slice(0, 80)} / ${JSON.stringify(y)?.slice(0, 80)}: the same text ${same}`);
  }
});

test("property: reapply matches two messages exactly when their JSON texts are equal", () => {
  const values = fc.anything({
    maxDepth: 3,
    withBoxedValues: true,
    withDate: true,
    withMap: true,
    withNullPrototype: true,
    withSparseArray: true,
    withTypedArray: true,
    withObjectString: true,
  });
  const long = fc.string({ minLength: 128, maxLength: 400, unit: "binary" });
  const message = fc.oneof(values, fc.record({ role: fc.constant("tool"), content: fc.oneof(long, values) }));
  // A message's text as the chat reads it: `undefined` is null.
  const jsonText = (value) => (value === undefined ? "null" : JSON.stringify(value));
  // The same members in the other order (the same text only where no object has two keys to swap).
  const reversed = (value) => {
    if (Array.isArray(value)) return value.map(reversed);
    if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return value;
    return Object.fromEntries(Object.entries(value).reverse().map(([k, v]) => [k, reversed(v)]));
  };
  const partners = {
    reparsed: (x) => JSON.parse(jsonText(x)), // the same text, from other values (NaN → null, Date → string, …)
    reversed,
    other: (_x, other) => other,
  };
  fc.assert(
    fc.property(message, message, fc.constantFrom(...Object.keys(partners)), (x, other, partner) => {
      const y = partners[partner](x, other);
      return sameMessage(x, y) === (jsonText(x) === jsonText(y));
    }),
    { numRuns: 300 },
  );
});

test("a getter that fingerprints other messages meanwhile does not change the message's fingerprint", () => {
  const other = newChat();
  const busy = {
    role: "user",
    get content() {
      other.reapply([{ role: "user", content: "x".repeat(300) }, { role: "assistant", content: "y" }]);
      return "hello";
    },
  };
  assert.ok(sameMessage(busy, { role: "user", content: "hello" }));
  assert.ok(sameMessage({ role: "user", content: "hello" }, busy));
  other.free();
});

test("a message JSON cannot write is INVALID_CONTENT, in JSON.stringify's words", () => {
  const chat = newChat();
  const cyclic = { role: "user" };
  cyclic.self = cyclic;
  assert.throws(() => chat.reapply([cyclic]), { code: "INVALID_CONTENT", message: /circular/i });
  assert.throws(() => chat.reapply([{ n: 1n }]), { code: "INVALID_CONTENT", message: /BigInt/ });
  const boom = new Error("getter says no");
  assert.throws(() => chat.reapply([{ get content() { throw boom; } }]), (error) => error.code === "INVALID_CONTENT" && error.cause === boom);
  assert.throws(() => chat.reapply([() => 1]), { code: "INVALID_CONTENT" });
  chat.free();
});

/** The fingerprints of states saved before the walk: FNV-1a over each message's JSON text, folded. */
function textFold(messages) {
  const fnv = (text, seed) => {
    let a = 0x811c9dc5;
    let b = 0x050c5d1f;
    const units = seed + text;
    for (let i = 0; i < units.length; i++) {
      const u = units.charCodeAt(i);
      a = Math.imul(a ^ u, 0x01000193);
      b = Math.imul(b ^ u, 0x01000193) ^ (b >>> 15);
    }
    return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0");
  };
  return messages.reduce((fold, m) => fnv(fnv(JSON.stringify(m), ""), fold), "");
}

test("a state saved before the walk (no `fingerprints`) keeps its compaction", async () => {
  const chat = newChat();
  const history = conversation(12, 1_000, "e");
  const user = { role: "user", content: "go on" };
  const done = await chat.beforeSend(history, user, summarize);
  assert.equal(done.status, CompressionStatus.COMPRESSED);
  const saved = chat.save();
  assert.equal(saved.fingerprints, 2);
  const prompt = clone([...history, user, { role: "assistant", content: "done" }]);
  const expected = chat.reapply(clone(prompt)).history;
  // The same state as the previous version wrote it.
  const { fingerprints, anchor, sending, ...older } = saved;
  const n = saved.compaction.replaced[0];
  older.compaction = { ...saved.compaction, replaced: [n, textFold(history.slice(0, n))] };
  assert.notEqual(older.compaction.replaced[1], saved.compaction.replaced[1], "the two ways differ");
  const restored = ChatCompactor.restore(clone(older));
  const found = restored.reapply(clone(prompt));
  assert.equal(found.match, "applied");
  assert.deepEqual(found.history, expected);
  assert.equal(restored.save().fingerprints, undefined, "still written the older way while its prefixes need it");
  // Once nothing needs the older fingerprints (an edited conversation), the chat moves to the walk.
  assert.equal(restored.reapply(conversation(2, 10, "f")).match, "diverged");
  restored.reapply(conversation(2, 10, "f"));
  assert.equal(restored.save().fingerprints, 2);
  assert.throws(() => ChatCompactor.restore({ ...saved, fingerprints: 3 }), { code: "INVALID_STATE" });
});

test("the fingerprints of `fingerprints: 2` are stable: a prompt's fold is the one earlier releases saved", () => {
  // Stored states outlive a release (the AI SDK adapter's store): the walk's
  // stream may get faster, never different. The fold below was written by the
  // release before the walk's string fast path (18b79b8); every kind of value
  // is in the prompt: short and long strings, non-ASCII, numbers (negative,
  // fractional, -0, 1e21), booleans, null, nesting, an undefined member.
  const prompt = [
    { role: "system", content: "You are a coding agent. Καλημέρα — 日本語 ✓ \u{1F600}" },
    { role: "user", content: [{ type: "text", text: "Read src/lib.rs and ".repeat(10) }] },
    { role: "assistant", content: [{ type: "tool-call", toolCallId: "call_1", toolName: "read_file", input: { path: "src/lib.rs", lines: [1, 200], exact: true, encoding: null, ratio: -0.125, big: 1e21 } }] },
    { role: "tool", content: [{ type: "tool-result", toolCallId: "call_1", toolName: "read_file", output: { type: "json", value: { ok: false, text: "fn main() {}\n".repeat(12), nested: [[], {}, [null, 0, -0, 3.5]] } } }], providerOptions: undefined },
    { role: "assistant", content: [{ type: "text", text: "Done." }] },
  ];
  const chat = new ChatCompactor({ window: 32_000, format: "ai-sdk" });
  chat.reapply(prompt);
  assert.deepEqual(chat.save().sending, [5, "6d5b76e026dbcbb3"]);
  chat.free();
});
