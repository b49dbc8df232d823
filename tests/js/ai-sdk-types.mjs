// A TypeScript consumer of compaction-core/ai-sdk, compiled with `tsc
// --strict` against the real AI SDK types: ai@6 (tests/node_modules) by
// tests/js/ai-sdk.test.mjs, ai@7 (tests/ai-sdk7/node_modules) by
// tests/ai-sdk7/ai-sdk7.test.mjs. Compiled only, never run.
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";

export const CONSUMER = (v7) => `
import { generateText, streamText, wrapLanguageModel, ToolLoopAgent, jsonSchema, tool } from "ai";
import { createOpenAI } from "@ai-sdk/openai";
import { withCompaction, compactionMiddleware, compactionPrepareStep, contextUsageMetadata, type CompactionEntry, type CompactionStore } from "compaction-core/ai-sdk";

const openai = createOpenAI({ apiKey: "test-key" });
const store: CompactionStore = new Map<string, unknown>();
// A typed store (say over Redis) tells the two entries the wrapper writes apart.
const written: string[] = [];
export const typed: CompactionStore = {
  get: async (key: string): Promise<unknown> => key,
  set: async (key: string, value: CompactionEntry) => written.push("alias" in value ? value.alias : \`\${key}@\${value.version}\`),
};
// The one-line wrap: the same model type comes back.
const model = withCompaction(openai.chat("gpt-4o-mini"), { window: 32_000, store, onCompaction: (r) => void r.replaced.length });
const tools = { read_file: tool({ inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } } }), execute: async ({ path }) => path }) };
export async function run(): Promise<string> {
  const a = await generateText({ model, prompt: "hi", tools });
  const wrapped = wrapLanguageModel({ model: openai.chat("gpt-4o-mini"), middleware: compactionMiddleware(${v7 ? '{ specificationVersion: "v4" }' : ""}) });
  const b = await generateText({ model: wrapped, prompt: "hi" });
  const prepareStep = compactionPrepareStep({ window: 32_000 });
  const c = await generateText({ model: openai.chat("gpt-4o-mini"), prompt: "hi", tools, prepareStep, onStepFinish: prepareStep.onStepFinish });
  const agent = new ToolLoopAgent({ model, tools });
  const d = await agent.generate({ prompt: "hi" });
  const s = streamText({ model, prompt: "hi" });
  const response: Response = s.toUIMessageStreamResponse({ messageMetadata: contextUsageMetadata() });
  return a.text + b.text + c.text + d.text + String(response.status);
}
`;

/** Compiles the consumer with `tsc --strict` in a temporary folder; rejects with tsc's output. */
export async function compileConsumer({ root, modules, v7 }) {
  const dir = mkdtempSync(path.join(tmpdir(), "ai-sdk-types-"));
  try {
    const nm = path.join(dir, "node_modules");
    mkdirSync(path.join(nm, "@ai-sdk"), { recursive: true });
    symlinkSync(path.join(root, "pkg"), path.join(nm, "compaction-core"), "dir");
    for (const name of ["ai", "@ai-sdk/openai", "@ai-sdk/provider", "@ai-sdk/provider-utils", "@standard-schema", "@opentelemetry", "zod", "@vercel", "@ai-sdk/gateway", "@workflow", "eventsource-parser", "json-schema"]) {
      try {
        symlinkSync(path.join(modules, name), path.join(nm, name), "dir");
      } catch {
        // Not every package exists in every install.
      }
    }
    writeFileSync(path.join(dir, "consumer.ts"), CONSUMER(v7));
    writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({
      compilerOptions: { target: "es2022", module: "nodenext", moduleResolution: "nodenext", strict: true, noEmit: true, skipLibCheck: true, lib: ["es2022", "dom"], types: [] },
      files: ["consumer.ts"],
    }));
    writeFileSync(path.join(dir, "package.json"), JSON.stringify({ type: "module" }));
    await promisify(execFile)(process.execPath, [path.join(modules, "typescript/bin/tsc"), "-p", dir], { timeout: 240_000 });
  } catch (error) {
    throw new Error(`tsc --strict rejected the consumer:\n${error.stdout ?? ""}${error.stderr ?? ""}${error.stdout === undefined ? error.message : ""}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
