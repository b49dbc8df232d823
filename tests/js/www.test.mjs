// The demonstration page (www/) in Chromium, served by the demo's own server
// (scripts/serve.mjs). Expected values come from the built package (pkg/node),
// never from numbers written here. Needs pkg/ (scripts/build); builds nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createRequire } from "node:module";
import { byTestId, demoPage, SCREENSHOTS as shots, setWindow, stepUntil, testIdText as text } from "./browser.mjs";

const cc = createRequire(import.meta.url)("../../pkg/node/compaction_core.js");

const DESKTOP = { width: 1280, height: 900 };
const PHONE = { width: 390, height: 844 };
const FAILING = { throw: "SUMMARIZER_FAILED", empty: "EMPTY_SUMMARY", truncated: "OUTPUT_TRUNCATED" };

const demo = demoPage();

/** Opens the page, waits until the package is loaded; records every request. */
const openPage = (viewport = DESKTOP) => demo.openPage(viewport);

const attr = (page, id, name) => byTestId(page, id).getAttribute(name);
const fmt = (n) => new Intl.NumberFormat("en-US", { maximumFractionDigits: 2 }).format(n);

async function setTokens(page, value) {
  await page.fill("#tokens-input", String(value));
}

/** What the count panel shows. */
async function countState(page) {
  return {
    tokens: Number(await page.inputValue("#tokens-input")),
    tier: await text(page, "count-tier"),
    tip: await attr(page, "count-tip", "data-tip-id"),
    percent: Number(await attr(page, "count-percent", "data-value")),
    untilAuto: Number(await attr(page, "count-until-auto", "data-value")),
    footer: await attr(page, "count-footer", "data-value"),
    context: await byTestId(page, "context-block").textContent(),
  };
}

/** The count panel against the library, for the count it shows. */
function assertCountMatchesLibrary(state, window) {
  const report = cc.contextReport(state.tokens, window);
  assert.equal(state.tier, report.tier, `tier at ${state.tokens}`);
  assert.equal(state.tier, cc.currentTier(state.tokens, cc.computeThresholds(window)));
  assert.equal(state.percent, report.percentUsed);
  assert.equal(state.untilAuto, report.tokensUntilAuto);
  assert.equal(state.footer, String(report.showFooter));
  assert.equal(state.tip, cc.selectTip({ lastPromptTokenCount: state.tokens, contextWindowSize: window })?.id ?? "");
  assert.equal(state.context, cc.formatContextReport(state.tokens, window));
}

test("the page loads with no console errors, no failed requests and no request off the local server", async () => {
  const { page, problems, requests } = await openPage();
  await page.reload();
  await page.waitForSelector('#main[data-ready="true"]');
  assert.deepEqual(problems, []);
  assert.ok(requests.length > 0);
  for (const url of requests) assert.ok(url.startsWith(demo.server.url), `request to ${url}`);
  assert.ok(requests.some((u) => u.endsWith("/pkg/web/compaction_core_bg.wasm")), "the wasm comes from pkg/web");
  assert.equal(await page.getAttribute('link[rel="icon"]', "href"), "data:,");
  // Every form control has a label.
  const unlabelled = await page.evaluate(() => [...document.querySelectorAll("input, select, textarea")]
    .filter((el) => el.labels.length === 0 && !el.getAttribute("aria-label")).map((el) => el.id || el.name));
  assert.deepEqual(unlabelled, []);
  await page.close();
});

test("the demo server serves www/ and pkg/ with the right types, and nothing else", async () => {
  const get = (path) => fetch(new URL(path, demo.server.url), { redirect: "manual" });
  assert.equal((await get("/pkg/web/compaction_core_bg.wasm")).headers.get("content-type"), "application/wasm");
  assert.match((await get("/www/app.js")).headers.get("content-type"), /^text\/javascript/);
  assert.equal((await get("/")).headers.get("location"), "/www/");
  for (const path of ["/Cargo.toml", "/www/../Cargo.toml", "/www/%2e%2e/Cargo.toml", "/src/lib.rs", "/.git/HEAD"]) {
    assert.equal((await get(path)).status, 404, path);
  }
});

