import { ChatCompactor, computeThresholds, formatContextReport, estimateContentTokens } from "compaction-core";

const t = computeThresholds(200_000);
const n = estimateContentTokens([{ role: "user", parts: [{ text: "hello world" }] }]);

// A history in the AI SDK's ModelMessage shape (format "ai-sdk"), compacted
// in the browser: the system message stays first, the summary comes back as
// an AI SDK message, never Gemini-shaped.
const history = [{ role: "system", content: "You are a coding agent." }];
for (let i = 0; i < 30; i++) {
  history.push({ role: "user", content: `Step ${i}: refactor src/m${i}.rs, keeping the public API.` });
  history.push({ role: "assistant", content: [{ type: "tool-call", toolCallId: `t${i}`, toolName: "read_file", input: { path: `src/m${i}.rs` } }] });
  history.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `t${i}`, toolName: "read_file", output: { type: "text", value: `fn f${i}(x: u32) -> u32 { x + ${i} }\n`.repeat(60) } }] });
  history.push({ role: "assistant", content: [{ type: "text", text: `Done with step ${i}.` }] });
}
const chat = new ChatCompactor({ window: 32_000, format: "ai-sdk" });
const result = await chat.beforeSend(history, { role: "user", content: "Go on." }, async () => ({ text: "The user is refactoring src/ step by step.", finishReason: "stop" }));
const sdk = {
  status: result.statusName,
  systemFirst: result.history[0] === history[0],
  summaryRole: result.history[1].role,
  geminiShaped: result.history.some((m) => "parts" in m || m.role === "model"),
};

document.getElementById("out").textContent = JSON.stringify({ auto: t.auto, tokens: n }) + "\n" + formatContextReport(150_000, 200_000)
  + "\n" + JSON.stringify(sdk);
document.body.dataset.ready = "yes";
