// The demonstration page's accessibility, checked by the real axe-core
// (tests/a11y/package.json, installed by scripts/setup) in Debian's Chromium:
// no serious or critical violation at 1280×800 and 390×844, on load and after
// the simulator has run a compaction (one that compacts, and one that fails).
// Also what axe-core cannot see: nothing cut off at 1280 px, and the
// simulator's tip telling the truth after a failed forced compaction.
// Needs pkg/ (scripts/build); builds nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { byTestId, demoPage, setWindow, stepUntil } from "./browser.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const AXE = readFileSync(path.join(here, "../a11y/node_modules/axe-core/axe.min.js"), "utf8");
const VIEWPORTS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

const demo = demoPage();

/** axe-core's serious and critical violations on the page as it is now, one line per rule and element. */
async function seriousViolations(page) {
  if (!(await page.evaluate(() => "axe" in window))) await page.addScriptTag({ content: AXE });
  const violations = await page.evaluate(async () => {
    // eslint-disable-next-line no-undef
    const result = await axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(" ")) }));
  });
  return violations.filter((v) => v.impact === "serious" || v.impact === "critical")
    .flatMap((v) => v.targets.map((t) => `${v.impact} ${v.id}: ${t}`));
}

/** Elements inside #main whose content is wider than they are without a way to scroll to it, and anything past the viewport. */
async function cutOff(page) {
  return page.evaluate(() => {
    const found = [];
    const vw = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > vw) found.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${vw})`);
    for (const el of document.querySelectorAll("#main *")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || el.closest("[hidden], details:not([open])")) continue;
      const style = getComputedStyle(el);
      const clips = style.overflowX === "hidden" || style.overflowX === "clip";
      if (clips && el.scrollWidth > el.clientWidth + 1 && !el.matches(".visually-hidden, .ladder-bar")) {
        found.push(`${el.tagName.toLowerCase()}#${el.id} clips ${el.scrollWidth - el.clientWidth}px`);
      }
    }
    return found;
  });
}

for (const [name, viewport] of Object.entries(VIEWPORTS)) {
  test(`axe-core at ${viewport.width}×${viewport.height} (${name}): no serious or critical violation, before and after compactions`, { timeout: 300_000 }, async () => {
    const { page, problems } = await demo.openPage(viewport);
    await setWindow(page, 64_000);
    // Something in the estimator's table: the agent sample (its widest content).
    await byTestId(page, "sample-openai").click();
    await page.waitForSelector('[data-testid="estimator-table"] tbody tr');
    assert.deepEqual(await seriousViolations(page), [], "on load");

    // A compaction that succeeds.
    const ok = await stepUntil(page, (entries) => entries.some((e) => e.status === "COMPRESSED"));
    assert.ok(!ok.exhausted, "the stand-in compacted");
    await page.locator("#sim-summary-details summary").click();
    assert.deepEqual(await seriousViolations(page), [], "after a compaction");

    // A compaction that fails.
    await page.locator('input[name="summarizer"][value="throw"]').check();
    const failed = await stepUntil(page, (entries) => entries.at(-1).status === "SUMMARIZER_FAILED");
    assert.ok(!failed.exhausted, "the throwing stand-in failed a run");
    assert.deepEqual(await seriousViolations(page), [], "after a failed compaction");
    if (name === "desktop") assert.deepEqual(await cutOff(page), [], "nothing is cut off at 1280 px");
    assert.deepEqual(problems, []);
    await page.close();
  });
}

test("at 1280 px the estimator's table fits its column: no sideways scrolling for the agent sample", async () => {
  const { page } = await demo.openPage(VIEWPORTS.desktop);
  for (const format of ["gemini", "openai", "anthropic", "ai-sdk"]) {
    await byTestId(page, `sample-${format}`).click();
    await page.waitForSelector(`[data-testid="estimator-table"][data-format="${format}"] tbody tr`);
    const widths = await page.evaluate(() => {
      const table = document.getElementById("estimator-table");
      const wrap = table.parentElement;
      return { table: Math.ceil(table.getBoundingClientRect().width), wrap: wrap.clientWidth, scroll: wrap.scrollWidth };
    });
    assert.ok(widths.scroll <= widths.wrap, `${format}: the table is ${widths.scroll}px wide in a ${widths.wrap}px column`);
  }
  await page.close();
});

test("after a failed forced compaction the simulator's tip does not say the compaction happened", { timeout: 300_000 }, async () => {
  const { page, problems } = await demo.openPage(VIEWPORTS.desktop);
  await setWindow(page, 64_000);
  await page.locator('input[name="summarizer"][value="throw"]').check();
  const result = await stepUntil(page, (entries) => entries.some((e) => e.trigger === "hard"));
  assert.ok(!result.exhausted, "a forced run at hard came");
  assert.equal(result.entries.at(-1).status, "SUMMARIZER_FAILED");
  // The request after the failed forced run went out uncompacted, at or above hard: the library's
  // tip for that count is context-critical, whose text says compaction was forced before the send.
  const tip = await byTestId(page, "sim-tip").textContent();
  const notice = await byTestId(page, "sim-notice").textContent();
  assert.doesNotMatch(tip, /compaction was forced before this message was sent/, `the tip: ${tip}`);
  assert.match(`${tip} ${notice}`, /failed/, "the tip or the notice says the forced compaction failed");
  assert.deepEqual(problems, []);
  await page.close();
});
