// compaction-core/langchain with the real packages (issue 22): langchain's
// createAgent, @langchain/openai's ChatOpenAI and @langchain/core's messages
// and tools, against the loopback mock of /v1/chat/completions that enforces
// a 32,000-token window (tests/js/mock-window.mjs: HTTP 400 past it, every
// request's shape validated). A tool-using agent with two parallel calls per
// turn runs 35 turns; then the same run with LangChain's own
// summarizationMiddleware, measured (its figures go to
// docs/guides/langchain.md). Runs on Node 20 and 24 (scripts/test).
import { test } from "node:test";
import assert from "node:assert/strict";

import { createAgent, summarizationMiddleware, tool, HumanMessage, AIMessage, ToolMessage, SystemMessage } from "langchain";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";

import { startWindowMock } from "../js/mock-window.mjs";
import { compactionMiddleware } from "../../pkg/langchain/index.mjs";
import { ChatCompactor, CompressionStatus, estimateContentTokens } from "../../pkg/node/compaction_core.js";

const WINDOW = 32_000;
const TURNS = 35;

const NAMES = ["parse", "token", "lexer", "value", "input", "error", "state", "buffer", "scope", "symbol", "node", "visit", "emit", "span", "range", "cursor"];
/** `n` lines of varied Rust-like code (a tool's output: a file's contents), about 12 tokens a line. */
function code(n, seed) {
  const lines = [];
  for (let i = 0; i < n; i++) {
    const a = NAMES[(i * 7 + seed) % NAMES.length];
    const b = NAMES[(i * 11 + seed * 3) % NAMES.length];
    lines.push(`    let ${a}_${i} = ${b}.${a}(&${b}_${(i * 13 + seed) % 97})?;`);
  }
  return lines.join("\n");
}

/** The model's script: after the user, two parallel read_file calls; after the results, a short answer. */
function agentScript({ body, n }) {
  const last = body.messages.at(-1);
  if (last.role === "user" && body.tools?.length) {
    return {
      toolCalls: [
        { name: "read_file", arguments: JSON.stringify({ path: `src/a${n}.rs` }) },
        { name: "read_file", arguments: JSON.stringify({ path: `src/b${n}.rs` }) },
      ],
    };
  }
  return { text: `Both files read (${n}): they define the parser's helpers.` };
}

const readFile = tool(async ({ path }) => `// ${path}\nfn main() {\n${code(220, path.length * 31 + path.charCodeAt(5))}\n}`, {
  name: "read_file",
  description: "Reads a file of the repository.",
  schema: z.object({ path: z.string() }),
});

function chatModel(baseURL) {
  return new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test-key", configuration: { baseURL }, maxRetries: 0 });
}

/**
 * Runs `turns` user turns through an agent with `middleware`, the history
 * carried from one invoke to the next (what an app without a checkpointer
 * does). A failed invoke (a 400) is counted and the turn's message dropped.
 */
async function run(mock, middleware, turns = TURNS) {
  const agent = createAgent({
    model: chatModel(mock.baseURL),
    tools: [readFile],
    systemPrompt: "You are a careful coding agent. Read the files you are asked about, then answer briefly.",
    middleware: [middleware],
  });
  let messages = [];
  let failures = 0;
  for (let t = 0; t < turns; t++) {
    const ask = new HumanMessage(`Turn ${t}: read src/a${t}.rs and src/b${t}.rs and tell me what they do.`);
    try {
      const result = await agent.invoke({ messages: [...messages, ask] });
      messages = result.messages;
    } catch (error) {
      failures++;
      if (!/400|context length/i.test(String(error?.message))) throw error;
    }
  }
  return { messages, failures };
}

