// Histories in the providers' own shapes through the built package
// (the message formats, docs/api.md): OpenAI, Anthropic, AI SDK, LangChain
// and Responses API messages in, the same shape out,
// system messages pinned first, tool results never kept without their call;
// a shape that does not match the format is an error, never 0 tokens; the
// model table; the reference's status names; the SDKs' usage objects.
import { test } from "node:test";
import assert from "node:assert/strict";

import { cc } from "./helpers.mjs";
const { ChatCompactor, CompressionStatus, estimateContentTokens, modelLimits } = cc;

const WINDOW = 128_000; // auto 95 000, hard 105 000
const pad = (n, c = "x") => c.repeat(n);
/** About `n` characters of varied words (a run of one letter would count as a few tokens). */
const words = (n, seed) => Array.from({ length: Math.ceil(n / 8) }, (_, i) => `w${(i * 7919 + seed) % 10007}`).join(" ").slice(0, n);
const GOOD = async () => ({ text: "## Task status\n- refactor in progress\n## Next steps\n- finish src/lib.rs", finishReason: "stop" });

/** An OpenAI chat: a system prompt, then `turns` user / assistant-with-tool-call / tool / assistant exchanges. */
function openaiHistory(turns) {
  const h = [{ role: "system", content: "You are a careful coding agent." }];
  for (let i = 0; i < turns; i++) {
    h.push({ role: "user", content: `Step ${i}: refactor src/mod${i}.rs. ${pad(1_500, "u")}` });
    h.push({
      role: "assistant",
      content: null,
      tool_calls: [
        { id: `call_${i}a`, type: "function", function: { name: "read_file", arguments: JSON.stringify({ path: `src/mod${i}.rs` }) } },
        { id: `call_${i}b`, type: "function", function: { name: "grep", arguments: JSON.stringify({ pattern: `fn f${i}` }) } },
      ],
    });
    h.push({ role: "tool", tool_call_id: `call_${i}a`, content: `fn f${i}() {}\n`.repeat(300) });
    h.push({ role: "tool", tool_call_id: `call_${i}b`, content: `src/mod${i}.rs:1: fn f${i}()` });
    h.push({ role: "assistant", content: `Done with step ${i}. ${pad(1_000, "m")}` });
  }
  return h;
}

/** An Anthropic conversation (the system prompt is the request's, outside the messages). */
function anthropicHistory(turns) {
  const h = [];
  for (let i = 0; i < turns; i++) {
    h.push({ role: "user", content: `Step ${i}: refactor src/mod${i}.rs. ${pad(1_500, "u")}` });
    h.push({ role: "assistant", content: [{ type: "text", text: "Reading it." }, { type: "tool_use", id: `toolu_${i}`, name: "read_file", input: { path: `src/mod${i}.rs` } }] });
    h.push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: `fn f${i}() {}\n`.repeat(300) }] });
    h.push({ role: "assistant", content: [{ type: "text", text: `Done with step ${i}. ${pad(1_000, "m")}` }] });
  }
  return h;
}

/** AI SDK ModelMessages. */
function aiSdkHistory(turns) {
  const h = [{ role: "system", content: "You are a careful coding agent." }];
  for (let i = 0; i < turns; i++) {
    h.push({ role: "user", content: `Step ${i}: refactor src/mod${i}.rs. ${pad(1_500, "u")}` });
    h.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `t${i}`, toolName: "read_file", input: { path: `src/mod${i}.rs` } }] });
    h.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `t${i}`, toolName: "read_file", output: { type: "text", value: `fn f${i}() {}\n`.repeat(300) } }] });
    h.push({ role: "assistant", content: [{ type: "text", text: `Done with step ${i}. ${pad(1_000, "m")}` }] });
  }
  return h;
}

/** LangChain messages in the plain form LangChain coerces (tests/langchain/ passes real instances). */
function langchainHistory(turns) {
  const h = [{ type: "system", content: "You are a careful coding agent." }];
  for (let i = 0; i < turns; i++) {
    h.push({ type: "human", content: `Step ${i}: refactor src/mod${i}.rs. ${pad(1_500, "u")}` });
    h.push({ type: "ai", content: "", tool_calls: [{ id: `lc_${i}`, name: "read_file", args: { path: `src/mod${i}.rs` }, type: "tool_call" }] });
    h.push({ type: "tool", tool_call_id: `lc_${i}`, name: "read_file", content: `fn f${i}() {}\n`.repeat(300) });
    h.push({ type: "ai", content: `Done with step ${i}. ${pad(1_000, "m")}`, tool_calls: [] });
  }
  return h;
}

