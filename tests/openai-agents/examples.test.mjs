// docs/guides/openai.md's examples (tests/openai-agents/examples/*.ts),
// compiled with tsc --strict and run against the window mock with the real
// packages of this folder (the current @openai/agents and openai, Node 24).
import { test } from "node:test";
import assert from "node:assert/strict";
import { runExample, exampleAgent } from "../langchain/run-example.mjs";

test("docs/guides/openai.md: examples/session.ts (CompactionSession + compactionGuard) compiles, runs, compacts, no request refused", async () => {
  const { stdout, state } = await runExample("tests/openai-agents/examples/session.ts", "tests/openai-agents", exampleAgent);
  assert.deepEqual(state.rejected, []);
  assert.match(stdout, /compaction: COMPRESSED/);
});

test("docs/guides/openai.md: examples/responses-loop.ts (format: \"openai-responses\") compiles, runs, compacts, no request refused", async () => {
  const { stdout, state } = await runExample("tests/openai-agents/examples/responses-loop.ts", "tests/openai-agents", exampleAgent);
  assert.deepEqual(state.rejected, []);
  assert.match(stdout, /compaction: /);
  assert.match(stdout, /items kept/);
});
