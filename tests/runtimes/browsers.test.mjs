// The package in WebKit (WebKitGTK, the engine of Safari and iOS webviews)
// and Firefox ESR, as tests/js/ tries it in Chromium: the demonstration page
// (www/, served by scripts/serve.mjs) loads the web build and compacts in its
// simulator; the single-file build works from a file:// page; and a page
// bundled from the default `import … from "compaction-core"` (the "browser"
// condition) runs the smoke suite, whose answer must equal pkg/node's.
// Driven by npm's selenium-webdriver through `usingServer`, against the
// driver this file starts: Debian's WebKitWebDriver (under Xvfb) and
// geckodriver (built from crates.io by scripts/setup) with Debian's
// firefox-esr. Nothing downloads a browser or a driver.
import { test, before, after, describe } from "node:test";
import assert from "node:assert/strict";
import { execFile, spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

import { startServer } from "../../scripts/serve.mjs";
import { serve } from "../js/browser.mjs";
import { smoke } from "./smoke.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, "../..");
const require = createRequire(import.meta.url);
const { Builder, By, until } = require("selenium-webdriver");
const cc = require("../../pkg/node/compaction_core.js");
const exec = promisify(execFile);

const GECKODRIVER = join(root, ".tools/geckodriver/bin/geckodriver");
const MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";
const ENGINES = {
  webkit: {
    driver: "/usr/bin/WebKitWebDriver",
    args: (port) => [`--port=${port}`, "--host=127.0.0.1"],
    capabilities: { browserName: "MiniBrowser", "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] } },
    display: true,
  },
  firefox: {
    driver: GECKODRIVER,
    args: (port) => ["--port", String(port), "--host", "127.0.0.1", "--binary", "/usr/bin/firefox-esr"],
    capabilities: { browserName: "firefox", "moz:firefoxOptions": { binary: "/usr/bin/firefox-esr", args: ["-headless"], prefs: { "app.update.enabled": false, "network.captive-portal-service.enabled": false, "browser.shell.checkDefaultBrowser": false } } },
    display: false,
  },
};

let work, demo, expected, smokePage;

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

/** Starts `cmd`; returns { child, log(), exited } (exited resolves to a message when it ends). */
function start(cmd, args, env) {
  const child = spawn(cmd, args, { stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  let log = "";
  child.stdout.on("data", (d) => { log += d; });
  child.stderr.on("data", (d) => { log += d; });
  const exited = new Promise((r) => child.on("exit", (code, signal) => r(`${cmd} exited (${code ?? signal}):\n${log}`)));
  child.on("error", (e) => { log += `spawn: ${e.message}`; });
  return { child, log: () => log, exited };
}

/**
 * scripts/setup builds geckodriver in the background (cargo install, logged
 * to .tools/geckodriver.log, which ends with "exit N"): waits for that build
 * to end, up to 25 minutes, and fails with its log if it did not succeed.
 */
async function geckodriverBuilt() {
  const log = join(root, ".tools/geckodriver.log");
  const started = Date.now();
  for (const deadline = started + 25 * 60_000; ;) {
    const text = existsSync(log) ? readFileSync(log, "utf8") : "";
    const end = /^exit (\d+)$/m.exec(text);
    if (end || (!text && existsSync(GECKODRIVER))) {
      assert.ok(!end || end[1] === "0", `cargo install geckodriver failed:\n${text.slice(-4000)}`);
      assert.ok(existsSync(GECKODRIVER), `${GECKODRIVER} missing: run scripts/setup`);
      console.log(`# waited ${((Date.now() - started) / 1000).toFixed(0)} s for the geckodriver build`);
      return;
    }
    assert.ok(text || existsSync(GECKODRIVER), `${GECKODRIVER} missing and no build running: run scripts/setup`);
    assert.ok(Date.now() < deadline, `the geckodriver build did not end in 25 minutes:\n${text.slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 2_000));
  }
}

/** Waits until `url` answers (the driver is listening), up to 30 s. */
async function waitForServer(url, proc) {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline;) {
    const early = await Promise.race([proc.exited, new Promise((r) => setTimeout(r, 100))]);
    if (typeof early === "string") assert.fail(early);
    if (await fetch(url, { signal: AbortSignal.timeout(5_000) }).then(() => true, () => false)) return;
  }
  assert.fail(`${url} did not answer in 30 s:\n${proc.log()}`);
}

before(async () => {
  work = mkdtempSync(join(tmpdir(), "compaction-core-browsers-"));
  demo = await startServer({ port: 0 });
  expected = await smoke(cc, require("../../pkg/summarizers/index.cjs"));
  // The smoke page: the default import bundled for browsers (esbuild, the
  // "browser" condition, as Vite, webpack and `bun build` resolve it), from
  // the packed package installed in a fresh consumer.
  await exec("npm", ["pack", join(root, "pkg"), "--pack-destination", work, "--silent"], { cwd: root });
  const tarball = join(work, readdirSync(work).find((f) => f.endsWith(".tgz")));
  const site = join(work, "site");
  cpSync(join(here, "consumer"), site, { recursive: true });
  cpSync(join(here, "smoke.mjs"), join(site, "smoke.mjs"));
  await exec("npm", ["install", "--no-audit", "--no-fund", "--silent", tarball], { cwd: site });
  const esbuild = createRequire(join(root, "scripts/package.json"))("esbuild");
  await esbuild.build({
    stdin: { contents: `import * as cc from "compaction-core";\nimport * as sm from "compaction-core/summarizers";\nimport { smoke } from "./smoke.mjs";\nsmoke(cc, sm).then((out) => { document.getElementById("out").textContent = JSON.stringify(out); document.body.dataset.ready = "yes"; }, (e) => { document.getElementById("out").textContent = "error: " + e; document.body.dataset.ready = "error"; });\n`, resolveDir: site },
    bundle: true, format: "esm", platform: "browser", outfile: join(site, "dist/smoke.js"), logLevel: "error",
  });
  assert.deepEqual(readdirSync(join(site, "dist")), ["smoke.js"], "one file: the wasm is inside");
  writeFileSync(join(site, "dist/index.html"), '<!doctype html><meta charset="utf-8"><title>smoke</title><link rel="icon" href="data:,"><pre id="out">loading…</pre><script type="module" src="smoke.js"></script>\n');
  smokePage = await serve(join(site, "dist"));
  // The file:// page: the single-file IIFE build beside the webview test page.
  const webview = join(work, "webview");
  cpSync(join(root, "tests/webview"), webview, { recursive: true });
  cpSync(join(root, "pkg/inline/compaction_core.iife.js"), join(webview, "compaction_core.iife.js"));
  const html = join(webview, "index.html");
  writeFileSync(html, readFileSync(html, "utf8").replace("../../pkg/inline/compaction_core.iife.js", "compaction_core.iife.js"));
});

after(async () => {
  await demo?.close();
  await smokePage?.close();
  rmSync(work, { recursive: true, force: true });
});

for (const [name, engine] of Object.entries(ENGINES)) {
  describe(name, () => {
    let driver, xvfb, session;
    before(async () => {
      if (name === "firefox") await geckodriverBuilt();
      const env = {};
      if (engine.display) {
        const display = `:${90 + Math.floor(Math.random() * 400)}`;
        xvfb = start("Xvfb", [display, "-screen", "0", "1280x900x24", "-nolisten", "tcp"]);
        env.DISPLAY = display;
      }
      const port = await freePort();
      driver = start(engine.driver, engine.args(port), env);
      await waitForServer(`http://127.0.0.1:${port}/status`, driver);
      session = await new Builder().usingServer(`http://127.0.0.1:${port}`).withCapabilities(engine.capabilities).build();
      await session.manage().setTimeouts({ script: 60_000, pageLoad: 60_000 });
    });
    after(async () => {
      await session?.quit().catch(() => {});
      driver?.child.kill();
      xvfb?.child.kill();
    });

    const text = async (css) => (await session.findElement(By.css(css)).getText()).trim();
    const attr = (css, name) => session.findElement(By.css(css)).getAttribute(name);

    test(`${name}: the default import, bundled for browsers, runs the smoke suite`, async () => {
      await session.get(smokePage.url);
      await session.wait(until.elementLocated(By.css("body[data-ready]")), 60_000);
      const out = await session.executeScript("return document.getElementById('out').textContent");
      assert.equal(await attr("body", "data-ready"), "yes", out);
      assert.deepEqual(JSON.parse(out), expected);
    });

    test(`${name}: the demonstration page loads the web build, its ladder follows computeThresholds, and its simulator compacts`, async () => {
      await session.get(demo.pageUrl);
      await session.wait(until.elementLocated(By.css('#main[data-ready="true"]')), 60_000);
      const ua = await session.executeScript("return navigator.userAgent");
      assert.match(ua, name === "webkit" ? /AppleWebKit\/.*Safari/ : /Gecko\/.*Firefox\//);
      assert.ok(await session.executeScript(
        "return performance.getEntriesByType('resource').some((e) => e.name.endsWith('/pkg/web/compaction_core_bg.wasm'))"), "the wasm came from pkg/web");
      for (const w of [76_000, 128_000]) {
        const input = await session.findElement(By.css("#window-input"));
        await input.clear();
        await input.sendKeys(String(w), "\uE007");
        await session.wait(until.elementLocated(By.css(`#main[data-window="${w}"]`)), 10_000);
        const t = cc.computeThresholds(w);
        for (const key of ["window", "effectiveWindow", "warn", "auto", "hard"]) {
          assert.equal(Number(await attr(`[data-testid="ladder-${key}"]`, "data-value")), t[key], `${key} at ${w}`);
        }
      }
      // Requests until the first compaction run (each click waits for its step to finish).
      const run = await session.executeAsyncScript(`
        const done = arguments[arguments.length - 1];
        const sim = document.getElementById("sim");
        const entries = () => [...document.querySelectorAll("#sim-log li")].map((li) => ({ ...li.dataset }));
        (async () => {
          for (let i = 0; i < 400 && entries().length === 0; i++) {
            const n = Number(sim.dataset.attempts);
            await new Promise((resolve) => {
              const observer = new MutationObserver(() => {
                if (Number(sim.dataset.attempts) > n && sim.dataset.idle === "true") { observer.disconnect(); resolve(); }
              });
              observer.observe(sim, { attributes: true });
              document.getElementById("sim-step").click();
            });
          }
          return entries();
        })().then(done, (e) => done({ error: String(e) }));`);
      assert.ok(Array.isArray(run) && run.length > 0, `a compaction ran: ${JSON.stringify(run)}`);
      const entry = run.at(-1);
      assert.equal(entry.status, "COMPRESSED");
      assert.equal(entry.trigger, "auto");
      assert.ok(Number(entry.estimate) >= cc.computeThresholds(128_000).auto, "it ran at auto");
      assert.ok(Number(entry.newTokens) < Number(entry.before), "the compaction frees space");
      assert.equal(await text("#window-error"), "");
    });

    test(`${name}: the single-file build works from a file:// page`, async () => {
      await session.get(pathToFileURL(join(work, "webview/index.html")).href);
      await session.wait(until.elementLocated(By.css("body[data-ready=yes]")), 30_000);
      const out = await text("#out");
      const t = cc.computeThresholds(128_000);
      assert.ok(out.startsWith(JSON.stringify({ auto: t.auto, hard: t.hard })), out);
      assert.ok(out.endsWith(cc.formatContextReport(100_000, 128_000).trim()), out);
    });
  });
}
