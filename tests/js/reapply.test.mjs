// A compaction that survives loops which rebuild the prompt (issue 21):
// `chat.reapply` puts the last compaction's head back in any prompt that
// starts with the messages it replaced (by content, not identity), leaves a
// prompt that has it already as it is, drops it for an edited conversation,
// keeps it across save/restore, and composes several compactions; the
// usage's anchor says what is pending. Also: `beforeSend` with an array of
// pending messages, and `setOverhead`.
import assert from "node:assert/strict";
import { test } from "node:test";
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
