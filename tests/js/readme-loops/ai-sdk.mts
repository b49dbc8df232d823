import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage } from "ai";
import { openai } from "@ai-sdk/openai";
import { ChatCompactor, CompressionStatus } from "compaction-core";
import { aiSdkSummarizer } from "compaction-core/summarizers";
import { runTool } from "./tools.mjs"; // yours: (name, args) => Promise<string>

const model = openai.chat("gpt-4o"); // OPENAI_API_KEY, OPENAI_BASE_URL; any AI SDK provider's model
export const chat = new ChatCompactor<ModelMessage>({ format: "ai-sdk", model: "gpt-4o" });
const summarize = aiSdkSummarizer(generateText, { model });
const tools = {
  read_file: tool({
    inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } } }),
    execute: (input) => runTool("read_file", input),
  }),
};
const system = "You are a coding agent.";
let history: ModelMessage[] = [];

export async function send(text: string): Promise<string> {
  const userMessage: ModelMessage = { role: "user", content: text };
  const result = await chat.beforeSend(history, userMessage, summarize);
  if (result.status === CompressionStatus.COMPRESSED) history = result.history;
  // The AI SDK runs the tool loop. The last step's usage measured the last prompt
  // (r.usage sums every step in ai 7); every step's messages are r.responseMessages
  // in ai 7 (r.response.messages is the last step's there), r.response.messages in ai 6.
  const r = await generateText({ model, system, messages: [...history, userMessage], tools, stopWhen: stepCountIs(10) });
  chat.reportUsage(r.steps[r.steps.length - 1].usage);
  const all: typeof r & { responseMessages?: ModelMessage[] } = r;
  history = [...history, userMessage, ...(all.responseMessages ?? r.response.messages)];
  return r.text;
}
