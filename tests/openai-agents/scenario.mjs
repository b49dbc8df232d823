// The OpenAI Agents SDK run of issue 22, shared by tests/openai-agents/
// (the current SDK, Node 24) and tests/openai-agents-node20/ (the 0.14 line,
// the last whose openai dependency runs on Node 20): each passes its own
// installed packages. A tool-using agent with two parallel calls per turn
// runs 35 turns against the loopback Responses API mock that enforces a
// 32,000-token window (tests/js/mock-window.mjs), with a CompactionSession
// and the per-call guard.
import assert from "node:assert/strict";

import { startWindowMock } from "../js/mock-window.mjs";
import { CompactionSession, compactionGuard } from "../../pkg/openai-agents/index.mjs";
import { CompressionStatus } from "../../pkg/node/compaction_core.js";

export const WINDOW = 32_000;
export const TURNS = 35;

const NAMES = ["parse", "token", "lexer", "value", "input", "error", "state", "buffer", "scope", "symbol", "node", "visit", "emit", "span", "range", "cursor"];
/** `n` lines of varied Rust-like code (a tool's output), about 12 tokens a line. */
function code(n, seed) {
  const lines = [];
  for (let i = 0; i < n; i++) {
    const a = NAMES[(i * 7 + seed) % NAMES.length];
    const b = NAMES[(i * 11 + seed * 3) % NAMES.length];
    lines.push(`    let ${a}_${i} = ${b}.${a}(&${b}_${(i * 13 + seed) % 97})?;`);
  }
  return lines.join("\n");
}

/** The model's script: after the user, two parallel read_file calls; after their outputs, a short answer. */
function agentScript({ body, n }) {
  const last = typeof body.input === "string" ? { role: "user" } : body.input.at(-1);
  if ((last.role === "user" || last.type === "message" && last.role === "user") && body.tools?.length) {
    return {
      toolCalls: [
        { name: "read_file", arguments: JSON.stringify({ path: `src/a${n}.rs` }) },
        { name: "read_file", arguments: JSON.stringify({ path: `src/b${n}.rs` }) },
      ],
    };
  }
  return { text: `Both files read (${n}): they define the parser's helpers.` };
}

/** Runs the scenario with the given packages: `agents` (@openai/agents), `OpenAI` (openai's client class), `z` (zod). */
export async function runScenario({ agents, OpenAI, z, label }) {
  const { Agent, run, tool, setDefaultOpenAIClient, setOpenAIAPI, setTracingDisabled } = agents;
  const mock = await startWindowMock({ window: WINDOW, agent: agentScript, lifetimeMs: 200_000 });
  try {
    const client = new OpenAI({ apiKey: "test-key", baseURL: mock.baseURL, maxRetries: 0 });
    setDefaultOpenAIClient(client);
    setOpenAIAPI("responses");
    setTracingDisabled(true);
    const readFile = tool({
      name: "read_file",
      description: "Reads a file of the repository.",
      parameters: z.object({ path: z.string() }),
      execute: async ({ path }) => `// ${path}\nfn main() {\n${code(220, path.length * 31 + path.charCodeAt(5))}\n}`,
    });
    const agent = new Agent({
      name: "coder",
      instructions: "You are a careful coding agent. Read the files you are asked about, then answer briefly.",
      model: "gpt-4o-mini",
      tools: [readFile],
    });
    const results = [];
    const summarizer = { client, model: "gpt-4o-mini" };
    const session = new CompactionSession({ model: "gpt-4o-mini", window: WINDOW, summarizer, onCompaction: (r) => results.push(["session", r]) });
    const guard = compactionGuard({ model: "gpt-4o-mini", window: WINDOW, summarizer, onCompaction: (r) => results.push(["guard", r]) });
    let failures = 0;
    for (let t = 0; t < TURNS; t++) {
      try {
        await run(agent, `Turn ${t}: read src/a${t}.rs and src/b${t}.rs and tell me what they do.`, { session, callModelInputFilter: guard });
      } catch (error) {
        failures++;
        if (!/400|context length/i.test(String(error?.message))) throw error;
      }
    }
    const compacted = results.filter(([, r]) => r.status === CompressionStatus.COMPRESSED);
    const bySession = compacted.filter(([who]) => who === "session").length;
    const agentCalls = mock.state.requests.filter((r) => !r.summary);
    const summaries = mock.state.requests.filter((r) => r.summary);
    console.log(
      `# ${label}: ${TURNS} turns, ${agentCalls.length} model calls, ${compacted.length} compactions (${bySession} by the session, ` +
        `${compacted.length - bySession} by the guard), ${summaries.length} summary calls, ${mock.state.rejected.length} rejected (400), ` +
        `largest prompt ${mock.state.maxPrompt} of ${WINDOW}`,
    );
    assert.deepEqual(mock.state.rejected, [], "no request refused: none over the window, none malformed");
    assert.equal(failures, 0);
    assert.ok(compacted.length >= 2, `${compacted.length} compactions`);
    assert.equal(agentCalls.length, TURNS * 2, "two model calls a turn");
    // The stored items: the summary, then items every output of which follows its call.
    const items = await session.getItems();
    assert.ok(JSON.stringify(items).includes("<conversation-summary>"), "the session holds the summary");
    const called = new Set();
    for (const item of items) {
      if (item.type === "function_call") called.add(item.callId ?? item.call_id);
      if (item.type === "function_call_result" || item.type === "function_call_output") assert.ok(called.has(item.callId ?? item.call_id), "an output without its call");
    }
    for (const s of summaries) assert.ok(typeof s.body.max_output_tokens === "number" && s.body.max_output_tokens > 0, "the summary request carries its cap");
  } finally {
    await mock.close();
  }
}
