import { createAgent, tool, HumanMessage, type BaseMessage } from "langchain";
import { ChatOpenAI } from "@langchain/openai";
import { z } from "zod";
import { compactionMiddleware } from "compaction-core/langchain";

const readFile = tool(async ({ path }) => `// ${path}\n${"fn helper() { let x = parse(input)?; }\n".repeat(150)}`, {
  name: "read_file",
  description: "Reads a file of the repository.",
  schema: z.object({ path: z.string() }),
});

const model = new ChatOpenAI({ model: "gpt-4o-mini" });
const agent = createAgent({
  model,
  tools: [readFile],
  systemPrompt: "You are a careful coding agent.",
  middleware: [
    compactionMiddleware({
      model, // the window and the tokenizer from the model (or pass window: 32_000)
      window: 32_000,
      summarizer: new ChatOpenAI({ model: "gpt-4o-mini" }),
      summaryMaxOutputTokens: 8_192, // see "What this adapter does not do yet"
      onCompaction: (r) => console.log(`compaction: ${r.statusName}, ${r.originalTokenCount} → ${r.newTokenCount} tokens`),
    }),
  ],
});

let messages: BaseMessage[] = [];
for (let turn = 0; turn < 12; turn++) {
  const result = await agent.invoke({ messages: [...messages, new HumanMessage(`Read src/mod${turn}.rs and src/lib${turn}.rs.`)] });
  messages = result.messages;
}
console.log(`${messages.length} messages kept`);
