// Shared helpers for the browser tests: Debian's Chromium through
// playwright-core (never a downloaded browser), and a static file server on
// 127.0.0.1.
import { createServer } from "node:http";
import { mkdirSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, extname, join, normalize, resolve } from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { after, before } from "node:test";
import { startServer } from "../../scripts/serve.mjs";

const require = createRequire(import.meta.url);
const { chromium } = require("../node_modules/playwright-core");

export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
  "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
];

export async function launch() {
  return chromium.launch({ executablePath: "/usr/bin/chromium", args: CHROMIUM_ARGS });
}

/** Opens `url` in a new page; collects console errors, page errors and failed requests. */
export async function open(browser, url, viewport) {
  const page = await browser.newPage(viewport ? { viewport } : undefined);
  const problems = [];
  page.on("console", (m) => { if (m.type() === "error") problems.push(`console: ${m.text()}`); });
  page.on("pageerror", (e) => problems.push(`pageerror: ${e.message}`));
  page.on("requestfailed", (r) => problems.push(`requestfailed: ${r.url()}`));
  await page.goto(url);
  return { page, problems };
}

/** Where the browser tests write their screenshots (tests/screenshots/). */
export const SCREENSHOTS = resolve(dirname(fileURLToPath(import.meta.url)), "../screenshots");

/**
 * The demonstration page's fixture, for a test file of www/ (call it once,
 * at the top level): before the file's tests, the demo's own server
 * (scripts/serve.mjs) on a free port, Chromium, and tests/screenshots/;
 * after them, both stopped. Returns `{ server, browser, openPage }`, the
 * first two set once the file's tests start.
 */
export function demoPage() {
  const demo = {
    server: null,
    browser: null,
    /**
     * Opens the page at `viewport` (Playwright's default when absent) and
     * waits until the package is loaded. `problems` collects console errors,
     * page errors and failed requests; `requests` every URL requested from
     * then on.
     */
    async openPage(viewport) {
      const { page, problems } = await open(demo.browser, demo.server.pageUrl, viewport);
      const requests = [];
      page.on("request", (r) => requests.push(r.url()));
      await page.waitForSelector('#main[data-ready="true"]');
      return { page, problems, requests };
    },
  };
  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    demo.server = await startServer({ port: 0 });
    demo.browser = await launch();
  });
  after(async () => {
    await demo.browser?.close();
    await demo.server?.close();
  });
  return demo;
}

/** The page's element with `data-testid="id"`. */
export const byTestId = (page, id) => page.locator(`[data-testid="${id}"]`);

/** The trimmed text of the page's element with `data-testid="id"`. */
export const testIdText = async (page, id) => (await byTestId(page, id).textContent()).trim();

/** Types a window into the page's window field and waits until the page took it. */
export async function setWindow(page, value) {
  await page.fill("#window-input", String(value));
  await page.press("#window-input", "Enter");
  await page.waitForSelector(`#main[data-window="${value}"]`);
}

const TYPES = {
  ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".css": "text/css",
  ".wasm": "application/wasm", ".json": "application/json", ".svg": "image/svg+xml", ".png": "image/png",
};

/** Serves `root` on 127.0.0.1 (a free port); resolves to { url, close }. */
export function serve(root) {
  const server = createServer(async (req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url, "http://x").pathname)).replace(/^(\.\.[/\\])+/, "");
    const file = join(root, path.endsWith("/") ? path + "index.html" : path);
    try {
      const body = await readFile(file);
      res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
      res.end(body);
    } catch {
      res.writeHead(404);
      res.end("not found");
    }
  });
  return new Promise((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      resolve({ url: `http://127.0.0.1:${port}/`, close: () => new Promise((r) => server.close(r)) });
    });
  });
}

/**
 * Clicks the simulator's "Send the next request" until `stop(entries, sim)`
 * is true or `limit` clicks, inside the page: each click waits for the step
 * to finish (the attempts counter moves), never for a fixed time. `entries`
 * are the compaction log entries, oldest first (their data attributes and
 * `text`); `sim` is the simulator's data attributes. Returns the entries,
 * `sim`, the clicks made and whether the limit ran out (`exhausted`).
 */
export async function stepUntil(page, stop, limit = 400) {
  return page.evaluate(async ({ stopSource, limit }) => {
    const stopFn = new Function("entries", "sim", `return (${stopSource})(entries, sim);`);
    const sim = document.getElementById("sim");
    const entries = () => [...document.querySelectorAll("#sim-log li")].reverse()
      .map((li) => ({ ...li.dataset, text: li.textContent }));
    const done = (n) => new Promise((resolvePromise) => {
      if (Number(sim.dataset.attempts) > n) return resolvePromise();
      const observer = new MutationObserver(() => {
        if (Number(sim.dataset.attempts) > n && sim.dataset.idle === "true") { observer.disconnect(); resolvePromise(); }
      });
      observer.observe(sim, { attributes: true });
    });
    for (let i = 0; i < limit; i++) {
      if (stopFn(entries(), { ...sim.dataset })) return { entries: entries(), sim: { ...sim.dataset }, steps: i, exhausted: false };
      const n = Number(sim.dataset.attempts);
      document.getElementById("sim-step").click();
      await done(n);
    }
    return { entries: entries(), sim: { ...sim.dataset }, steps: limit, exhausted: true };
  }, { stopSource: stop.toString(), limit });
}
