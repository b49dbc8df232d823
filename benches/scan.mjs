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
  "vowels", "consonant_clusters", "rare_bigrams", "latin_ext_letters", "combining_marks",
  "vietnamese_letters", "cyrillic_letters", "greek_letters",
  "armenian_letters", "georgian_letters", "hebrew_letters", "arabic_letters",
  "devanagari_letters", "bengali_letters", "tamil_letters", "indic_letters",
  "thai_letters", "other_letters", "script_words", "long_word_excess", "han",
  "kana", "hangul", "cjk_runs", "cjk_punct", "digits", "digit_runs",
  "digit_triples", "space_before_digit", "newlines", "blank_lines",
  "indent_runs", "indent_chars", "tabs", "ascii_punct", "punct_runs",
  "punct_before_word", "bmp_symbols", "astral_symbols", "emoji", "bmp_emoji",
  "flags", "emoji_parts", "base64_chars", "hex_chars", "repeat_pieces",
  "utf8_bytes", "latin_ext_a_letters", "cyrillic_ext_letters", "arabic_ext_letters",
  "pair_cuts", "vietnamese_line_letters",
];
export const FEATURE_COUNT = FEATURE_NAMES.length;

const [LATIN_LETTERS, WORDS, CASE_HUMPS, UPPER_LETTERS, CAPS_LETTERS, VOWELS,
  CONSONANT_CLUSTERS, RARE_BIGRAMS, LATIN_EXT_LETTERS, COMBINING_MARKS, VIETNAMESE_LETTERS,
  CYRILLIC_LETTERS, GREEK_LETTERS, ARMENIAN_LETTERS, GEORGIAN_LETTERS,
  HEBREW_LETTERS, ARABIC_LETTERS, DEVANAGARI_LETTERS, BENGALI_LETTERS,
  TAMIL_LETTERS, INDIC_LETTERS, THAI_LETTERS, OTHER_LETTERS, SCRIPT_WORDS,
  LONG_WORD_EXCESS, HAN, KANA, HANGUL, CJK_RUNS, CJK_PUNCT, DIGITS, DIGIT_RUNS,
  DIGIT_TRIPLES, SPACE_BEFORE_DIGIT, NEWLINES, BLANK_LINES, INDENT_RUNS,
  INDENT_CHARS, TABS, ASCII_PUNCT, PUNCT_RUNS, PUNCT_BEFORE_WORD, BMP_SYMBOLS,
  ASTRAL_SYMBOLS, EMOJI, BMP_EMOJI, FLAGS, EMOJI_PARTS, BASE64_CHARS,
  HEX_CHARS, REPEAT_PIECES, UTF8_BYTES, LATIN_EXT_A_LETTERS,
  CYRILLIC_EXT_LETTERS, ARABIC_EXT_LETTERS, PAIR_CUTS, VIETNAMESE_LINE_LETTERS] = FEATURE_NAMES.keys();

