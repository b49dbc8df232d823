// The summarize callbacks the simulator can hand to ChatCompactor: a local,
// deterministic stand-in (no model: it lists what it sees), a careless one
// (one generic line, as a weak model may write), the same stand-in made to
// fail in each way the library distinguishes, and a real OpenAI-compatible
// endpoint typed in by the user.

// The summary's opening tag, the bridge line and the sections the library's
// prompt asks for: the stand-in writes what the library expects, read from
// the library itself (`ladderConstants()`).
const SECTIONS = ["User intent and requirements", "Task status", "Files", "Decisions and constraints", "Next steps", "Tool calls summarized"];

/** Bullets of an earlier summary, per section, so that the new one folds them in. */
function earlierBullets(text) {
  const out = new Map(SECTIONS.map((s) => [s, []]));
  let section = null;
  for (const line of text.split("\n")) {
    if (line.startsWith("## ")) section = line.slice(3).trim();
    else if (line.startsWith("- ") && out.has(section)) out.get(section).push(line.slice(2));
  }
  return out;
}

/**
 * The stand-in: reads the messages of the summary request and writes a
 * snapshot in the sections the library's prompt asks for. It understands
 * nothing; it only collects the user's requests, which of them got a final
 * answer, the files the tools read and changed, and the tool calls.
 */
export function standInSummary(request, { summaryOpenTag, bridge }) {
  // The last message is the library's directive ("Write the snapshot…").
  const messages = request.contents.slice(0, -1);
  const requests = [];
  const status = [];
  const modified = new Set();
  const read = new Set();
  const toolCounts = new Map();
  let earlier = null;
  let open = null;
  for (const message of messages) {
    for (const part of message.parts ?? []) {
      if (typeof part.text === "string" && message.role !== "model") {
        if (part.text.trimStart().startsWith(summaryOpenTag)) earlier = earlierBullets(part.text);
        else if (part.text !== bridge) { open = part.text; requests.push(part.text); }
      } else if (part.functionCall) {
        const { name, args = {} } = part.functionCall;
        toolCounts.set(name, (toolCounts.get(name) ?? 0) + 1);
        const file = args.file_path ?? args.path;
        if (file) (name === "replace" || name === "write_file" ? modified : read).add(file);
      } else if (typeof part.text === "string" && message.role === "model" && part.text.startsWith("Done.") && open) {
        status.push(`done: ${open}`);
        open = null;
      }
    }
  }
  if (open) status.push(`in progress: ${open}`);
  for (const file of modified) read.delete(file);

  const carried = (section) => earlier?.get(section) ?? [];
  const unique = (list) => [...new Set(list)];
  const counts = new Map(toolCounts);
  for (const line of carried("Tool calls summarized")) {
    const m = /^(\S+) ×(\d+)$/.exec(line);
    if (m) counts.set(m[1], (counts.get(m[1]) ?? 0) + Number(m[2]));
  }
  const body = {
    "User intent and requirements": unique([...carried("User intent and requirements"), ...requests]).slice(-30),
    "Task status": unique([...carried("Task status").map((s) => s.replace(/^in progress: /, "done or superseded: ")), ...status]).slice(-30),
    Files: unique([...carried("Files"), ...[...modified].map((f) => `modified: ${f}`), ...[...read].map((f) => `read: ${f}`)]),
    "Decisions and constraints": ["(not extracted: this local stand-in does not read the model's reasoning)"],
    "Next steps": [open ? `continue: ${open}` : "wait for the user's next request"],
    "Tool calls summarized": [...counts].map(([name, n]) => `${name} ×${n}`),
  };
  return SECTIONS.map((s) => `## ${s}\n${body[s].map((b) => `- ${b}`).join("\n")}`).join("\n");
}

/**
 * What the careless stand-in answers, whatever it is given: a summary that
 * names no file and none of the user's requirements. The library's ledger
 * adds them after it (the section "Recorded by compaction").
 */
export const CARELESS_SUMMARY = "The user and the assistant worked on the code base; the work is going well.";

/** Flattens one message for a text-only chat API. */
function messageText(content) {
  return (content.parts ?? []).map((p) => {
    if (typeof p.text === "string") return p.text;
    if (p.functionCall) return `[tool call ${p.functionCall.name} ${JSON.stringify(p.functionCall.args ?? {})}]`;
    if (p.functionResponse) return `[tool result ${p.functionResponse.name}: ${JSON.stringify(p.functionResponse.response ?? {})}]`;
    return JSON.stringify(p);
  }).join("\n");
}

/** The summary request as an OpenAI-compatible chat completion (see src/summary_request.rs). */
async function endpointSummary(request, endpoint, signal) {
  const { url, key, model } = endpoint;
  if (!url) throw new Error("no endpoint URL: type one, or pick the local stand-in");
  const body = {
    model,
    messages: [
      { role: "system", content: request.systemInstruction },
      ...request.contents.map((c) => ({ role: c.role === "model" ? "assistant" : "user", content: messageText(c) })),
    ],
    max_tokens: request.config.maxOutputTokens,
  };
  const headers = { "content-type": "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  const response = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal });
  if (!response.ok) throw new Error(`the endpoint answered ${response.status} ${response.statusText}: ${(await response.text()).slice(0, 300)}`);
  const data = await response.json();
  const choice = data.choices?.[0];
  return { text: choice?.message?.content ?? "", finishReason: choice?.finish_reason ?? undefined, usage: data.usage };
}

/** The labels the log shows for each mode. */
export const SUMMARIZER_LABELS = {
  standin: "local stand-in",
  careless: "careless stand-in (one generic line)",
  throw: "stand-in that throws",
  empty: "stand-in returning an empty summary",
  truncated: "stand-in stopping at MAX_TOKENS",
  endpoint: "your endpoint",
};

/**
 * The summarize callback for `mode`. `constants` are the library's
 * (`ladderConstants()`). `onRequest` sees each request (the page
 * shows its output cap and thinking setting). `getSignal` gives the abort
 * signal of the run in flight.
 */
export function makeSummarizer(mode, { constants, endpoint, onRequest, getSignal }) {
  return async (request) => {
    onRequest?.(request);
    switch (mode) {
      case "careless":
        return { text: CARELESS_SUMMARY, finishReason: "STOP" };
      case "throw":
        throw new Error("the stand-in summarizer failed on purpose (switch: throws)");
      case "empty":
        return { text: "", finishReason: "STOP" };
      case "truncated": {
        const text = standInSummary(request, constants);
        return { text: text.slice(0, Math.ceil(text.length / 2)), finishReason: "MAX_TOKENS" };
      }
      case "endpoint":
        return endpointSummary(request, endpoint, getSignal?.());
      default:
        return { text: standInSummary(request, constants), finishReason: "STOP" };
    }
  };
}
