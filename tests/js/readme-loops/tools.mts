// The README loops' tools: what a host's own tools would be (the loops
// import `runTool` from here). `read_file` answers with the long text the
// mock's sessions use, so a run fills its window in tens of sends.
import { toolOutput } from "../mock-providers.mjs";

/** Runs one tool call; the answer is the tool's output text. */
export async function runTool(name: string, args: unknown): Promise<string> {
  if (name !== "read_file") throw new Error(`unknown tool ${name}`);
  const path = typeof args === "object" && args !== null && "path" in args ? String(args.path) : "src/lib.rs";
  return toolOutput(path);
}
