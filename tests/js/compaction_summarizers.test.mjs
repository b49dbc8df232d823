// The summarizers of issue 22 that tests/langchain/ and tests/openai-agents/
// do not reach: Anthropic's on-demand server-side compaction (beta
// compact-2026-09-04) through the real @anthropic-ai/sdk's beta client,
// against the local mock (tests/js/mock-providers.mjs answers a request with
// `compaction: { type: "summarize" }` with one compaction block).
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import Anthropic from "@anthropic-ai/sdk";

import { cc } from "./helpers.mjs";
import { startMock, SUMMARY_TEXT } from "./mock-providers.mjs";

const { anthropicCompactionSummarizer } = createRequire(import.meta.url)("../../pkg/summarizers/index.cjs");
const { ChatCompactor, CompressionStatus } = cc;

let mock;
before(async () => {
  mock = await startMock();
});
after(async () => {
  await mock.close();
});

/** An Anthropic conversation of `turns` long exchanges. */
function history(turns) {
  const h = [];
  for (let i = 0; i < turns; i++) {
    h.push({ role: "user", content: `Step ${i}: refactor src/mod${i}.rs. ${"fn a() {}\n".repeat(300)}` });
    h.push({ role: "assistant", content: `Done with step ${i}.` });
  }
  return h;
}

test("anthropicCompactionSummarizer: the compaction block's readable content is the summary; the request carries the prompt, the cap and no system", async () => {
  const client = new Anthropic({ apiKey: "test-key-not-a-secret", baseURL: `${mock.url}/anthropic`, maxRetries: 0 });
  const chat = new ChatCompactor({ window: 48_000, model: "claude-3-5-haiku-20241022", format: "anthropic" });
  const before = mock.state.requests.length;
  const r = await chat.compact(history(12), anthropicCompactionSummarizer(client, { model: "claude-3-5-haiku-20241022" }));
  assert.equal(r.status, CompressionStatus.COMPRESSED, r.statusName);
  assert.ok(JSON.stringify(r.history[0]).includes("refactoring src/ module by module"), "the summary is the block's content");
  // The part to summarize may take several calls (each folds the summary so far in).
  const sent = mock.state.requests.slice(before).map((q) => q.body);
  assert.ok(sent.length >= 1);
  for (const body of sent) {
    assert.equal(body.compaction.type, "summarize");
    assert.match(body.compaction.instructions, /summar/i);
    assert.equal(body.system, undefined);
    assert.ok(body.max_tokens > 0 && body.max_tokens <= 8_192);
  }
  assert.ok(SUMMARY_TEXT.length > 0);
  chat.free();
});

test("anthropicCompactionSummarizer: a block without readable content is a failed run, the history unchanged", async () => {
  const client = new Anthropic({ apiKey: "test-key-not-a-secret", baseURL: `${mock.url}/anthropic`, maxRetries: 0 });
  const chat = new ChatCompactor({ window: 48_000, model: "claude-3-5-haiku-20241022", format: "anthropic" });
  mock.state.summaryFinish.anthropic = "unreadable";
  try {
    const h = history(12);
    const r = await chat.compact(h, anthropicCompactionSummarizer(client, { model: "claude-3-5-haiku-20241022" }));
    assert.equal(r.status, CompressionStatus.SUMMARIZER_FAILED, r.statusName);
    assert.equal(r.history, h);
    assert.match(String(r.cause?.message), /no readable summary/);
  } finally {
    mock.state.summaryFinish.anthropic = undefined;
    chat.free();
  }
});
