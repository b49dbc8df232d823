// Retakes docs/screenshot.png, the README's picture of the demonstration
// page: Debian's Chromium at 1280×800, the ladder and the token count of the
// page as it loads (200K window, a 150,000-token prompt). Needs pkg/
// (scripts/build) and tests/node_modules (scripts/setup).
//   node scripts/screenshot.mjs [out.png]
import path from "node:path";
import { fileURLToPath } from "node:url";
import { launch } from "../tests/js/browser.mjs";
import { startServer } from "./serve.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const out = process.argv[2] ?? path.join(root, "docs/screenshot.png");
const server = await startServer({ port: 0 });
const browser = await launch();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
  await page.goto(server.pageUrl);
  await page.waitForSelector('#main[data-ready="true"]');
  const top = await page.evaluate(() => document.getElementById("ladder-section").getBoundingClientRect().top + window.scrollY - 8);
  await page.screenshot({ path: out, fullPage: true, clip: { x: 100, y: top, width: 1080, height: 900 } });
  console.log(`screenshot: ${out}`);
} finally {
  await browser.close();
  await server.close();
}
