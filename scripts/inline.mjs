// Writes the wasm of a staged build as base64 into wasm_bytes.js, for the
// single-file webview build (src/wasm/js/inline.js imports it).
// usage: node scripts/inline.mjs <stage-dir> <crate>
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [stage, crate] = process.argv.slice(2);
const wasm = readFileSync(join(stage, `${crate}_bg.wasm`));
writeFileSync(join(stage, "wasm_bytes.js"), `export const wasmBase64 = "${wasm.toString("base64")}";\n`);
