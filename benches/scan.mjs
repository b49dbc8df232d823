// A plain-JavaScript port of the calibrated estimator's scanner (`scan()`
// in src/estimate/calibrated/scan.rs, the classes in classes.rs beside it)
// and of its weighted sum: the baseline the speed benchmark measures the
// wasm estimator against.
//
// It must count exactly what the Rust scanner counts, rule for rule, or the
// comparison is not "the same classes": tests/js/scan_port.test.mjs checks it
// count by count against the Rust scanner and estimate by estimate against
// the wasm. Keep the two in step when the scanner changes.
//
// Written for speed as a JS engineer would: one loop over UTF-16 units that
// decodes surrogate pairs into code points (as Rust's `chars()` does; a lone
// surrogate becomes U+FFFD, as it does when wasm-bindgen copies a JS string),
// the state in local variables, the counts in a typed array. The weights are
// not in this file: the benchmark reads them from the crate
// (`examples/dump_weights.rs`, see ./weights.mjs).

/** Names of the counts, in the order `scan` returns them (FEATURE_NAMES in Rust). */
export const FEATURE_NAMES = [
  "latin_letters", "words", "case_humps", "upper_letters", "caps_letters",
  "vowels", "consonant_clusters", "latin_ext_letters", "cyrillic_letters",
  "greek_letters", "other_letters", "long_word_excess", "han", "kana",
  "hangul", "cjk_runs", "cjk_punct", "digits", "digit_runs", "digit_triples",
  "space_before_digit", "newlines", "blank_lines", "indent_runs",
  "indent_chars", "tabs", "ascii_punct", "punct_runs", "punct_before_word",
  "bmp_symbols", "astral_symbols", "emoji", "bmp_emoji", "flags",
  "emoji_parts", "base64_chars", "hex_chars",
];
export const FEATURE_COUNT = FEATURE_NAMES.length;

const LATIN_LETTERS = 0, WORDS = 1, CASE_HUMPS = 2, UPPER_LETTERS = 3,
  CAPS_LETTERS = 4, VOWELS = 5, CONSONANT_CLUSTERS = 6, LATIN_EXT_LETTERS = 7,
  CYRILLIC_LETTERS = 8, GREEK_LETTERS = 9, OTHER_LETTERS = 10,
  LONG_WORD_EXCESS = 11, HAN = 12, KANA = 13, HANGUL = 14, CJK_RUNS = 15,
  CJK_PUNCT = 16, DIGITS = 17, DIGIT_RUNS = 18, DIGIT_TRIPLES = 19,
  SPACE_BEFORE_DIGIT = 20, NEWLINES = 21, BLANK_LINES = 22, INDENT_RUNS = 23,
  INDENT_CHARS = 24, TABS = 25, ASCII_PUNCT = 26, PUNCT_RUNS = 27,
  PUNCT_BEFORE_WORD = 28, BMP_SYMBOLS = 29, ASTRAL_SYMBOLS = 30, EMOJI = 31,
  BMP_EMOJI = 32, FLAGS = 33, EMOJI_PARTS = 34, BASE64_CHARS = 35,
  HEX_CHARS = 36;

const LONG_WORD = 8;
const BASE64_MIN_RUN = 20;
const HEX_MIN_RUN = 8;
// In a run of one repeated ASCII character, the characters after the first
// few leave the other counts; each full piece of a token's length is a word.
const RULE_REPEAT_FREE = 3, RULE_REPEAT_PIECE = 64;
const CHAR_REPEAT_FREE = 8, CHAR_REPEAT_PIECE = 8;

// Character classes as far as run boundaries go (enum Class in Rust).
const START = 0, LETTER = 1, DIGIT = 2, SPACE = 3, NEWLINE = 4, PUNCT = 5,
  CJK = 6, EMOJI_CLASS = 7;

/**
 * Counts the character classes and run shapes of `text` in one pass.
 * @param {string} text
 * @returns {Uint32Array} one count per entry of FEATURE_NAMES
 */
