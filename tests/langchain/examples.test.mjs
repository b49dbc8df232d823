// docs/guides/langchain.md's example (tests/langchain/examples/agent.ts),
// compiled with tsc --strict and run against the window mock with the real
// packages of this folder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { runExample, exampleAgent } from "./run-example.mjs";

test("docs/guides/langchain.md: examples/agent.ts compiles, runs, compacts, and no request is refused", async () => {
  const { stdout, state } = await runExample("tests/langchain/examples/agent.ts", "tests/langchain", exampleAgent);
  assert.deepEqual(state.rejected, []);
  assert.match(stdout, /compaction: COMPRESSED/);
  assert.match(stdout, /messages kept/);
});