test("compactionMiddleware: 35 turns of parallel tool calls at 32,000 tokens, no request over the window, every request valid", async () => {
  const mock = await startWindowMock({ window: WINDOW, agent: agentScript, lifetimeMs: 180_000 });
  try {
    const results = [];
    const middleware = compactionMiddleware({
      model: chatModel(mock.baseURL),
      window: WINDOW,
      summarizer: chatModel(mock.baseURL),
      onCompaction: (r) => results.push(r),
    });
    const { messages, failures } = await run(mock, middleware);
    const compacted = results.filter((r) => r.status === CompressionStatus.COMPRESSED);
    const agentCalls = mock.state.requests.filter((r) => !r.summary);
    const summaries = mock.state.requests.filter((r) => r.summary);
    console.log(
      `# compaction-core/langchain: ${TURNS} turns, ${agentCalls.length} model calls, ${compacted.length} compactions, ` +
        `${summaries.length} summary calls, ${mock.state.rejected.length} rejected (400), largest prompt ${mock.state.maxPrompt} of ${WINDOW}`,
    );
    assert.deepEqual(mock.state.rejected, [], "no request refused: none over the window, none malformed");
    assert.equal(failures, 0);
    assert.ok(compacted.length >= 2, `${compacted.length} compactions`);
    assert.equal(agentCalls.length, TURNS * 2, "two model calls a turn (the calls, then the answer)");
    // The state after the run: the summary as a real HumanMessage, the kept
    // messages LangChain's own instances, every ToolMessage after its call.
    assert.ok(messages.every((m) => m instanceof HumanMessage || m instanceof AIMessage || m instanceof ToolMessage || m instanceof SystemMessage));
    assert.ok(messages.some((m) => m instanceof HumanMessage && String(m.content).includes("<conversation-summary>")));
    const called = new Set();
    for (const m of messages) {
      for (const c of m.tool_calls ?? []) called.add(c.id);
      if (m instanceof ToolMessage) assert.ok(called.has(m.tool_call_id), `ToolMessage ${m.tool_call_id} without its call`);
    }
    // The summary requests carried their cap (ChatOpenAI reads it from the instance).
    for (const s of summaries) assert.ok(typeof s.body.max_tokens === "number" && s.body.max_tokens > 0, JSON.stringify(Object.keys(s.body)));
    // The state is smaller than the window by the core's own count too.
    assert.ok(estimateContentTokens(messages, { format: "langchain" }) < WINDOW);
  } finally {
    await mock.close();
  }
});

test("the summarizer down: the ledger fallback (on by default) compacts without a model, no error text enters the history, no request is refused", async () => {
  const mock = await startWindowMock({ window: WINDOW, agent: agentScript, lifetimeMs: 120_000 });
  try {
    mock.state.summaryDown = true;
    const results = [];
    const middleware = compactionMiddleware({ model: chatModel(mock.baseURL), window: WINDOW, summarizer: chatModel(mock.baseURL), onCompaction: (r) => results.push(r) });
    const { messages, failures } = await run(mock, middleware, 12);
    const byLedger = results.filter((r) => r.status === CompressionStatus.COMPRESSED && r.method === "ledger");
    console.log(`# summarizer down: ${results.length} checks reported, ${byLedger.length} compactions by the ledger fallback, ${failures} failed turns, ${mock.state.rejected.length} rejected`);
    assert.ok(byLedger.length >= 1, JSON.stringify(results.map((r) => [r.statusName, r.method])));
    assert.deepEqual(mock.state.rejected, []);
    assert.equal(failures, 0);
    assert.ok(!messages.some((m) => /Error generating summary|Connection error/i.test(String(m.content))), "no error text in the history");
  } finally {
    await mock.close();
  }
});

test("LangChain's summarizationMiddleware on the same run, measured (trigger 22,400 tokens: the core's auto threshold at this window)", async () => {
  const mock = await startWindowMock({ window: WINDOW, agent: agentScript, lifetimeMs: 180_000 });
  try {
    const middleware = summarizationMiddleware({ model: chatModel(mock.baseURL), trigger: { tokens: 22_400 } });
    const { failures } = await run(mock, middleware);
    const isSummary = (r) => !r.body.tools?.length;
    const summaries = mock.state.requests.filter(isSummary);
    console.log(
      `# summarizationMiddleware: ${TURNS} turns, ${summaries.length} summaries, ${mock.state.rejected.length} rejected (400), ` +
        `${failures} failed turns, largest prompt ${mock.state.maxPrompt} of ${WINDOW}`,
    );
    // Measured, not judged: the figures are what the docs report.
    assert.ok(summaries.length + failures > 0, "the run reached the window");
  } finally {
    await mock.close();
  }
});

