import { generateText, jsonSchema, stepCountIs, tool, type ModelMessage } from "ai";
import { openai } from "@ai-sdk/openai";
import { withCompaction } from "compaction-core/ai-sdk";
import { runTool } from "./tools.mjs"; // yours: (name, args) => Promise<string>

// The one change to an existing agent: its model, wrapped. Every model call
// of the tool loop is checked, and compacted when due; the window comes from
// the model table by id unless given (48 000 here, to see it compact soon).
const model = withCompaction(openai.chat("gpt-4o"), { window: 48_000 });

const tools = {
  read_file: tool({
    inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } } }),
    execute: (input) => runTool("read_file", input),
  }),
};
const messages: ModelMessage[] = []; // the whole conversation, never compacted by you

export async function send(text: string): Promise<string> {
  messages.push({ role: "user", content: text });
  const r = await generateText({ model, system: "You are a coding agent.", messages, tools, stopWhen: stepCountIs(10) });
  // Every step's messages: r.responseMessages in ai 7 (r.response.messages is the last step's there), r.response.messages in ai 6.
  const all: typeof r & { responseMessages?: ModelMessage[] } = r;
  messages.push(...(all.responseMessages ?? r.response.messages));
  return r.text;
}
