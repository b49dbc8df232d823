// responsesCompaction (compaction-core/summarizers): OpenAI's responses.compact
// as a compaction, through the real openai 7 client against the window mock
// (tests/js/mock-window.mjs answers POST /v1/responses/compact with the
// input's user messages and one opaque compaction item). A Responses API
// loop with format "openai-responses": the item goes into the history just
// before the summary message (the library's note and ledger section), every
// later request carries it and is valid, none is over the window.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import OpenAI from "openai";

import { startWindowMock } from "../js/mock-window.mjs";
import { exampleAgent } from "../langchain/run-example.mjs";
import { ChatCompactor, CompressionStatus } from "../../pkg/node/compaction_core.js";

const { responsesCompaction } = createRequire(import.meta.url)("../../pkg/summarizers/index.cjs");

test("responsesCompaction: the compaction item before the summary, the loop goes on within the window", async () => {
  const mock = await startWindowMock({ window: 32_000, agent: exampleAgent, lifetimeMs: 120_000 });
  try {
    const client = new OpenAI({ apiKey: "test-key-not-a-secret", baseURL: mock.baseURL, maxRetries: 0 });
    const chat = new ChatCompactor({ format: "openai-responses", model: "gpt-4o-mini", window: 32_000, tokenizer: "o200k" });
    const compaction = responsesCompaction(client, { model: "gpt-4o-mini" });
    const tools = [{ type: "function", name: "read_file", description: "Reads a file", strict: false, parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];
    let input = [];
    const results = [];
    for (let turn = 0; turn < 14; turn++) {
      let pending = [{ role: "user", content: `Read src/mod${turn}.rs and src/lib${turn}.rs.` }];
      for (;;) {
        const r = await chat.beforeSend(input, pending, compaction.summarize);
        if (r.status !== CompressionStatus.NOOP) results.push(r);
        input = [...compaction.apply(r), ...pending];
        const response = await client.responses.create({ model: "gpt-4o-mini", instructions: "You are a careful coding agent.", input, tools, store: false });
        chat.reportUsage(response.usage);
        input = [...input, ...response.output];
        const calls = response.output.filter((i) => i.type === "function_call");
        if (calls.length === 0) break;
        pending = calls.map((c) => ({ type: "function_call_output", call_id: c.call_id, output: `// ${JSON.parse(c.arguments).path}\n${"fn helper() { let x = parse(input)?; }\n".repeat(150)}` }));
      }
    }
    const compacted = results.filter((r) => r.status === CompressionStatus.COMPRESSED);
    const compacts = mock.state.requests.filter((q) => q.api === "compact");
    console.log(`# responsesCompaction: ${compacted.length} compactions, ${compacts.length} responses.compact calls, ${mock.state.rejected.length} rejected, largest prompt ${mock.state.maxPrompt}`);
    assert.deepEqual(mock.state.rejected, []);
    assert.ok(compacted.length >= 1 && compacts.length >= 1);
    // The earlier compaction items stay, pinned, in their order; the last one is right before the summary.
    const items = input.filter((i) => i.type === "compaction");
    assert.equal(items.length, compacted.length, "one compaction item per compaction, none lost");
    const at = input.findLastIndex((i) => i.type === "compaction");
    assert.match(JSON.stringify(input[at + 1]), /compaction item just before this message/);
    assert.match(JSON.stringify(input[at + 1]), /conversation-summary/);
    chat.free();
  } finally {
    await mock.close();
  }
});
