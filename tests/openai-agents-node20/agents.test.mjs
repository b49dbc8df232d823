// @openai/agents 0.14, the last line whose openai dependency (6.x) runs on
// Node 20: run on the system's Node 20. The scenario is
// tests/openai-agents/scenario.mjs.
import { test } from "node:test";
import * as agents from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { runScenario } from "../openai-agents/scenario.mjs";

test("@openai/agents 0.14: CompactionSession + compactionGuard, 35 turns of parallel tool calls at 32,000 tokens, no request over the window", async () => {
  await runScenario({ agents, OpenAI, z, label: "@openai/agents 0.14" });
});