/** Responses API input items: a reasoning item, the call, its output, the answer. */
function responsesHistory(turns) {
  const h = [{ role: "developer", content: "You are a careful coding agent." }];
  for (let i = 0; i < turns; i++) {
    h.push({ role: "user", content: `Step ${i}: refactor src/mod${i}.rs. ${pad(1_500, "u")}` });
    h.push({ type: "reasoning", id: `rs_${i}`, summary: [], encrypted_content: "gAAAAB" });
    h.push({ type: "function_call", id: `fc_${i}`, call_id: `call_${i}`, name: "read_file", arguments: JSON.stringify({ path: `src/mod${i}.rs` }) });
    h.push({ type: "function_call_output", call_id: `call_${i}`, output: `fn f${i}() {}\n`.repeat(300) });
    h.push({ type: "message", role: "assistant", status: "completed", content: [{ type: "output_text", text: `Done with step ${i}. ${pad(1_000, "m")}` }] });
  }
  return h;
}

/** The call ids a message makes and the ones it answers, per format. */
const ids = {
  openai: (m) => ({ calls: (m.tool_calls ?? []).map((c) => c.id), answers: m.role === "tool" ? [m.tool_call_id] : [] }),
  anthropic: (m) => ({
    calls: Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_use").map((b) => b.id) : [],
    answers: Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id) : [],
  }),
  "ai-sdk": (m) => ({
    calls: Array.isArray(m.content) ? m.content.filter((p) => p.type === "tool-call").map((p) => p.toolCallId) : [],
    answers: Array.isArray(m.content) ? m.content.filter((p) => p.type === "tool-result").map((p) => p.toolCallId) : [],
  }),
  langchain: (m) => {
    const f = m.lc === 1 ? m.kwargs : m;
    return { calls: (f.tool_calls ?? []).map((c) => c.id), answers: f.tool_call_id ? [f.tool_call_id] : [] };
  },
  "openai-responses": (m) => ({
    calls: m.type === "function_call" ? [m.call_id] : [],
    answers: m.type === "function_call_output" ? [m.call_id] : [],
  }),
};

/** What the providers require of a history: every result after its call, no Gemini shapes, and (Anthropic) alternating roles. */
function assertValid(format, history) {
  const seen = new Set();
  for (const [i, m] of history.entries()) {
    assert.ok(!("parts" in m), `history[${i}] is Gemini-shaped`);
    assert.notEqual(m.role, "model", `history[${i}] has role "model"`);
    const { calls, answers } = ids[format](m);
    for (const id of answers) assert.ok(seen.has(id), `history[${i}] answers ${id}, whose call is not in the history`);
    for (const id of calls) seen.add(id);
  }
  if (format === "anthropic") {
    for (let i = 1; i < history.length; i++) assert.notEqual(history[i].role, history[i - 1].role, `roles alternate at ${i}`);
  }
}

const FORMATS = {
  openai: openaiHistory,
  anthropic: anthropicHistory,
  "ai-sdk": aiSdkHistory,
  langchain: langchainHistory,
  "openai-responses": responsesHistory,
};

for (const [format, make] of Object.entries(FORMATS)) {
  test(`${format}: a long tool session compacts twice in its own shape, system first, no orphan result`, async () => {
    const chat = new ChatCompactor({ window: WINDOW, format });
    let history = make(40);
    const system = format === "anthropic" ? null : history[0];
    let compactions = 0;
    for (let turn = 0; turn < 60 && compactions < 2; turn++) {
      const next = { role: "user", content: `Turn ${turn}: go on.` };
      const r = await chat.beforeSend(history, next, GOOD);
      if (r.status === CompressionStatus.COMPRESSED) {
        compactions++;
        assertValid(format, r.history);
        if (system) {
          assert.equal(r.history[0], system, "the system message stays first, the host's own object");
          assert.ok(!r.replaced.includes(system), "the system message is never replaced");
        }
        // The kept tail is the host's own objects.
        const tail = history.slice(r.keptFrom);
        assert.deepEqual(r.history.slice(r.history.length - tail.length), tail);
        tail.forEach((m, i) => assert.equal(r.history[r.history.length - tail.length + i], m));
        history = r.history;
      } else {
        assert.equal(r.history, history);
      }
      // The turn goes on: the user's message and a long answer.
      history = [...history, next, { role: "assistant", content: `Answer ${turn}. ${words(12_000, turn)}` }];
      chat.reportUsage({ prompt_tokens: estimateContentTokens(history, { format, estimator: "conservative" }), completion_tokens: 3_000, total_tokens: null });
    }
    assert.equal(compactions, 2, "two compactions");
  });
}

