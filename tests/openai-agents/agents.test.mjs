// The current @openai/agents (its openai 7 needs Node >= 22): run on Node 24
// (.node-version). The scenario is tests/openai-agents/scenario.mjs.
import { test } from "node:test";
import * as agents from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { runScenario } from "./scenario.mjs";

test("@openai/agents (current): CompactionSession + compactionGuard, 35 turns of parallel tool calls at 32,000 tokens, no request over the window", async () => {
  await runScenario({ agents, OpenAI, z, label: "@openai/agents current" });
});
