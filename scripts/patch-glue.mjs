// Speeds up how wasm-bindgen's glue copies a string into the wasm's memory:
//   node scripts/patch-glue.mjs <dir>   (the .js file of <dir> that holds the glue)
// The glue (wasm-bindgen 0.2.130, `passStringToWasm0`) copies the ASCII
// prefix of every string with a JavaScript loop, one `charCodeAt` and one
// store per char, and hands only the rest to `TextEncoder.encodeInto`. For
// the long strings this library takes (a history's JSON, a text to
// estimate) that loop is most of the copy: encodeInto is native. The patch
// keeps the loop for short strings (up to 64 chars, where the loop beats
// encodeInto's two reallocations) and sends a longer one to encodeInto whole,
// exactly as the glue already does from the first non-ASCII char on: the
// bytes written are the same. scripts/build runs it on each target's glue;
// it fails if the glue does not hold the loop exactly once (a new
// wasm-bindgen), so the patch is never silently lost or misapplied.
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [dir] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node scripts/patch-glue.mjs <dir>");
  process.exit(2);
}
// The web and node glue is wasm.js; the bundler target's is <crate>_bg.js.
const holders = readdirSync(dir)
  .filter((name) => name.endsWith(".js"))
  .map((name) => join(dir, name))
  .filter((file) => readFileSync(file, "utf8").includes("function passStringToWasm0("));
if (holders.length !== 1) {
  console.error(`patch-glue: ${dir}: ${holders.length} files define passStringToWasm0, expected 1`);
  process.exit(1);
}
const [file] = holders;
const glue = readFileSync(file, "utf8");
const loop = "\n    for (; offset < len; offset++) {\n        const code = arg.charCodeAt(offset);\n";
const start = glue.indexOf("function passStringToWasm0(");
const end = glue.indexOf("\n}\n", start);
const body = start < 0 ? "" : glue.slice(start, end);
if (body.split(loop).length !== 2) {
  console.error(`patch-glue: ${file}: passStringToWasm0's ASCII loop not found exactly once (a new wasm-bindgen?)`);
  process.exit(1);
}
const patched = body.replace(
  loop,
  "\n    // compaction-core (scripts/patch-glue.mjs): a long string goes to encodeInto whole.\n" +
    "    if (len <= 64) for (; offset < len; offset++) {\n        const code = arg.charCodeAt(offset);\n",
);
writeFileSync(file, glue.slice(0, start) + patched + glue.slice(end));
