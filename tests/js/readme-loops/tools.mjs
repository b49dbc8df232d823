// The README loops' tools: what a host's own tools would be (the snippets
// import `runTool` from here). `read_file` answers with the long text the
// mock's sessions use, so a run fills its window in tens of sends.
import { toolOutput } from "../mock-providers.mjs";

/** Runs one tool call; the answer is the tool's output text. */
export async function runTool(name, args) {
  if (name !== "read_file") throw new Error(`unknown tool ${name}`);
  return toolOutput(String(args.path ?? "src/lib.rs"));
}
