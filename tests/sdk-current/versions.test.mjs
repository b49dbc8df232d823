// Run with hooks.mjs (scripts/test): the SDKs that tests/js/ imports are
// this folder's current majors, on Node 24.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const modules = fileURLToPath(new URL("node_modules/", import.meta.url));
const pinned = JSON.parse(readFileSync(new URL("package.json", import.meta.url), "utf8")).devDependencies;
const MAJORS = { openai: 7, "@anthropic-ai/sdk": 1, "@google/genai": 3, ai: 7, "@ai-sdk/openai": 4 };

test("Node 24 runs the current-SDK tests", () => {
  assert.match(process.version, /^v24\./);
});

test("tests/js/ resolves each SDK to this folder's current major", async () => {
  const { resolved } = await import("../js/sdk-resolve.mjs");
  for (const [name, major] of Object.entries(MAJORS)) {
    const file = fileURLToPath(resolved[name]);
    assert.ok(file.startsWith(modules), `${name} → ${file}`);
    const pkg = JSON.parse(readFileSync(`${modules}${name}/package.json`, "utf8"));
    assert.equal(pkg.version, pinned[name]);
    assert.equal(Number(pkg.version.split(".")[0]), major, name);
  }
  assert.equal(process.env.COMPACTION_SDK_MODULES, modules);
});
