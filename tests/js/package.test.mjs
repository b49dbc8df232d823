// The package as users get it: `npm pack`, installed into fresh consumers,
// used from ESM, CommonJS, TypeScript, a Vite app in Chromium, and the
// single-file build opened from file:// in Chromium.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { launch, open, serve } from "./browser.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const tools = resolve(root, "tests/node_modules/.bin");
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

let work, tarball, consumer, browser;

before(async () => {
  work = mkdtempSync(join(tmpdir(), "compaction-core-pack-"));
  run("npm", ["pack", join(root, "pkg"), "--pack-destination", work, "--silent"], root);
  tarball = join(work, readdirSync(work).find((f) => f.endsWith(".tgz")));
  consumer = join(work, "consumer");
  cpSync(join(here, "consumer"), consumer, { recursive: true });
  run("npm", ["install", "--no-audit", "--no-fund", "--silent", tarball], consumer);
  browser = await launch();
});

after(async () => {
  await browser?.close();
  rmSync(work, { recursive: true, force: true });
});

test("the tarball holds the four builds and no sources", () => {
  const files = run("tar", ["-tzf", tarball], work).split("\n").filter(Boolean);
  for (const f of ["package/package.json", "package/README.md", "package/web/compaction_core_bg.wasm",
    "package/bundler/compaction_core.js", "package/node/compaction_core.js", "package/inline/compaction_core.js",
    "package/inline/compaction_core.iife.js", "package/web/compaction_core.d.ts",
    "package/summarizers/index.js", "package/summarizers/index.cjs", "package/summarizers/index.d.ts", "package/summarizers/index.d.cts",
    "package/LICENSE-MIT", "package/LICENSE-APACHE", "package/docs/behaviour.md", "package/docs/api.md"]) {
    assert.ok(files.includes(f), `${f} in the tarball`);
  }
  assert.ok(!files.some((f) => f.endsWith(".rs")), "no Rust sources");
});

test("Node: import (ESM) and require (CommonJS) from the installed package", () => {
  const esm = run("node", ["esm.mjs"], consumer);
  assert.match(esm, /^esm 167000 3 CompactionError INVALID_WINDOW$/m);
  const cjs = run("node", ["cjs.cjs"], consumer);
  assert.match(cjs, /^cjs 95000 hard$/m);
});

test("compaction-core/summarizers: import (ESM) and require (CommonJS) through the package's exports", () => {
  const esm = run("node", ["summarizers.mjs"], consumer);
  assert.match(esm, /^esm-summarizers gpt-4o 100 2 true$/m);
  assert.match(esm, /^esm-answer summary stop$/m);
  const cjs = run("node", ["summarizers.cjs"], consumer);
  assert.match(cjs, /^cjs-summarizers claude-3-5-haiku-20241022 50 end_turn$/m);
});

test("compaction-core/summarizers is tree-shakable: a bundle of one summarizer holds none of the others", () => {
  writeFileSync(join(consumer, "one-summarizer.mjs"), 'import { openaiSummarizer } from "compaction-core/summarizers";\nexport const s = openaiSummarizer;\n');
  const bundle = run(join(tools, "esbuild"), ["one-summarizer.mjs", "--bundle", "--format=esm", "--log-level=error"], consumer);
  assert.match(bundle, /chat\.completions\.create/, "the OpenAI summarizer is in the bundle");
  for (const other of ["messages.create", "generateContent", "generateText"]) assert.ok(!bundle.includes(other), `${other} is shaken out`);
  assert.ok(!/from\s*["'](openai|@anthropic-ai|@google|ai)["']/.test(bundle), "no SDK import");
});

test("TypeScript: a file using the whole API type-checks against the package's .d.ts", () => {
  // tsc exits non-zero, and execFileSync throws with its output, on any type error.
  run(join(tools, "tsc"), ["--noEmit", "-p", "tsconfig.json"], consumer);
});

test("a Vite app built against the bundler build runs in Chromium, compacting an AI SDK history", async () => {
  // Built in place so that vite.config.mjs resolves vite-plugin-wasm from
  // tests/node_modules; the package itself comes from the packed tarball.
  const app = join(root, "tests/consumer-vite");
  const installed = join(app, "node_modules/compaction-core");
  rmSync(join(app, "node_modules"), { recursive: true, force: true });
  mkdirSync(installed, { recursive: true });
  run("tar", ["-xzf", tarball, "-C", installed, "--strip-components=1"], app);
  run(join(tools, "vite"), ["build"], app);
  const server = await serve(join(app, "dist"));
  try {
    const { page, problems } = await open(browser, server.url);
    await page.waitForSelector("body[data-ready=yes]", { timeout: 15_000 });
    const text = await page.textContent("#out");
    assert.match(text, /"auto":167000,"tokens":3/);
    assert.match(text, /Current tier:\s+warn/);
    // The AI SDK history compacted in the browser, in its own shape.
    assert.match(text, /\{"status":"COMPRESSED","systemFirst":true,"summaryRole":"user","geminiShaped":false\}/);
    assert.deepEqual(problems, []);
  } finally {
    await server.close();
  }
});

test("the single-file build works from file:// (no fetch of a .wasm)", async () => {
  const dir = join(work, "webview");
  cpSync(join(root, "tests/webview"), dir, { recursive: true });
  cpSync(join(consumer, "node_modules/compaction-core/inline/compaction_core.iife.js"), join(dir, "compaction_core.iife.js"));
  const html = join(dir, "index.html");
  writeFileSync(html, (await import("node:fs")).readFileSync(html, "utf8").replace("../../pkg/inline/compaction_core.iife.js", "compaction_core.iife.js"));
  const { page, problems } = await open(browser, pathToFileURL(html).href);
  await page.waitForSelector("body[data-ready=yes]", { timeout: 15_000 });
  assert.match(await page.textContent("#out"), /"auto":95000,"hard":105000/);
  assert.deepEqual(problems, []);
});