test("a history in another format is INVALID_CONTENT naming the message and the format, never 0 tokens", () => {
  const history = openaiHistory(2);
  assert.throws(() => estimateContentTokens(history), (e) => e.code === "INVALID_CONTENT" && /pass format: "openai"/.test(e.message));
  const gemini = new ChatCompactor({ window: WINDOW });
  gemini.reportUsage({ totalTokenCount: 120_000 });
  return assert.rejects(gemini.beforeSend(history, { role: "user", content: "hi" }, GOOD), (e) => e.code === "INVALID_CONTENT");
});

test("the same conversation estimates within 2% in every format", () => {
  const counts = Object.entries(FORMATS).map(([format, make]) => {
    const h = make(6).filter((m) => m.role !== "system" && m.role !== "developer" && m.type !== "system");
    return estimateContentTokens(h, { format, estimator: "calibrated", tokenizer: "o200k" });
  });
  const [lo, hi] = [Math.min(...counts), Math.max(...counts)];
  assert.ok(hi / lo <= 1.02, `estimates ${counts}`);
});

test("modelLimits and the model option; an explicit window wins; an unknown model falls back with a warning", () => {
  assert.deepEqual([modelLimits("gpt-4o-2024-08-06").window, modelLimits("gpt-4o-2024-08-06").maxOutputTokens], [128_000, 16_384]);
  const unknown = modelLimits("my-own-model");
  assert.equal(unknown.known, false);
  assert.equal(unknown.window, 131_072);
  assert.match(unknown.warning, /131,?072/);
  assert.throws(() => modelLimits(5), (e) => e.code === "INVALID_ARGUMENT");
  assert.equal(new ChatCompactor({ model: "gpt-4o" }).window, 128_000);
  assert.equal(new ChatCompactor({ model: "gpt-4o" }).save().options.maxOutputTokens, 16_384);
  assert.equal(new ChatCompactor({ model: "gpt-4o", window: 64_000 }).window, 64_000);
});

test("CompressionStatus carries the reference's member names with the same numbers", () => {
  assert.equal(CompressionStatus.COMPRESSION_FAILED_INFLATED_TOKEN_COUNT, CompressionStatus.INFLATED);
  assert.equal(CompressionStatus.COMPRESSION_FAILED_TOKEN_COUNT_ERROR, 3);
  assert.equal(CompressionStatus.COMPRESSION_FAILED_EMPTY_SUMMARY, CompressionStatus.EMPTY_SUMMARY);
  assert.equal(CompressionStatus.COMPRESSION_FAILED_OUTPUT_TRUNCATED, CompressionStatus.OUTPUT_TRUNCATED);
  assert.equal(CompressionStatus[2], "INFLATED", "the reverse mapping keeps the library's names");
});

test("usage as the SDKs declare it: nulls, camelCase, whole responses; reasoning tokens are not counted", () => {
  const chat = new ChatCompactor({ window: WINDOW });
  chat.reportUsage({ input_tokens: 9_000, output_tokens: 500, cache_creation_input_tokens: null, cache_read_input_tokens: null });
  assert.equal(chat.lastPromptTokenCount, 9_500);
  chat.reportUsage({ usage: { inputTokens: 10_000, outputTokens: 1_000, totalTokens: 11_000, outputTokenDetails: { reasoningTokens: 400 } } });
  assert.equal(chat.lastPromptTokenCount, 10_600, "the answer's reasoning tokens are not part of the next prompt");
  chat.reportUsage({ choices: [], usage: { prompt_tokens: 20_000, completion_tokens: 800, total_tokens: 20_800, completion_tokens_details: { reasoning_tokens: 300 } } });
  assert.equal(chat.lastPromptTokenCount, 20_500);
});
