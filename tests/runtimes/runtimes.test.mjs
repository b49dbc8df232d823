// The packed package in every JavaScript runtime installed by scripts/setup,
// each through its own resolution of the default `import … from
// "compaction-core"` with no flags (the root's export conditions): Node 20,
// 22 and 24 (ESM and CommonJS), Deno (PyPI `deno`), Bun (npm `bun`, as a
// runtime and as a bundler) and Cloudflare's workerd (npm `workerd`: a Worker
// that compacts a history POSTed to it on 127.0.0.1). Each runs the smoke
// suite (smoke.mjs), whose answer must equal the one pkg/node gives here.
// Then the package checks: publint and arethetypeswrong on the tarball.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

import { sessionHistory, smoke } from "./smoke.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const require = createRequire(import.meta.url);
const bin = join(here, "node_modules/.bin");
const RUNTIMES = {
  node20: "node",
  node22: join(root, ".tools/node22/bin/node"),
  node24: join(root, ".tools/node24/bin/node"),
  deno: join(root, ".tools/deno/bin/deno"),
  bun: join(bin, "bun"),
  workerd: join(bin, "workerd"),
};
const exec = promisify(execFile);

let work, tarball, consumer, expected;

/** Runs `cmd args` in the consumer; resolves to its stdout (rejects with its output on a non-zero exit). */
async function run(cmd, args, options = {}) {
  try {
    const { stdout } = await exec(cmd, args, {
      cwd: consumer, timeout: 120_000, maxBuffer: 16 << 20,
      env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1", DENO_DIR: join(work, "deno-dir"), BUN_INSTALL_CACHE_DIR: join(work, "bun-cache"), ...options.env },
    });
    return stdout;
  } catch (e) {
    assert.fail(`${cmd} ${args.join(" ")} failed (${e.code ?? e.signal}):\n${e.stdout}\n${e.stderr}`);
  }
}

/** The smoke suite's answer printed on the last line of `stdout`. */
const answer = (stdout) => JSON.parse(stdout.trim().split("\n").at(-1));

before(async () => {
  work = mkdtempSync(join(tmpdir(), "compaction-core-runtimes-"));
  await exec("npm", ["pack", join(root, "pkg"), "--pack-destination", work, "--silent"], { cwd: root });
  tarball = join(work, readdirSync(work).find((f) => f.endsWith(".tgz")));
  consumer = join(work, "consumer");
  cpSync(join(here, "consumer"), consumer, { recursive: true });
  cpSync(join(here, "smoke.mjs"), join(consumer, "smoke.mjs"));
  await exec("npm", ["install", "--no-audit", "--no-fund", "--silent", tarball], { cwd: consumer });
  // What every runtime must answer: the smoke suite on pkg/node, here.
  expected = await smoke(require("../../pkg/node/compaction_core.js"), require("../../pkg/summarizers/index.cjs"));
});

after(() => rmSync(work, { recursive: true, force: true }));

test("the smoke suite itself: the history compacts through the summarizer, and the restored chat carries on", () => {
  assert.equal(expected.error, "CompactionError INVALID_WINDOW true");
  assert.equal(expected.compaction.status, "COMPRESSED");
  const { estimate, thresholds } = expected.compaction;
  assert.ok(estimate >= thresholds.auto, `the history (${estimate}) is past auto (${thresholds.auto})`);
  assert.equal(expected.compaction.trigger, estimate >= thresholds.hard ? "hard" : "auto");
  assert.ok(expected.compaction.calls.length >= 1 && expected.compaction.calls.every((c) => c.turns > 0 && c.firstRole === "user" && c.signal));
  assert.ok(expected.compaction.summary, "the summary is the summarizer's text");
  assert.ok(expected.compaction.newTokenCount < expected.compaction.originalTokenCount);
  assert.ok(expected.compaction.keptSame, "the kept tail is the caller's own objects");
  assert.ok(expected.restore.sameState);
  assert.equal(expected.restore.window, 32_000);
  assert.deepEqual(expected.restore.usage, expected.usage);
  assert.equal(expected.restore.next, "NOOP", "after the compaction the next prompt is below auto");
});

