// The window-enforcing mock (mock-window.mjs) against the real SDKs that the
// framework tests drive through it: the `openai` client (chat completions and
// Responses, JSON and streaming) and the AI SDK's OpenAI provider. A mock
// that let an overflowing or malformed request through would make every
// "zero 400s" result of those tests worthless, so this checks that it refuses
// them, and that what it accepts, the SDKs parse.
import test from "node:test";
import assert from "node:assert/strict";
import OpenAI from "openai";
import { generateText, streamText, tool, jsonSchema, stepCountIs } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { startWindowMock, chatPromptTokens, SUMMARY_TEXT } from "./mock-window.mjs";

const words = (n) => Array.from({ length: n }, (_, i) => `word${i % 97}`).join(" ");

test("chat completions: a prompt plus cap over the window is a 400 with OpenAI's message; under it, an answer with exact usage", async () => {
  const mock = await startWindowMock({ window: 2_000 });
  try {
    const client = new OpenAI({ apiKey: "k", baseURL: mock.baseURL, maxRetries: 0 });
    const messages = [{ role: "user", content: words(300) }];
    const prompt = chatPromptTokens({ messages });
    assert.ok(prompt > 300 && prompt < 2_000, `prompt ${prompt}`);
    const ok = await client.chat.completions.create({ model: "gpt-4o", messages, max_completion_tokens: 2_000 - prompt });
    assert.equal(ok.usage.prompt_tokens, prompt);
    assert.equal(ok.choices[0].finish_reason, "stop");
    await assert.rejects(
      client.chat.completions.create({ model: "gpt-4o", messages, max_completion_tokens: 2_000 - prompt + 1 }),
      (e) => e.status === 400 && /maximum context length is 2000 tokens/.test(e.message),
    );
    await assert.rejects(client.chat.completions.create({ model: "gpt-4o", messages: [{ role: "user", content: words(3_000) }] }), (e) => e.status === 400);
    assert.equal(mock.state.rejected.length, 2);
    assert.equal(mock.state.maxPrompt, prompt);
  } finally {
    await mock.close();
  }
});

test("chat completions: orphan tool results, unanswered calls and string content where parts are due are refused", async () => {
  const mock = await startWindowMock();
  try {
    const client = new OpenAI({ apiKey: "k", baseURL: mock.baseURL, maxRetries: 0 });
    const call = { id: "c1", type: "function", function: { name: "f", arguments: "{}" } };
    const bad = [
      [{ role: "user", content: "hi" }, { role: "tool", tool_call_id: "c1", content: "x" }],
      [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [call] }, { role: "user", content: "next" }],
      [{ role: "assistant", content: [{ type: "image_url", image_url: { url: "data:," } }] }],
    ];
    for (const messages of bad) await assert.rejects(client.chat.completions.create({ model: "gpt-4o", messages }), (e) => e.status === 400);
    assert.equal(mock.state.rejected.length, 3);
    const good = [{ role: "user", content: "hi" }, { role: "assistant", content: null, tool_calls: [call] }, { role: "tool", tool_call_id: "c1", content: "x" }];
    await client.chat.completions.create({ model: "gpt-4o", messages: good });
    assert.equal(mock.state.requests.length, 1);
  } finally {
    await mock.close();
  }
});

test("a summary request is cut at its cap (finish_reason length), and fails with a 500 while the summarizer is down", async () => {
  const mock = await startWindowMock();
  try {
    const client = new OpenAI({ apiKey: "k", baseURL: mock.baseURL, maxRetries: 0 });
    const messages = [{ role: "system", content: "Summarize the conversation." }, { role: "user", content: "a long chat" }];
    const full = await client.chat.completions.create({ model: "gpt-4o", messages, max_completion_tokens: 5_000 });
    assert.equal(full.choices[0].message.content, SUMMARY_TEXT);
    const cut = await client.chat.completions.create({ model: "gpt-4o", messages, max_completion_tokens: 5 });
    assert.equal(cut.choices[0].finish_reason, "length");
    assert.equal(countTokens(cut.choices[0].message.content), 5);
    mock.state.summaryDown = true;
    await assert.rejects(client.chat.completions.create({ model: "gpt-4o", messages }), (e) => e.status === 500);
  } finally {
    await mock.close();
  }
});

test("Responses: items validated (an output without its call is refused), usage and truncation as the API reports them, JSON and streaming", async () => {
  const mock = await startWindowMock({ window: 4_000, agent: () => ({ text: "fine" }) });
  try {
    const client = new OpenAI({ apiKey: "k", baseURL: mock.baseURL, maxRetries: 0 });
    const input = [
      { type: "message", role: "user", content: [{ type: "input_text", text: "read it" }] },
      { type: "function_call", call_id: "c1", name: "read_file", arguments: "{}" },
      { type: "function_call_output", call_id: "c1", output: words(200) },
    ];
    const r = await client.responses.create({ model: "gpt-4o", input, instructions: "be brief" });
    assert.equal(r.output_text, "fine");
    assert.ok(r.usage.input_tokens > 200);
    await assert.rejects(client.responses.create({ model: "gpt-4o", input: input.slice(2) }), (e) => e.status === 400 && /No tool call found/.test(e.message));
    await assert.rejects(client.responses.create({ model: "gpt-4o", input: words(5_000) }), (e) => e.status === 400);
    const stream = await client.responses.create({ model: "gpt-4o", input, instructions: "be brief", stream: true });
    let text = "";
    let completed;
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") completed = event.response;
    }
    assert.equal(text, "fine");
    assert.equal(completed.usage.input_tokens, r.usage.input_tokens);
  } finally {
    await mock.close();
  }
});

test("the AI SDK's OpenAI provider (chat and Responses, generate and stream, a tool loop with parallel calls) runs against it", async () => {
  // Two parallel calls after each user message, then text.
  const agent = ({ api, body, n }) => {
    const last = api === "chat" ? body.messages.at(-1) : body.input.at(-1);
    if (body.tools?.length && last.role === "user") {
      return { toolCalls: [0, 1].map((i) => ({ name: "read_file", arguments: JSON.stringify({ path: `f${n}_${i}` }) })) };
    }
    return { text: `done ${n}` };
  };
  const mock = await startWindowMock({ agent });
  try {
    const provider = createOpenAI({ apiKey: "k", baseURL: mock.baseURL });
    const tools = {
      read_file: tool({
        description: "Read a file",
        inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }),
        execute: async ({ path }) => `contents of ${path}`,
      }),
    };
    for (const model of [provider.chat("gpt-4o"), provider.responses("gpt-4o")]) {
      const r = await generateText({ model, tools, stopWhen: stepCountIs(4), prompt: "read two files" });
      assert.equal(r.steps.length, 2);
      assert.equal(r.steps[0].toolCalls.length, 2);
      assert.match(r.text, /^done/);
      assert.ok(r.usage.inputTokens > 0);
      const s = streamText({ model, tools, stopWhen: stepCountIs(4), prompt: "read two files" });
      assert.match(await s.text, /^done/);
      assert.ok((await s.usage).inputTokens > 0);
    }
    assert.deepEqual(mock.state.rejected, []);
  } finally {
    await mock.close();
  }
});
