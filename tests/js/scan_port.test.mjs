// The JavaScript port of the scanner (benches/scan.mjs), which the speed
// benchmark races against the wasm, counts what the Rust scanner counts and
// gives the wasm's estimates; otherwise the race would not compare the same
// classes. Checked on edge cases that reach every branch, on random strings
// drawn from those branches, and on the dev corpus (tests/corpus/, in the
// repository).
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { FEATURE_NAMES, estimateTextTokens, scan } from "../../benches/scan.mjs";
import { ROOT, rustTable } from "../../benches/weights.mjs";

const require = createRequire(import.meta.url);
const cc = require("../../pkg/node/compaction_core.js");

const FAMILIES = ["universal", "o200k", "cl100k", "claude", "qwen", "gemini", "llama3", "deepseek"];
const VARIANTS = ["calibrated", "conservative"];

const EDGE_CASES = [
  "",
  "parseJSON 42",
  "HTTPServer getXMLHttpRequest ABC DEFG a",
  "Strengths, rhythms and pneumonoultramicroscopic words.",
  "  indented\n\n\tcode\r\n \n\n  x",
  "x = 1234567; y=-12; z = 0.5e10",
  "0xdeadbeef12 a1b2c3d4e5f6 DEADBEEF 12345678 abcdefab",
  "aGVsbG8gd29ybGQgdGhpcyBpcyBiYXNlNjQ+/=_-aGVsbG8gd29ybGQ=",
  "你好，世界。漢字𠀀𪚥",
  "こんにちは、カタカナ ｶﾀｶﾅ ㇰ",
  "안녕하세요 가 ㄱㄴ",
  "Привет, мир! ЁЖЗ ԯ",
  // Cyrillic beyond Russian's alphabet, and Latin Extended-A/B.
  "Привіт, їжак! Ґанок Єва Ѐѐ Ђђ ѿ Ѡ Қазақ әліпби Әә ҰҮ",
  "Ąžuolas ėjo į mišką; Łódź, İstanbul ığdır, Țară, ǅ ǆ ȳ",
  // The Arabic alphabet, then Persian's and Urdu's letters beyond it.
  "السلام عليكم ٱ ۓ ۔ فارسی پژوهش گچ کتاب اردو ٹھیک ڈڑں ے ݐ ࢠ",
  "Ελληνικά ΑΒΓ άέ ϗ",
  "naïve café ÆØÅ ß × ÷ Ÿ ŁĄ Ḁḁ e\u0301",
  "עברית العربية हिन्दी ქართული",
  "Tiếng Việt: Người dùng đã được cập nhật. Ạ ỹ e\u0301\u0302 ɐʃ ᷀",
  // Vietnamese lines: their Latin-1 and Extended-A letters, before and after
  // the letter that marks the line (ơ ư or U+1EA0 to U+1EF9), and lines
  // without one (Croatian đ, Romanian ă, French).
  "Café à la crème không có tên ơ đã\nĐorđe ăsta déjà\u2028tùy chọn Ư ê\u0085ê ầ ă\nɐ ḁ ỹ ɐ ḁ é",
  "Հայերեն ԱԲ աբ ᲒᲔ ⴀ বাংলা தமிழ் తెలుగు ਪੰਜਾਬੀ ไทย ລາວ မြန်မာ ខ្មែរ ἀρχή",
  "می\u200cخواهم ﷲ ﻼ שָׁלוֹם ﬠ ࢠ",
  "👍🏽 👨‍👩‍👧 🇫🇷🇩🇪 ☀️ 1️⃣ ⬛ 🀄 🫠 \u{E0067}",
  "a\u2028b\u2029c\u0085d\u00a0e\u2003f\u202fg\u205fh\u1680i",
  "math 𝒜𝔅 ∑∫ → ‰ € ¶ ©",
  "lone \ud800 high, lone \udc00 low, swapped \udc00\ud800, end \ud83d",
  "[{\"name\":\"read_file\",\"args\":{\"path\":\"/src/main.rs\"}}]",
  // Long runs of one character: rule characters, letters, other punctuation,
  // digits and spaces (which repeats do not cut), and a run at the very start.
  "=".repeat(200) + "\n" + "-".repeat(64) + "name " + "#".repeat(67),
  "x".repeat(100) + "Y " + "aaaaaaaaab ZZZZZZZZZZZZZZZZZZ " + "^".repeat(33) + ")".repeat(17),
  "\0\0\0\0\0\0\0\0\0\0 " + "0".repeat(40) + " ".repeat(40) + "é".repeat(20) + "~".repeat(70),
  "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAbWFu+/////////8=",
];