const LONG_WORD = 8;
// Per ASCII letter, the letters that commonly follow it in English, one bit
// each (COMMON_PAIRS in scan.rs).
const COMMON_PAIRS = [
  20887918, 17976081, 1985941, 1327449, 32487807, 1720625, 1196433, 1720593, 36633727, 262288,
  262161, 18664217, 1364251, 20761981, 8322415, 2021657, 1048576, 18775391, 20760981, 22989213,
  964959, 337, 4612497, 557073, 843776, 16,
];
// Per ASCII letter, the tier (0 to 3) of each pair it starts, two bits per
// following letter (PAIR_TIERS in classes.rs; rows under 2^53, so exact as
// numbers), unpacked into one byte per pair: PAIR_TIER[a * 26 + b].
const PAIR_TIER_ROWS = [
  0x86503301d8703, 0xdfdfbdf75fdfe, 0xdfe278b4e3c9d, 0xefffbdffdfcba, 0xe1b41a16fd61a,
  0xefd67cbbde5f9, 0xbfe97eabe6dff, 0xffd3bdffdfcfd, 0x77603401fc001, 0xfffcfaffefdfe,
  0xfffaffffeedfe, 0xdfd5f9f3df47d, 0xefeef597efcb5, 0xefd1f9b9ec91d, 0xe8403000a9311,
  0xdfd174d3e7dbd, 0xffdffffffffff, 0xdfa17c59dd85d, 0xefd1b9e9d3cee, 0xcfd579efd3dad,
  0xf7f03703ddd62, 0xfffefeffdecfc, 0xfafe7d7fd3dfe, 0xebf7fbffffeee, 0xfef5f6affffff,
  0xeffbfefffbdff,
];
const PAIR_TIER = new Uint8Array(26 * 26);
for (let a = 0; a < 26; a++) {
  for (let b = 0; b < 26; b++) PAIR_TIER[a * 26 + b] = Math.floor(PAIR_TIER_ROWS[a] / 4 ** b) % 4;
}
const BASE64_MIN_RUN = 20;
const HEX_MIN_RUN = 8;
// In a run of one repeated ASCII character, the characters after the first
// few leave the other counts; each full piece of a token's length is a repeat piece.
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
  let prevLetter = 26; // the previous character's letter index when an ASCII letter
  let wordUpper = false;
  let wordLower = false;
  let afterNewline = false;
  // The current run of ASCII alphanumerics, and of base64 characters.
  let anLen = 0, anUpper = false, anLower = false, anDigit = false, anNotHex = false;
  let b64Len = 0, b64Upper = false, b64Lower = false, b64Digit = false;
  // The previous character and how many times in a row it came.
  let prev = -1, same = 0;
  // The line has a letter only Vietnamese writes (VietnameseLine in Rust);
  // before it, the line's Latin-1 and Latin Extended-A/B letters.
  let vnLine = false, vnLatin1 = 0, vnExtA = 0;

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
          if ((same - free) % (rule ? RULE_REPEAT_PIECE : CHAR_REPEAT_PIECE) === 0) f[REPEAT_PIECES]++;
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
      if (asciiUpper || asciiLower) {
        const letter = l - 0x61;
        if (prevLetter < 26) {
          if ((COMMON_PAIRS[prevLetter] & (1 << letter)) === 0) f[RARE_BIGRAMS]++;
          f[PAIR_CUTS] += PAIR_TIER[prevLetter * 26 + letter];
        }
        prevLetter = letter;
      } else {
        prevLetter = 26;
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
        vnLine = false; vnLatin1 = 0; vnExtA = 0;
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
      prevLetter = 26;
      if (u === 0xa0 || u === 0x1680 || (u >= 0x2000 && u <= 0x200a) || u === 0x202f || u === 0x205f) {
        c = SPACE;
      } else if (u === 0x2028 || u === 0x2029 || u === 0x85) {
        f[NEWLINES]++;
        vnLine = false; vnLatin1 = 0; vnExtA = 0;
        c = NEWLINE;
      } else if (u >= 0xc0 && u <= 0xde && u !== 0xd7) {
        script = LATIN_EXT_LETTERS;
        upper = true;
      } else if (u >= 0xdf && u <= 0xff && u !== 0xf7) {
        script = LATIN_EXT_LETTERS;
        lower = true;
      } else if (u >= 0x1ea0 && u <= 0x1ef9) {
        script = VIETNAMESE_LETTERS;
        upper = (u & 1) === 0;
        lower = !upper;
      } else if (u >= 0x100 && u <= 0x24f) {
        script = LATIN_EXT_A_LETTERS;
        upper = (u & 1) === 0;
        lower = !upper;
      } else if (u >= 0x1e00 && u <= 0x1eff) {
        script = LATIN_EXT_LETTERS;
        upper = (u & 1) === 0;
        lower = !upper;
      } else if (u >= 0x250 && u <= 0x2af) {
        script = LATIN_EXT_LETTERS;
        lower = true;
      } else if ((u >= 0x300 && u <= 0x36f) || (u >= 0x1dc0 && u <= 0x1dff)) {
        script = COMBINING_MARKS;
      } else if (u >= 0x391 && u <= 0x3a9) {
        script = GREEK_LETTERS;
        upper = true;
      } else if ((u >= 0x370 && u <= 0x3ff) || (u >= 0x1f00 && u <= 0x1fff)) {
        script = GREEK_LETTERS;
        lower = true;
      } else if ((u >= 0x410 && u <= 0x42f) || u === 0x401) {
        // Russian's alphabet: А to я, Ё and ё.
        script = CYRILLIC_LETTERS;
        upper = true;
      } else if ((u >= 0x430 && u <= 0x44f) || u === 0x451) {
        script = CYRILLIC_LETTERS;
        lower = true;
      } else if (u >= 0x400 && u <= 0x40f) {
        script = CYRILLIC_EXT_LETTERS;
        upper = true;
      } else if (u >= 0x450 && u <= 0x45f) {
        script = CYRILLIC_EXT_LETTERS;
        lower = true;
      } else if (u >= 0x460 && u <= 0x52f) {
        script = CYRILLIC_EXT_LETTERS;
        upper = (u & 1) === 0;
        lower = !upper;
      } else if (u >= 0x531 && u <= 0x556) {
        script = ARMENIAN_LETTERS;
        upper = true;
      } else if (u >= 0x530 && u <= 0x58f) {
        script = ARMENIAN_LETTERS;
        lower = true;
      } else if ((u >= 0x590 && u <= 0x5ff) || (u >= 0xfb1d && u <= 0xfb4f)) {
        script = HEBREW_LETTERS;
      } else if ((u >= 0x671 && u <= 0x6d3) || (u >= 0x750 && u <= 0x77f) || (u >= 0x8a0 && u <= 0x8ff)) {
        // The letters of languages other than Arabic (Persian, Urdu, …).
        script = ARABIC_EXT_LETTERS;
      } else if ((u >= 0x600 && u <= 0x6ff) || (u >= 0xfb50 && u <= 0xfdff) || (u >= 0xfe70 && u <= 0xfeff)) {
        script = ARABIC_LETTERS;
      } else if (u >= 0x900 && u <= 0x97f) {
        script = DEVANAGARI_LETTERS;
      } else if (u >= 0x980 && u <= 0x9ff) {
        script = BENGALI_LETTERS;
      } else if (u >= 0xb80 && u <= 0xbff) {
        script = TAMIL_LETTERS;
      } else if (u >= 0xa00 && u <= 0xdff) {
        script = INDIC_LETTERS;
      } else if (u >= 0xe00 && u <= 0xeff) {
        script = THAI_LETTERS;
      } else if ((u >= 0x10a0 && u <= 0x10ff) || (u >= 0x1c90 && u <= 0x1cbf) || (u >= 0x2d00 && u <= 0x2d2f)) {
        script = GEORGIAN_LETTERS;
      } else if ((u >= 0x1100 && u <= 0x11ff) || (u >= 0x3130 && u <= 0x318f) || (u >= 0xac00 && u <= 0xd7af)) {
        f[HANGUL]++;
        c = CJK;
      } else if (u >= 0x700 && u <= 0x1dbf) {
        script = OTHER_LETTERS;
      } else if (u === 0x200c) {
        // The zero-width non-joiner, inside Persian and Indic words: a
        // letter of no script.
        script = BMP_SYMBOLS;
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
      if (u === 0x1a0 || u === 0x1a1 || u === 0x1af || u === 0x1b0 || script === VIETNAMESE_LETTERS) {
        // A letter only Vietnamese writes: the line's Latin letters so far
        // move to vietnamese_line_letters.
        if (!vnLine) {
          vnLine = true;
          f[LATIN_EXT_LETTERS] -= vnLatin1;
          f[LATIN_EXT_A_LETTERS] -= vnExtA;
          f[VIETNAMESE_LINE_LETTERS] += vnLatin1 + vnExtA;
          vnLatin1 = 0; vnExtA = 0;
        }
      }
      if ((script === LATIN_EXT_LETTERS || script === LATIN_EXT_A_LETTERS) && u <= 0x24f) {
        if (vnLine) f[VIETNAMESE_LINE_LETTERS]++;
        else {
          f[script]++;
          if (script === LATIN_EXT_LETTERS) vnLatin1++;
          else vnExtA++;
        }
      } else {
        f[script]++;
      }
      // A word that starts with a letter of a non-Latin alphabet.
      if (cls !== LETTER && ((script >= CYRILLIC_LETTERS && script <= OTHER_LETTERS) || script === CYRILLIC_EXT_LETTERS || script === ARABIC_EXT_LETTERS)) f[SCRIPT_WORDS]++;
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
  f[UTF8_BYTES] = utf8Length(text);
  return f;
}

/** UTF-8 bytes of a string (lone surrogates as U+FFFD, 3 bytes). */
function utf8Length(text) {
  let bytes = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const u = text.charCodeAt(i);
    if (u < 0x80) bytes += 1;
    else if (u < 0x800) bytes += 2;
    else if (u >= 0xd800 && u <= 0xdbff && i + 1 < n && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
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
 * @param {{ text: number[], conservative_text: number[], bytes_bound: boolean }} weights one family's row
 * @param {"calibrated" | "conservative"} variant
 */
export function tokensOfCounts(counts, weights, variant) {
  // A byte-level BPE never gives more tokens than UTF-8 bytes.
  const most = weights.bytes_bound ? counts[UTF8_BYTES] : Infinity;
  const calibrated = Math.min(Math.max(dot(counts, weights.text), 0), most);
  if (variant !== "conservative") return calibrated;
  // The calibrated estimate plus its spread's margin (SPREAD_TOKENS in
  // src/estimate/calibrated/mod.rs, and its square root, which gives the
  // same double as Math.sqrt's or one ulp off).
  const variance = dot(counts, weights.conservative_text) * (SPREAD_TOKENS + calibrated);
  return Math.max(Math.min(calibrated + sqrt(Math.max(variance, 0)), most), calibrated);
}

/** Where the spread turns from the counts' square root to their size. */
const SPREAD_TOKENS = 40;

/** The estimator's square root (Newton's from the halved exponent). */
function sqrt(x) {
  if (!(x > 0)) return 0;
  if (x === Infinity) return x;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, (view.getBigUint64(0) >> 1n) + 0x1ff8000000000000n);
  let g = view.getFloat64(0);
  for (let i = 0; i < 64; i++) {
    const next = 0.5 * (g + x / g);
    if (next === g) break;
    g = next;
  }
  return g;
}

/**
 * What the wasm `estimateTextTokens` returns for a text: the estimate
 * rounded up.
 */
export function estimateTextTokens(text, weights, variant) {
  return Math.ceil(tokensOfCounts(scan(text), weights, variant));
}
