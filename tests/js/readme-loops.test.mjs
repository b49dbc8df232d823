// The README's tool loops (tests/js/readme-loops/*.mts), compiled and run as
// printed: `tsc --strict` type-checks them against the SDKs' own types and
// the package's declarations and emits JS; each imports "compaction-core",
// "compaction-core/summarizers" and its real SDK, configured by the SDK's own
// environment variables to talk to the local mock (mock-providers.mjs), which
// validates every request and answers a bad one with a 400. A child process
// runs each loop until it has compacted twice.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { startMock } from "./mock-providers.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const SENDS = 45; // two compactions need about 36 sends at a 48 000 window
const run = promisify(execFile);
const SDKS = ["openai", "@anthropic-ai/sdk", "@google/genai", "ai", "@ai-sdk/openai"];

let mock;
let dir;
before(async () => {
  mock = await startMock({ lifetimeMs: 600_000 });
  // The snippets resolve "compaction-core" to the built package and the SDKs to the tests' own.
  dir = mkdtempSync(path.join(tmpdir(), "readme-loops-"));
  cpSync(path.join(here, "readme-loops"), path.join(dir, "readme-loops"), { recursive: true });
  cpSync(path.join(here, "mock-providers.mjs"), path.join(dir, "mock-providers.mjs"));
  const modules = path.join(dir, "node_modules");
  mkdirSync(path.join(modules, "@anthropic-ai"), { recursive: true });
  mkdirSync(path.join(modules, "@google"));
  mkdirSync(path.join(modules, "@ai-sdk"));
  symlinkSync(path.join(root, "pkg"), path.join(modules, "compaction-core"), "dir");
  // The SDKs of tests/node_modules, or the current majors' (tests/sdk-current/hooks.mjs sets this).
  const sdks = process.env.COMPACTION_SDK_MODULES ?? path.join(root, "tests/node_modules");
  for (const name of SDKS) symlinkSync(path.join(sdks, name), path.join(modules, name), "dir");
  // Strict, as a TypeScript host would compile them; the SDKs' own .d.ts are not ours to check.
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({
    compilerOptions: {
      target: "es2022", module: "esnext", moduleResolution: "bundler", strict: true, allowJs: true,
      outDir: "out", rootDir: ".", skipLibCheck: true, lib: ["es2022", "esnext.disposable", "dom"], types: [],
    },
    include: ["readme-loops/*.mts"],
  }));
  await run(path.join(root, "tests/node_modules/.bin/tsc"), ["-p", "tsconfig.json"], { cwd: dir, timeout: 240_000 })
    .catch((error) => assert.fail(`tsc rejected the README loops:\n${error.stdout}${error.stderr}`));
  writeFileSync(path.join(dir, "out", "readme-loops", "drive.mjs"), `
const { send, chat } = await import(\`./\${process.argv[2]}.mjs\`);
// A small window, so the run compacts in tens of sends (docs/guides/ai-sdk.md's
// wrapped model has no chat of its own to set: it gives its window in the wrap).
chat?.setWindow(48_000);
for (let i = 0; i < ${SENDS}; i++) {
  const answer = await send(\`Step \${i}: refactor src/mod\${i}.rs.\`);
  if (typeof answer !== "string" || answer === "") throw new Error(\`send \${i} answered \${JSON.stringify(answer)}\`);
}
console.log(JSON.stringify({ lastPromptTokenCount: chat?.lastPromptTokenCount ?? null, consecutiveFailures: chat?.consecutiveFailures ?? 0 }));
`);
});
after(async () => {
  await mock.close();
  rmSync(dir, { recursive: true, force: true });
});

// The AI SDK loops keep every step's messages (responseMessages in ai 7, whose
// response.messages holds the last step's only; response.messages in ai 6)
// and report the last step's usage: the same loop as printed runs under both
// majors (tests/sdk-current runs this file against ai 7).
for (const [name, provider] of [["openai", "openai"], ["anthropic", "anthropic"], ["gemini", "gemini"], ["ai-sdk", "openai"], ["ai-sdk-wrap", "openai"]]) {
  test(`README loop, ${name}: runs as printed and compacts twice, every request valid`, async () => {
    const before = mock.state.requests.length;
    const env = {
      PATH: process.env.PATH,
      OPENAI_API_KEY: "test-key", OPENAI_BASE_URL: `${mock.url}/openai/v1`,
      ANTHROPIC_API_KEY: "test-key", ANTHROPIC_BASE_URL: `${mock.url}/anthropic`,
      GEMINI_API_KEY: "test-key", GOOGLE_GEMINI_BASE_URL: `${mock.url}/gemini`,
    };
    const { stdout } = await run(process.execPath, [path.join(dir, "out", "readme-loops", "drive.mjs"), name], { env, timeout: 120_000 });
    const end = JSON.parse(stdout.trim().split("\n").at(-1));
    assert.equal(end.consecutiveFailures, 0, "no compaction failed");
    assert.deepEqual(mock.state.rejected, [], "the mock rejected no request");
    const mine = mock.state.requests.slice(before);
    assert.ok(mine.every((r) => r.provider === provider), `every request went to ${provider}`);
    assert.ok(mine.filter((r) => r.summary).length >= 2, `compacted at least twice (${mine.filter((r) => r.summary).length} summary requests)`);
    assert.ok(mine.some((r) => !r.summary && JSON.stringify(r.body).includes("read_file")), "the loop used its tool");
    if (provider === "openai" && end.lastPromptTokenCount !== null) {
      // The chat's count is the last call's usage (its prompt, and the answer that
      // follows it), not a sum over a tool loop's steps.
      const last = mine.at(-1);
      assert.ok(!last.summary && end.lastPromptTokenCount >= last.promptTokens && end.lastPromptTokenCount <= last.promptTokens + 40,
        `the chat counts ${end.lastPromptTokenCount} tokens; the last request's prompt was ${last.promptTokens}`);
    }
  });
}