export function scan(text) {
  const f = new Uint32Array(FEATURE_COUNT);
  let cls = START;
  let runLen = 0;
  let prevLower = false;
  let consonants = 0;
  let wordUpper = false;
  let wordLower = false;
  let afterNewline = false;
  // The current run of ASCII alphanumerics, and of base64 characters.
  let anLen = 0, anUpper = false, anLower = false, anDigit = false, anNotHex = false;
  let b64Len = 0, b64Upper = false, b64Lower = false, b64Digit = false;
  // The previous character and how many times in a row it came.
  let prev = -1, same = 0;

  const n = text.length;
  for (let i = 0; i < n; i++) {
    let u = text.charCodeAt(i);
    if (u >= 0xd800 && u <= 0xdfff) {
      const lo = u <= 0xdbff && i + 1 < n ? text.charCodeAt(i + 1) : 0;
      if (lo >= 0xdc00 && lo <= 0xdfff) {
        u = ((u - 0xd800) << 10) + (lo - 0xdc00) + 0x10000;
        i++;
      } else {
        u = 0xfffd;
      }
    }

    // A repeat of an ASCII letter or punctuation mark beyond the first few
    // changes nothing but the count of its pieces.
    if (u === prev) {
      same++;
      if (same > RULE_REPEAT_FREE && u < 0x80 && !(u >= 0x30 && u <= 0x39) && !(u === 0x20 || (u >= 0x09 && u <= 0x0d))) {
        const rule = u === 0x23 || u === 0x2a || u === 0x2b || u === 0x2d || u === 0x2e ||
          u === 0x2f || u === 0x3d || u === 0x5f || u === 0x7e || u === 0x25;
        const free = rule ? RULE_REPEAT_FREE : CHAR_REPEAT_FREE;
        if (same > free) {
          if ((same - free) % (rule ? RULE_REPEAT_PIECE : CHAR_REPEAT_PIECE) === 0) f[WORDS]++;
          continue;
        }
      }
    } else {
      prev = u;
      same = 1;
    }

    // classify: per-character counts and the class.
    let c = PUNCT;
    let script = -1; // a letter of this script, with this case
    let upper = false;
    let lower = false;
    const asciiUpper = u >= 0x41 && u <= 0x5a;
    const asciiLower = u >= 0x61 && u <= 0x7a;
    const asciiDigit = u >= 0x30 && u <= 0x39;
    if (u < 0x80) {
      const l = u | 0x20;
      if ((asciiUpper || asciiLower) && (l === 0x61 || l === 0x65 || l === 0x69 || l === 0x6f || l === 0x75)) {
        f[VOWELS]++;
        consonants = 0;
      } else if (asciiUpper || asciiLower) {
        consonants++;
        if (consonants >= 3) f[CONSONANT_CLUSTERS]++;
      } else {
        consonants = 0;
      }
      if (asciiLower) {
        script = LATIN_LETTERS;
        lower = true;
      } else if (asciiUpper) {
        script = LATIN_LETTERS;
        upper = true;
      } else if (asciiDigit) {
        f[DIGITS]++;
        c = DIGIT;
      } else if (u === 0x0a) {
        f[NEWLINES]++;
        if (afterNewline) f[BLANK_LINES]++;
        c = NEWLINE;
      } else if (u === 0x09) {
        f[TABS]++;
        c = SPACE;
      } else if (u === 0x20 || u === 0x0d || u === 0x0b || u === 0x0c) {
        c = SPACE;
      } else {
        f[ASCII_PUNCT]++;
        c = PUNCT;
      }
    } else {
      consonants = 0;
      if (u === 0xa0 || u === 0x1680 || (u >= 0x2000 && u <= 0x200a) || u === 0x202f || u === 0x205f) {
        c = SPACE;
      } else if (u === 0x2028 || u === 0x2029 || u === 0x85) {
        f[NEWLINES]++;
        c = NEWLINE;
      } else if (u >= 0xc0 && u <= 0xde && u !== 0xd7) {
        script = LATIN_EXT_LETTERS;
        upper = true;
      } else if (u >= 0xdf && u <= 0xff && u !== 0xf7) {
        script = LATIN_EXT_LETTERS;
        lower = true;
      } else if ((u >= 0x100 && u <= 0x24f) || (u >= 0x1e00 && u <= 0x1eff)) {
        script = LATIN_EXT_LETTERS;
        upper = (u & 1) === 0;
        lower = !upper;
      } else if (u >= 0x300 && u <= 0x36f) {
        script = LATIN_EXT_LETTERS;
      } else if (u >= 0x391 && u <= 0x3a9) {
        script = GREEK_LETTERS;
        upper = true;
      } else if (u >= 0x370 && u <= 0x3ff) {
        script = GREEK_LETTERS;
        lower = true;
      } else if (u >= 0x400 && u <= 0x42f) {
        script = CYRILLIC_LETTERS;
        upper = true;
      } else if (u >= 0x430 && u <= 0x52f) {
        script = CYRILLIC_LETTERS;
        lower = true;
      } else if ((u >= 0x1100 && u <= 0x11ff) || (u >= 0x3130 && u <= 0x318f) || (u >= 0xac00 && u <= 0xd7af)) {
        f[HANGUL]++;
        c = CJK;
      } else if (u >= 0x530 && u <= 0x1dbf) {
        script = OTHER_LETTERS;
      } else if ((u >= 0x3040 && u <= 0x30ff) || (u >= 0x31f0 && u <= 0x31ff) || (u >= 0xff66 && u <= 0xff9f)) {
        f[KANA]++;
        c = CJK;
      } else if ((u >= 0x3400 && u <= 0x4dbf) || (u >= 0x4e00 && u <= 0x9fff) || (u >= 0xf900 && u <= 0xfaff) || (u >= 0x20000 && u <= 0x3134f)) {
        f[HAN]++;
        c = CJK;
      } else if ((u >= 0x3000 && u <= 0x303f) || (u >= 0xff00 && u <= 0xff65)) {
        f[CJK_PUNCT]++;
        c = PUNCT;
      } else if ((u >= 0xfe00 && u <= 0xfe0f) || u === 0x200d || u === 0x20e3 || (u >= 0x1f3fb && u <= 0x1f3ff) || (u >= 0xe0000 && u <= 0xe007f)) {
        f[EMOJI_PARTS]++;
        c = EMOJI_CLASS;
      } else if (u >= 0x1f1e6 && u <= 0x1f1ff) {
        f[FLAGS]++;
        c = EMOJI_CLASS;
      } else if ((u >= 0x2600 && u <= 0x27bf) || (u >= 0x2b00 && u <= 0x2bff)) {
        f[BMP_EMOJI]++;
        c = EMOJI_CLASS;
      } else if (u >= 0x1f000 && u <= 0x1faff) {
        f[EMOJI]++;
        c = EMOJI_CLASS;
      } else if (u <= 0xffff) {
        f[BMP_SYMBOLS]++;
        c = PUNCT;
      } else {
        f[ASTRAL_SYMBOLS]++;
        c = PUNCT;
      }
    }
    if (script >= 0) {
      // Scanner::letter
      f[script]++;
      if (upper) {
        f[UPPER_LETTERS]++;
        if (prevLower) f[CASE_HUMPS]++;
      }
      prevLower = lower;
      wordUpper = wordUpper || upper;
      wordLower = wordLower || lower;
      c = LETTER;
    }

    // track_shapes: ASCII alphanumeric runs and base64 runs.
    const alnum = asciiUpper || asciiLower || asciiDigit;
    if (alnum) {
      anLen++;
      anUpper = anUpper || asciiUpper;
      anLower = anLower || asciiLower;
      anDigit = anDigit || asciiDigit;
      anNotHex = anNotHex || !(asciiDigit || (u >= 0x41 && u <= 0x46) || (u >= 0x61 && u <= 0x66));
    } else if (anLen > 0) {
      if (anLen >= HEX_MIN_RUN && !anNotHex && anDigit && (anUpper || anLower)) f[HEX_CHARS] += anLen;
      anLen = 0; anUpper = false; anLower = false; anDigit = false; anNotHex = false;
    }
    if (alnum || u === 0x2b || u === 0x2f || u === 0x3d || u === 0x2d || u === 0x5f) {
      b64Len++;
      b64Upper = b64Upper || asciiUpper;
      b64Lower = b64Lower || asciiLower;
      b64Digit = b64Digit || asciiDigit;
    } else if (b64Len > 0) {
      if (b64Len >= BASE64_MIN_RUN && b64Upper && b64Lower && b64Digit) f[BASE64_CHARS] += b64Len;
      b64Len = 0; b64Upper = false; b64Lower = false; b64Digit = false;
    }

    if (c !== cls) {
      // end_run(previous class)
      if (cls === LETTER) {
        if (runLen > LONG_WORD) f[LONG_WORD_EXCESS] += runLen - LONG_WORD;
        if (runLen >= 2 && wordUpper && !wordLower) f[CAPS_LETTERS] += runLen;
      } else if (cls === DIGIT) {
        f[DIGIT_TRIPLES] += Math.ceil(runLen / 3);
      } else if (cls === SPACE && runLen >= 2) {
        f[INDENT_RUNS]++;
        f[INDENT_CHARS] += runLen;
      }
      // start_run(class)
      runLen = 0;
      wordUpper = false;
      wordLower = false;
      if (c === LETTER) {
        f[WORDS]++;
        if (cls === PUNCT && f[PUNCT_RUNS] > 0) {
          f[PUNCT_RUNS]--;
          f[PUNCT_BEFORE_WORD]++;
        }
      } else if (c === DIGIT) {
        f[DIGIT_RUNS]++;
        if (cls === SPACE) f[SPACE_BEFORE_DIGIT]++;
      } else if (c === PUNCT) {
        f[PUNCT_RUNS]++;
      } else if (c === CJK) {
        f[CJK_RUNS]++;
      }
      if (c !== LETTER) prevLower = false;
    }
    runLen++;
    if (c !== SPACE) afterNewline = c === NEWLINE;
    cls = c;
  }

  // finish
  if (cls === LETTER) {
    if (runLen > LONG_WORD) f[LONG_WORD_EXCESS] += runLen - LONG_WORD;
    if (runLen >= 2 && wordUpper && !wordLower) f[CAPS_LETTERS] += runLen;
  } else if (cls === DIGIT) {
    f[DIGIT_TRIPLES] += Math.ceil(runLen / 3);
  } else if (cls === SPACE && runLen >= 2) {
    f[INDENT_RUNS]++;
    f[INDENT_CHARS] += runLen;
  }
  if (anLen >= HEX_MIN_RUN && !anNotHex && anDigit && (anUpper || anLower)) f[HEX_CHARS] += anLen;
  if (b64Len >= BASE64_MIN_RUN && b64Upper && b64Lower && b64Digit) f[BASE64_CHARS] += b64Len;
  return f;
}

function dot(counts, weights) {
  // Left to right from zero, as Rust's `Iterator::sum` adds: the same doubles.
  let s = 0;
  for (let i = 0; i < FEATURE_COUNT; i++) s += counts[i] * weights[i];
  return s;
}

/**
 * Tokens for scanned counts (CalibratedEstimator::features), unrounded.
 * @param {Uint32Array} counts from `scan`
 * @param {{ text: number[], conservative_text: number[] }} weights one family's row
 * @param {"calibrated" | "conservative"} variant
 */
export function tokensOfCounts(counts, weights, variant) {
  const calibrated = Math.max(dot(counts, weights.text), 0);
  return variant === "conservative"
    ? Math.max(dot(counts, weights.conservative_text), calibrated)
    : calibrated;
}

/**
 * What the wasm `estimateTextTokens` returns for a text: the estimate
 * rounded up.
 */
export function estimateTextTokens(text, weights, variant) {
  return Math.ceil(tokensOfCounts(scan(text), weights, variant));
}