// Characters from every branch of the classifier, to draw random strings from.
const POOL = [..."aeiouAEIOUbcdxyzBCDXYZ0123456789 \t\n\r\v\f.,;:!?\"'()[]{}<>+/=-_#@$%^&*|\\~`"]
  .concat([0xa0, 0x85, 0xc0, 0xd7, 0xde, 0xdf, 0xf7, 0xff, 0x100, 0x101, 0x24f, 0x1e00, 0x1e01,
    0x301, 0x391, 0x3a9, 0x3b1, 0x3ff, 0x400, 0x401, 0x40f, 0x410, 0x42f, 0x430, 0x44f, 0x450, 0x451, 0x456, 0x45f, 0x460, 0x461,
    0x4d8, 0x4d9, 0x52f, 0x670, 0x671, 0x6a9, 0x6cc, 0x6d3, 0x6d4, 0x6ff, 0x750, 0x77f, 0x8ff, 0x5d0, 0x627, 0x1100, 0x1dbf,
    0x2000, 0x200a, 0x200d, 0x2028, 0x2029, 0x202f, 0x205f, 0x20e3, 0x2192, 0x2600, 0x27bf, 0x2b00,
    0x3000, 0x3001, 0x3042, 0x30ff, 0x3130, 0x31f0, 0x3400, 0x4e00, 0x9fff, 0xac00, 0xd7af, 0xf900,
    0xfe0f, 0xff01, 0xff65, 0xff66, 0xff9f, 0xfffd, 0x10000, 0x1d49c, 0x1f1e6, 0x1f1ff, 0x1f3fb,
    0x1f44d, 0x1f600, 0x1faff, 0x20000, 0x3134f, 0xe0067, 0xe007f, 0x10fffd,
    0x1ea0, 0x1ef9, 0x1efa, 0x1dc0, 0x250, 0x2af, 0x2b0, 0x1f00, 0x531, 0x556, 0x561, 0x58f,
    0x5d0, 0xfb1d, 0x627, 0x6ff, 0x700, 0x8a0, 0xfb50, 0xfe70, 0xfeff, 0x915, 0x93f, 0x995,
    0xb95, 0xbcd, 0xa15, 0xc15, 0xdff, 0xe01, 0xe81, 0x10d0, 0x1c90, 0x2d00, 0x1000, 0x1780,
    0x200c, 0xe0, 0xf4, 0x103, 0x111, 0x1a0, 0x1a1, 0x1af, 0x1b0, 0x1ec7]
    .map((u) => String.fromCodePoint(u)));

function randomTexts(count, seed) {
  // A small deterministic generator (mulberry32), so failures reproduce.
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [];
  for (let i = 0; i < count; i++) {
    let text = "";
    const len = 1 + Math.floor(next() * 80);
    // Runs of one character make long words, indents and base64/hex runs;
    // now and then a long one, which the scanner cuts into pieces.
    while (text.length < len) {
      const times = next() < 0.05 ? 1 + Math.floor(next() * 150) : 1 + Math.floor(next() * 4);
      text += POOL[Math.floor(next() * POOL.length)].repeat(times);
    }
    out.push(text);
  }
  return out;
}

// The repository carries its copy of the corpus: a missing file is an error, not a skip.
const corpus = ["tokens-dev.jsonl", "multilingual-dev.jsonl"].flatMap((name) =>
  readFileSync(join(ROOT, "tests", "corpus", name), "utf8").split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l).text));
// Lone surrogates cannot travel through JSON to Rust; the wasm sees them as
// U+FFFD (wasm-bindgen's string copy), so they are checked against the wasm only.
const hasLoneSurrogate = (t) => /\p{Surrogate}/u.test(t);
const texts = [...EDGE_CASES, ...randomTexts(2000, 6), ...corpus];
const rustTexts = texts.filter((t) => !hasLoneSurrogate(t));

// One cargo run for the weights and the Rust scanner's counts of every text.
const dir = mkdtempSync(join(tmpdir(), "scan-port-"));
let table;
try {
  const file = join(dir, "texts.jsonl");
  writeFileSync(file, rustTexts.map((text) => JSON.stringify({ text })).join("\n"));
  table = rustTable(file);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

test("the port names the counts in the Rust order", () => {
  assert.deepEqual(FEATURE_NAMES, table.feature_names);
  assert.deepEqual(Object.keys(table.families).sort(), [...FAMILIES].sort());
});

test(`the port counts what the Rust scanner counts (${rustTexts.length} texts, ${corpus.length} of them from the dev corpus)`, () => {
  rustTexts.forEach((text, i) => {
    const port = Array.from(scan(text));
    if (port.join() !== table.counts[i].join()) {
      const diff = FEATURE_NAMES.filter((_, k) => port[k] !== table.counts[i][k])
        .map((name) => `${name}: port ${port[FEATURE_NAMES.indexOf(name)]}, rust ${table.counts[i][FEATURE_NAMES.indexOf(name)]}`);
      assert.fail(`${JSON.stringify(text.slice(0, 80))}: ${diff.join("; ")}`);
    }
  });
});

test("a lone surrogate counts as U+FFFD, as it does once copied into the wasm", () => {
  assert.deepEqual(scan("a\ud800b"), scan("a\ufffdb"));
  assert.deepEqual(scan("\udc00"), scan("\ufffd"));
  assert.deepEqual(scan("x\ud83d"), scan("x\ufffd"));
});

test(`the port gives the wasm's estimate for every family and variant (${texts.length} texts)`, () => {
  for (const tokenizer of FAMILIES) {
    for (const estimator of VARIANTS) {
      for (const text of texts) {
        const wasm = cc.estimateTextTokens(text, { estimator, tokenizer });
        const port = estimateTextTokens(text, table.families[tokenizer], estimator);
        assert.equal(port, wasm, `${tokenizer} ${estimator}: ${JSON.stringify(text.slice(0, 80))}`);
      }
    }
  }
});
