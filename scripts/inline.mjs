// Makes the single-file build for mobile webviews from the web build: the
// wasm is embedded as base64 and instantiated synchronously when the module
// is imported, so a page opened from file:// (where fetching a .wasm fails)
// works, and no init() call is needed.
// usage: node scripts/inline.mjs <web-dir> <out-dir> <crate>
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [webDir, outDir, crate] = process.argv.slice(2);
const glue = readFileSync(join(webDir, `${crate}.js`), "utf8");
const wasm = readFileSync(join(webDir, `${crate}_bg.wasm`));
const types = readFileSync(join(webDir, `${crate}.d.ts`), "utf8");

// The web glue resolves the .wasm next to itself only inside the async
// default init; the inline build never calls it, so that URL is never fetched.
const body = glue.replace(/^\/\* @ts-self-types=.*\*\/\n/, "");
const loader = `
const __wasmBase64 = "${wasm.toString("base64")}";
function __decodeWasm(b64) {
  const text = atob(b64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
initSync({ module: __decodeWasm(__wasmBase64) });
`;
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, `${crate}.js`), `/* @ts-self-types="./${crate}.d.ts" */\n${body}\n${loader}`);
// Same API as the web build, already initialised: init/initSync stay
// exported (calling them again is harmless) so code written for ./web works.
writeFileSync(join(outDir, `${crate}.d.ts`), types);
writeFileSync(join(outDir, "package.json"), '{ "type": "module", "sideEffects": true }\n');