for (const node of ["node20", "node22", "node24"]) {
  test(`${node}: the default import (ESM) and require (CommonJS)`, async (t) => {
    const exe = RUNTIMES[node];
    const version = (await run(exe, ["--version"])).trim();
    assert.match(version, new RegExp(`^v${node.slice(4)}\\.`));
    t.diagnostic(`${node} is ${version}`);
    assert.deepEqual(answer(await run(exe, ["esm.mjs"])), expected);
    assert.deepEqual(answer(await run(exe, ["cjs.cjs"])), expected);
  });
}

test("Deno: the default import with no permission flags", async (t) => {
  t.diagnostic((await run(RUNTIMES.deno, ["--version"])).split("\n")[0]);
  // No -R, no --allow-*: the prompt is off, so a permission it needed would fail the run.
  assert.deepEqual(answer(await run(RUNTIMES.deno, ["run", "--no-prompt", "esm.mjs"])), expected);
});

test("Bun: the default import, require, and the /bundler entry", async (t) => {
  t.diagnostic(`bun ${(await run(RUNTIMES.bun, ["--version"])).trim()}`);
  assert.deepEqual(answer(await run(RUNTIMES.bun, ["esm.mjs"])), expected);
  assert.deepEqual(answer(await run(RUNTIMES.bun, ["cjs.cjs"])), expected);
  assert.deepEqual(answer(await run(RUNTIMES.bun, ["bundler.mjs"])), expected);
});

test("bun build: a bundle of the default import, for Bun and for browsers, runs", async () => {
  await run(RUNTIMES.bun, ["build", "esm.mjs", "--target=bun", "--outfile=dist/bun.mjs"]);
  await run(RUNTIMES.bun, ["build", "esm.mjs", "--target=browser", "--format=esm", "--outfile=dist/browser.mjs"]);
  // The bundles stand alone: no .wasm or package file beside them is read.
  assert.deepEqual(readdirSync(join(consumer, "dist")).sort(), ["browser.mjs", "bun.mjs"]);
  rmSync(join(consumer, "node_modules"), { recursive: true });
  try {
    assert.deepEqual(answer(await run(RUNTIMES.bun, ["dist/bun.mjs"])), expected);
    // The browser bundle is plain ESM with the wasm inlined: Node runs it too.
    assert.deepEqual(answer(await run("node", ["dist/browser.mjs"])), expected);
  } finally {
    await exec("npm", ["install", "--no-audit", "--no-fund", "--silent", tarball], { cwd: consumer });
  }
});

/** A free TCP port on 127.0.0.1. */
function freePort() {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolvePort(port));
    });
  });
}

/**
 * The Worker bundled as Wrangler bundles one (esbuild, conditions workerd,
 * worker, browser; a .wasm import becomes a module of the Worker), and the
 * workerd config serving it on 127.0.0.1:`port`.
 */
async function bundleWorker(dir, port) {
  const esbuild = createRequire(join(root, "scripts/package.json"))("esbuild");
  const wasm = [];
  await esbuild.build({
    entryPoints: [join(consumer, "worker.mjs")], bundle: true, format: "esm", outfile: join(dir, "worker.js"),
    conditions: ["workerd", "worker", "browser"], platform: "neutral", mainFields: ["module", "main"], logLevel: "error",
    plugins: [{
      name: "wasm-modules",
      setup(build) {
        build.onResolve({ filter: /\.wasm$/ }, (args) => {
          const path = resolve(args.resolveDir, args.path);
          const name = `wasm-${wasm.length}.wasm`;
          wasm.push({ name, path });
          return { path: `./${name}`, external: true };
        });
      },
    }],
  });
  for (const { name, path } of wasm) cpSync(path, join(dir, name));
  const modules = [`(name = "worker.js", esModule = embed "worker.js")`, ...wasm.map(({ name }) => `(name = "${name}", wasm = embed "${name}")`)];
  writeFileSync(join(dir, "config.capnp"), `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:${port}", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ ${modules.join(", ")} ],
  compatibilityDate = "2025-09-01",
);
`);
  return wasm;
}

