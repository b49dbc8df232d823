import { Agent, run, tool } from "@openai/agents";
import OpenAI from "openai";
import { z } from "zod";
import { CompactionSession, compactionGuard } from "compaction-core/openai-agents";

const readFile = tool({
  name: "read_file",
  description: "Reads a file of the repository.",
  parameters: z.object({ path: z.string() }),
  execute: async ({ path }) => `// ${path}\n${"fn helper() { let x = parse(input)?; }\n".repeat(150)}`,
});
const agent = new Agent({ name: "coder", instructions: "You are a careful coding agent.", model: "gpt-4o-mini", tools: [readFile] });

const summarizer = { client: new OpenAI(), model: "gpt-4o-mini", maxOutputTokens: 6_000 }; // see below the example
const limits = { model: "gpt-4o-mini", window: 32_000 };
const onCompaction = (r: { statusName: string }) => console.log(`compaction: ${r.statusName}`);
// The session compacts its items before each run; the guard each model call of a run.
const session = new CompactionSession({ ...limits, summarizer, onCompaction });
const callModelInputFilter = compactionGuard({ ...limits, summarizer, onCompaction });

for (let turn = 0; turn < 12; turn++) {
  const result = await run(agent, `Read src/mod${turn}.rs and src/lib${turn}.rs.`, { session, callModelInputFilter });
  console.log(result.finalOutput);
}