test("truncated and failed summaries, both middlewares (measured for the docs)", async () => {
  const figures = {};
  for (const [name, make] of [
    ["compactionMiddleware", (mock, summarizer) => compactionMiddleware({ model: chatModel(mock.baseURL), window: WINDOW, summarizer })],
    ["summarizationMiddleware", (mock, summarizer) => summarizationMiddleware({ model: summarizer, trigger: { tokens: 22_400 } })],
  ]) {
    for (const mode of ["down", "truncated"]) {
      const mock = await startWindowMock({ window: WINDOW, agent: agentScript, lifetimeMs: 120_000 });
      try {
        mock.state.summaryDown = mode === "down";
        // A summary model whose output stops at 40 tokens: every summary is cut.
        const summarizer = mode === "truncated"
          ? new ChatOpenAI({ model: "gpt-4o-mini", apiKey: "test-key", configuration: { baseURL: mock.baseURL }, maxRetries: 0, maxTokens: 40 })
          : chatModel(mock.baseURL);
        const { messages, failures } = await run(mock, make(mock, summarizer), 10);
        const text = messages.map((m) => String(typeof m.content === "string" ? m.content : JSON.stringify(m.content))).join("\n");
        figures[`${name} ${mode}`] = {
          summaryCalls: mock.state.requests.filter((r) => r.summary).length,
          errorTextInHistory: /Error generating summary/.test(text),
          cutSummaryInHistory: mode === "truncated" && messages.some((m) => m instanceof HumanMessage && /summary/i.test(String(m.content)) && String(m.content).length < 400),
          rejected: mock.state.rejected.length,
          failedTurns: failures,
        };
      } finally {
        await mock.close();
      }
    }
  }
  console.log(`# ${JSON.stringify(figures)}`);
  // Ours: never an error text, never a cut summary in the history.
  assert.equal(figures["compactionMiddleware down"].errorTextInHistory, false);
  assert.equal(figures["compactionMiddleware truncated"].cutSummaryInHistory, false);
  assert.ok(figures["compactionMiddleware truncated"].summaryCalls >= 1, "a summary was asked for");
});

test("the format reads LangChain's own instances: the kept tail is the caller's objects", async () => {
  const history = [new SystemMessage("Be brief.")];
  for (let t = 0; t < 12; t++) {
    history.push(new HumanMessage(`turn ${t}: ${code(30, t)}`));
    history.push(new AIMessage({ content: "", tool_calls: [{ id: `c${t}`, name: "read_file", args: { path: `f${t}` } }] }));
    history.push(new ToolMessage({ content: code(200, t + 100), tool_call_id: `c${t}`, name: "read_file" }));
    history.push(new AIMessage(`done ${t}`));
  }
  const chat = new ChatCompactor({ window: WINDOW, format: "langchain" });
  const next = new HumanMessage("go on");
  const r = await chat.beforeSend(history, next, async () => ({ text: "## Task status\n- reading files", finishReason: "stop" }));
  assert.equal(r.status, CompressionStatus.COMPRESSED, r.statusName);
  assert.equal(r.history[0], history[0], "the system message stays first, the caller's own object");
  const tail = history.slice(r.keptFrom);
  tail.forEach((m, i) => assert.equal(r.history[r.history.length - tail.length + i], m));
  // The library's own messages are LangChain's serialised form.
  assert.deepEqual(r.history[1].id, ["langchain_core", "messages", "HumanMessage"]);
  chat.free();
});