test("workerd: a Worker with the default import compacts a history POSTed to it over HTTP on 127.0.0.1", async (t) => {
  t.diagnostic(`workerd ${(await run(RUNTIMES.workerd, ["--version"])).trim()}`);
  const dir = join(work, "worker");
  mkdirSync(dir);
  const port = await freePort();
  const wasm = await bundleWorker(dir, port);
  assert.equal(wasm.length, 1, "one .wasm module (the web build's)");
  const child = spawn(RUNTIMES.workerd, ["serve", "config.capnp"], { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  child.stdout.on("data", (d) => { log += d; });
  child.stderr.on("data", (d) => { log += d; });
  const exited = new Promise((r) => child.on("exit", (code, signal) => r(`workerd exited (${code ?? signal}):\n${log}`)));
  try {
    const url = `http://127.0.0.1:${port}/`;
    // Up to 30 s for workerd to listen; a request refused meanwhile is retried.
    let response;
    for (const deadline = Date.now() + 30_000; !response;) {
      const early = await Promise.race([exited, new Promise((r) => setTimeout(r, 100))]);
      if (typeof early === "string") assert.fail(early);
      response = await fetch(url, { method: "POST", body: JSON.stringify({ history: sessionHistory() }), signal: AbortSignal.timeout(30_000) })
        .catch((e) => { if (Date.now() > deadline) throw new Error(`workerd did not answer: ${e.message}\n${log}`); });
    }
    const body = await response.json();
    assert.equal(response.status, 200, JSON.stringify(body) + log);
    assert.deepEqual(body, expected);
    // Bad input gets a typed error back, not a crashed Worker.
    const bad = await fetch(url, { method: "POST", body: JSON.stringify({ history: [{ role: "user", parts: "not an array" }] }) });
    assert.equal(bad.status, 500);
    const error = await bad.json();
    assert.match(error.error, /^CompactionError: /);
    assert.equal(typeof error.code, "string");
    assert.equal((await fetch(url)).status, 405);
  } finally {
    child.kill();
    await exited;
  }
});

test("publint: no errors, warnings or suggestions on the packed package", async () => {
  const out = await run(join(bin, "publint"), [tarball, "--level", "suggestion", "--strict"]);
  assert.doesNotMatch(out, /Errors?:|Warnings?:|Suggestions?:/, out);
  assert.match(out, /All good!/, out);
});

test("arethetypeswrong: no problems under the node16 and bundler resolutions, nor under node10 except for the framework adapters", async () => {
  // The default profile ("strict") resolves every entry as node10, node16
  // (CommonJS and ESM) and bundler resolvers do; each must find types that
  // describe the JavaScript it finds.
  // The .wasm export is no JavaScript module (a Worker imports it as a
  // WebAssembly.Module, Vite as a URL): attw has no types to find for it.
  // The framework adapters are held to the node16 profile (node16 and
  // bundler; node10 ignores "exports" and would need a package.json in their
  // folder, which would break their self-reference to "compaction-core"),
  // every other entry to the strict one (node10 too).
  const adapters = ["./ai-sdk", "./langchain", "./openai-agents"];
  for (const [profile, exclude] of [["strict", ["./web/compaction_core_bg.wasm", ...adapters]], ["node16", ["./web/compaction_core_bg.wasm"]]]) {
    const args = [tarball, "--profile", profile, "--exclude-entrypoints", ...exclude];
    const out = await run(join(bin, "attw"), [...args, "--format", "table-flipped"]);
    const { analysis } = JSON.parse(await run(join(bin, "attw"), [...args, "--format", "json"]));
    // The node16 profile still lists the adapters' node10 failures, as ignored.
    const counted = analysis.problems.filter((p) => profile === "strict" || p.resolutionKind !== "node10");
    assert.deepEqual(counted, [], `${profile}: ${out}`);
    if (profile === "strict") assert.match(out, /No problems found/, out);
    const kinds = new Set(Object.values(analysis.entrypoints).flatMap((e) => Object.keys(e.resolutions)));
    for (const kind of ["node10", "node16-cjs", "node16-esm", "bundler"]) assert.ok(kinds.has(kind), `${profile}: ${kind} checked`);
    if (profile === "node16") for (const a of adapters) assert.ok(a in analysis.entrypoints, `${a} checked`);
  }
});
