// The crate's weight table for the JavaScript port (./scan.mjs), read from
// the crate itself by `examples/dump_weights.rs`, so no number is copied by
// hand. Optionally also the Rust scanner's counts of each text of a
// corpus-format JSONL file, to check the port count by count.

import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { dirname, resolve } from "node:path";

/** The repository root (this file is in benches/). */
export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/**
 * @param {string} [countsOf] a JSONL file whose lines have a `text` field
 * @returns {{ feature_names: string[],
 *             families: Record<string, { text: number[], conservative_text: number[] }>,
 *             counts?: number[][] }}
 */
export function rustTable(countsOf) {
  const args = ["run", "--quiet", "--example", "dump_weights"];
  if (countsOf) args.push("--", "--counts", resolve(countsOf));
  const out = execFileSync("cargo", args, {
    cwd: ROOT,
    encoding: "utf8",
    maxBuffer: 256 << 20,
    stdio: ["ignore", "pipe", "inherit"],
  });
  return JSON.parse(out);
}