test("every ladder value follows computeThresholds, for the presets and custom windows", async () => {
  const { page, problems } = await openPage();
  const presets = await page.$$eval('input[name="window-preset"]', (els) => els.map((e) => Number(e.value)));
  assert.equal(presets.length, 6);
  const windows = [...presets, 10_000, 76_000, 110_000, 133_333, 0];
  for (const w of windows) {
    if (presets.includes(w)) {
      await page.locator(`input[name="window-preset"][value="${w}"]`).check({ force: true });
      await page.waitForSelector(`#main[data-window="${w}"]`);
    } else {
      await setWindow(page, w);
    }
    const t = cc.computeThresholds(w);
    for (const key of ["window", "effectiveWindow", "warn", "auto", "hard"]) {
      assert.equal(Number(await attr(page, `ladder-${key}`, "data-value")), t[key], `${key} at ${w}`);
      assert.equal(await text(page, `ladder-${key}`), fmt(t[key]), `${key} text at ${w}`);
    }
    for (const key of ["warn", "auto", "hard"]) {
      assert.equal(await attr(page, `ladder-${key}Rule`, "data-rule"), t[`${key}Rule`], `${key} rule at ${w}`);
      const tick = byTestId(page, `tick-${key}`);
      assert.equal(Number(await tick.getAttribute("data-value")), t[key]);
      assert.equal(await tick.getAttribute("data-rule"), t[`${key}Rule`]);
      assert.ok((await tick.textContent()).includes(fmt(t[key])), `${key} label at ${w}`);
    }
    const caption = await page.textContent("#ladder-caption");
    assert.equal(caption.includes("collapses onto auto"), t.hardRule === "auto", `collapse noted at ${w}`);
    assertCountMatchesLibrary(await countState(page), w);
  }
  // A window the library rejects is reported with its code, and the last good one stays.
  await page.fill("#window-input", "-5");
  await page.press("#window-input", "Enter");
  assert.match(await page.textContent("#window-error"), /INVALID_WINDOW/);
  assert.equal(Number(await attr(page, "ladder-window", "data-value")), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test("dragging and typing the count walks through the tiers and their tips", async () => {
  const { page, problems } = await openPage();
  const w = 200_000;
  const t = cc.computeThresholds(w);

  // Drag the slider from one end to the other.
  await byTestId(page, "tokens-range").scrollIntoViewIfNeeded();
  const box = await byTestId(page, "tokens-range").boundingBox();
  const y = box.y + box.height / 2;
  await page.mouse.move(box.x + 2, y);
  await page.mouse.down();
  const seen = [];
  for (let i = 0; i <= 60; i++) {
    await page.mouse.move(box.x + 2 + ((box.width - 4) * i) / 60, y);
    const state = await countState(page);
    assertCountMatchesLibrary(state, w);
    if (seen.at(-1)?.tier !== state.tier) seen.push(state);
  }
  await page.mouse.up();
  assert.deepEqual(seen.map((s) => s.tier), ["safe", "warn", "auto", "hard"], "the drag crosses every tier in order");
  assert.deepEqual(seen.map((s) => s.tip), ["", "context-warn", "context-high", "context-critical"]);

  // Type a count in each band, taken from the thresholds.
  for (const count of [0, t.warn - 1, t.warn, t.auto - 1, t.auto, t.hard - 1, t.hard, w, w + 50_000]) {
    await setTokens(page, count);
    const state = await countState(page);
    assert.equal(state.tokens, count);
    assertCountMatchesLibrary(state, w);
  }

  // Keyboard: Page Up on the slider adds a tenth of the window.
  await setTokens(page, 1_000);
  await byTestId(page, "tokens-range").focus();
  await page.keyboard.press("PageUp");
  assert.equal((await countState(page)).tokens, 1_000 + w / 10);
  await page.keyboard.press("ArrowLeft");
  assert.equal((await countState(page)).tokens, w / 10);

  // On a small window the middle band is empty: no context-high, /context says hard.
  await setWindow(page, 32_000);
  const small = cc.computeThresholds(32_000);
  await setTokens(page, small.auto);
  const state = await countState(page);
  assert.equal(state.tier, "hard");
  assertCountMatchesLibrary(state, 32_000);
  assert.deepEqual(problems, []);
  await page.close();
});

test("keyboard: the window presets are a radio group driven by the arrow keys", async () => {
  const { page, problems } = await openPage();
  await page.locator('input[name="window-preset"][value="200000"]').focus();
  await page.keyboard.press("ArrowRight");
  await page.waitForSelector('#main[data-window="256000"]');
  assert.equal(Number(await attr(page, "ladder-auto", "data-value")), cc.computeThresholds(256_000).auto);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the estimator box estimates the whole list and each part under every estimator the build offers", async () => {
  const { page, problems } = await openPage();
  const messages = [
    { role: "user", parts: [{ text: "Please read src/main.rs and fix the panic." }] },
    { role: "model", parts: [{ text: "Reading it." }, { functionCall: { name: "read_file", args: { file_path: "src/main.rs" } } }] },
    { role: "user", parts: [{ functionResponse: { name: "read_file", response: { output: "fn main() {\n    let v: Vec<u8> = vec![];\n    v[0];\n}\n".repeat(20) } } }] },
    { role: "user", parts: [{ inlineData: { mimeType: "image/png", data: "iVBORw0KGgo".repeat(300) } }] },
  ];
  await page.fill("#estimator-input", JSON.stringify(messages));
  const columns = await page.$$eval("#estimator-table thead th[data-estimator]", (els) => els.map((e) => e.dataset.estimator));
  assert.ok(columns.includes("reference"));
  const options = (label) => {
    const [estimator, tokenizer] = label.split(" · ");
    return tokenizer ? { estimator, tokenizer } : { estimator };
  };
  for (const label of columns) {
    const total = await page.textContent(`[data-testid="estimate-total"] td[data-estimator="${label}"]`);
    assert.equal(total, fmt(cc.estimateContentTokens(messages, options(label))), `total, ${label}`);
    const perPart = await page.$$eval(`[data-testid="estimate-part"] td[data-estimator="${label}"]`, (els) => els.map((e) => e.textContent));
    const expected = messages.flatMap((m) => m.parts.map((p) => fmt(cc.estimateContentTokens([{ role: m.role, parts: [p] }], options(label)))));
    assert.deepEqual(perPart, expected, `parts, ${label}`);
  }
  // The image count follows imageTokenEstimate.
  await page.fill("#image-token-estimate", "258");
  const imageRow = page.locator('[data-testid="estimate-part"]').nth(4);
  assert.equal(await imageRow.locator('td[data-estimator="reference"]').textContent(), fmt(258));
  // Plain text is one text part.
  await page.fill("#estimator-input", "hello world, twice: hello world");
  assert.equal(await page.locator('[data-testid="estimate-part"]').count(), 1);
  assert.equal(await page.textContent('[data-testid="estimate-total"] td[data-estimator="reference"]'),
    fmt(cc.estimateContentTokens([{ role: "user", parts: [{ text: "hello world, twice: hello world" }] }])));
  // Content the library rejects shows its error.
  await page.fill("#estimator-input", JSON.stringify([{ role: "user", parts: [{ text: 5 }] }]));
  assert.match(await page.textContent("#estimator-error"), /INVALID_CONTENT/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the simulator compacts, the indicator drops, and the history before it downloads", async () => {
  const { page, problems } = await openPage();
  await setWindow(page, 128_000);
  const auto = cc.computeThresholds(128_000).auto;
  // Quickly to 90% of auto, then one request at a time, noting the history
  // length before each, until the first compaction run.
  const near = await page.evaluate((a) => { window.__near = a; return a; }, 0.9 * auto);
  const approach = await stepUntil(page, (entries, sim) => entries.length > 0 || Number(sim.tokens) >= window.__near);
  assert.equal(approach.entries.length, 0, `no compaction run below ${near}`);
  let messagesBefore;
  let run;
  for (let i = 0; i < 100 && !run?.entries.length; i++) {
    messagesBefore = Number(await text(page, "sim-messages"));
    run = await stepUntil(page, () => false, 1);
  }
  const [entry] = run.entries;
  assert.equal(entry.status, "COMPRESSED");
  assert.equal(entry.trigger, "auto");
  assert.ok(Number(entry.estimate) >= auto, "it ran at auto");
  assert.ok(Number(entry.newTokens) < Number(entry.before), "the compaction frees space");
  const indicator = Number(await attr(page, "sim-usage-text", "data-tokens"));
  assert.ok(indicator < Number(entry.before) / 2, `the indicator drops: ${entry.before} → ${indicator}`);
  assert.equal(indicator, Number(run.sim.tokens));
  assert.equal(await text(page, "sim-tier"), cc.currentTier(indicator, cc.computeThresholds(128_000)));
  assert.ok((await text(page, "sim-summary")).includes("## Files"), "the stand-in's summary is shown");
  // The plot has one point per request plus the drop.
  const points = Number(await page.getAttribute('[data-testid="plot-line"]', "data-points"));
  assert.equal(points, Number(await text(page, "sim-requests")) + 1);

  // The history before the compaction, as a JSON download.
  const [download] = await Promise.all([page.waitForEvent("download"), byTestId(page, "sim-download").click()]);
  const data = JSON.parse(readFileSync(await download.path(), "utf8"));
  assert.equal(data.status, "COMPRESSED");
  assert.equal(data.history.length, messagesBefore, "the whole history as it was before");
  assert.ok(data.keptFrom > 0 && data.keptFrom < data.history.length);
  assert.ok(data.history.every((m) => Array.isArray(m.parts)));
  assert.deepEqual(problems, []);
  await page.close();
});

for (const [mode, status] of Object.entries(FAILING)) {
  test(`a summarizer that ${mode === "throw" ? "throws" : mode === "empty" ? "returns nothing" : "stops at MAX_TOKENS"}: the breaker opens after 3 failures, hard still forces a run`, async () => {
    const { page, problems } = await openPage();
    await setWindow(page, 128_000);
    await page.locator(`input[name="summarizer"][value="${mode}"]`).check();
    const result = await stepUntil(page, (entries) => entries.some((e) => e.trigger === "hard"));
    assert.ok(!result.exhausted, "a hard run came");
    const runs = result.entries;
    // Three non-forced failures at auto, counted 1, 2, 3.
    assert.deepEqual(runs.slice(0, 3).map((e) => [e.status, e.trigger, e.forced, e.failures]),
      [[status, "auto", "false", "1"], [status, "auto", "false", "2"], [status, "auto", "false", "3"]]);
    // Then the breaker is open: sent as is while below hard.
    const open = runs.slice(3, -1);
    assert.ok(open.length > 0, "at least one request went out with the breaker open");
    for (const e of open) assert.deepEqual([e.status, e.noopReason, e.failures], ["NOOP", "breakerOpen", "3"]);
    // At hard the breaker is reset and the run is forced; its failure is not counted.
    const hard = runs.at(-1);
    assert.deepEqual([hard.status, hard.trigger, hard.forced, hard.failures], [status, "hard", "true", "0"]);
    assert.ok(Number(hard.estimate) >= cc.computeThresholds(128_000).hard);
    assert.equal(result.sim.breaker, "closed");
    // With a working summarizer the next forced run compacts.
    await page.locator('input[name="summarizer"][value="standin"]').check();
    const after = await stepUntil(page, (entries) => entries.at(-1).status === "COMPRESSED", 20);
    assert.deepEqual([after.entries.at(-1).trigger, after.entries.at(-1).forced], ["hard", "true"]);
    assert.ok(Number(after.sim.tokens) < cc.computeThresholds(128_000).warn, "back below warn");
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test('fallback: "ledger": with a summarizer that throws, the forced run at hard compacts from the library\'s record; without it the same run fails', async () => {
  const { page, problems } = await openPage();
  await setWindow(page, 128_000);
  await page.locator('input[name="summarizer"][value="throw"]').check();
  await page.locator("#sim-fallback").check();
  const result = await stepUntil(page, (entries) => entries.some((e) => e.trigger === "hard"));
  assert.ok(!result.exhausted, "a hard run came");
  const hard = result.entries.find((e) => e.trigger === "hard");
  // The auto runs before it failed as without the fallback (it acts on forced runs only).
  for (const e of result.entries.filter((e) => e.trigger === "auto")) assert.equal(e.status, "SUMMARIZER_FAILED");
  assert.deepEqual([hard.status, hard.method, hard.forced], ["COMPRESSED", "ledger", "true"]);
  assert.ok(Number(result.sim.tokens) < cc.computeThresholds(128_000).hard, "the next prompt is below hard");
  assert.match(await text(page, "sim-notice"), /the library's own record \(method "ledger"/);
  // Off again (the session restarts): the forced run fails, the history is kept as it was.
  await page.locator("#sim-fallback").uncheck();
  const off = await stepUntil(page, (entries) => entries.some((e) => e.trigger === "hard"));
  assert.deepEqual(off.entries.filter((e) => e.trigger === "hard").map((e) => e.status), ["SUMMARIZER_FAILED"]);
  assert.deepEqual(problems, []);
  await page.close();
});

test("an OpenAI-compatible endpoint as the summarizer: the request it gets, the summary it gives", async () => {
  const { page, problems } = await openPage();
  const endpoint = "https://llm.invalid/v1/chat/completions";
  const bodies = [];
  // Intercepted in the browser: nothing leaves the machine.
  await page.route(endpoint, async (route) => {
    bodies.push({ body: JSON.parse(route.request().postData()), auth: route.request().headers().authorization });
    await route.fulfill({ contentType: "application/json", body: JSON.stringify({
      choices: [{ message: { role: "assistant", content: "## User intent and requirements\n- add --json to export" }, finish_reason: "stop" }],
      usage: { prompt_tokens: 1000, completion_tokens: 20, total_tokens: 1020 },
    }) });
  });
  await stepUntil(page, (entries, sim) => Number(sim.attempts) >= 30);
  await page.locator('input[name="summarizer"][value="endpoint"]').check();
  await page.fill("#endpoint-url", endpoint);
  await page.fill("#endpoint-key", "sk-test-only");
  await page.fill("#endpoint-model", "some-model");
  const n = Number(await page.getAttribute("#sim", "data-attempts"));
  await byTestId(page, "sim-compact").click();
  await page.waitForSelector(`#sim[data-attempts="${n + 1}"]`);
  assert.equal(bodies.length, 1);
  const { body, auth } = bodies[0];
  assert.equal(auth, "Bearer sk-test-only");
  assert.equal(body.model, "some-model");
  assert.equal(body.messages[0].role, "system");
  assert.ok(body.max_tokens >= 1 && body.max_tokens <= 20_000);
  assert.ok(!("reasoning_effort" in body));
  const entry = await page.locator("#sim-log li").first();
  assert.deepEqual([await entry.getAttribute("data-status"), await entry.getAttribute("data-trigger")], ["COMPRESSED", "manual"]);
  assert.ok((await text(page, "sim-summary")).includes("add --json to export"));
  // The key lives in memory only.
  const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie);
  assert.ok(!stored.includes("sk-test-only"));
  assert.deepEqual(problems, []);
  await page.close();
});

test("“Run to the next compaction” stops at the first run; a summary in flight can be cancelled (ABORTED, not a failure)", async () => {
  const { page, problems } = await openPage();
  await setWindow(page, 64_000);
  await byTestId(page, "sim-run").click();
  await page.waitForSelector("#sim-log li");
  await page.waitForSelector('#sim[data-idle="true"]');
  const entries = await page.$$eval("#sim-log li", (els) => els.map((li) => ({ ...li.dataset })));
  assert.equal(entries.length, 1);
  assert.notEqual(entries[0].status, "NOOP");
  // On 64K hard == auto: the first run is already forced.
  assert.equal(cc.computeThresholds(64_000).hardRule, "auto");
  assert.deepEqual([entries[0].trigger, entries[0].forced], ["hard", "true"]);

  // An endpoint that never answers: the run waits until the user cancels it.
  const endpoint = "https://slow.invalid/v1/chat/completions";
  let requested;
  const seen = new Promise((r) => { requested = r; });
  await page.route(endpoint, () => requested());
  await page.locator('input[name="summarizer"][value="endpoint"]').check();
  await page.fill("#endpoint-url", endpoint);
  const failures = await page.getAttribute("#sim", "data-failures");
  await byTestId(page, "sim-compact").click();
  await seen;
  assert.equal(await page.getAttribute("#sim", "data-idle"), "false");
  await byTestId(page, "sim-cancel").click();
  await page.waitForSelector('#sim[data-idle="true"]');
  assert.equal(await page.locator("#sim-log li").first().getAttribute("data-status"), "ABORTED");
  assert.equal(await page.getAttribute("#sim", "data-failures"), failures);
  assert.deepEqual(problems.filter((p) => !p.includes("slow.invalid")), []);
  await page.close();
});

test("screenshots, and nothing overflows at 390×844", async () => {
  for (const [name, viewport] of [["desktop", DESKTOP], ["phone", PHONE]]) {
    const { page, problems } = await openPage(viewport);
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(await overflow() <= viewport.width, `${name}: no horizontal scroll on load`);
    await setWindow(page, 128_000);
    await page.locator('input[name="summarizer"][value="throw"]').check();
    await stepUntil(page, (entries) => entries.some((e) => e.trigger === "hard"));
    await page.locator('input[name="summarizer"][value="standin"]').check();
    await stepUntil(page, (entries) => entries.at(-1).status === "COMPRESSED", 20);
    await stepUntil(page, () => false, 10);
    await setTokens(page, 100_000);
    assert.ok(await overflow() <= viewport.width, `${name}: no horizontal scroll with the log, the plot and the tables filled`);
    await page.screenshot({ path: resolve(shots, `www-${name}.png`), fullPage: true });
    for (const section of ["window", "ladder", "count", "estimator", "sim"]) {
      await page.locator(`#${section}-section`).screenshot({ path: resolve(shots, `www-${name}-${section}.png`) });
    }
    assert.deepEqual(problems, []);
    await page.close();
  }
});
