//! The scanner: one pass over a text that counts its character classes and
//! run shapes ([`TextFeatures`]).
//!
//! `benches/scan.mjs` is a JavaScript port for the speed benchmark; change
//! both together (`tests/js/scan_port.test.mjs` names any count that
//! differs, `tests/estimate_golden.rs` any count that changed).

use super::classes::{
    A_ALNUM, A_ALPHA, A_BASE64, A_DIGIT, A_HEX, A_LOWER, A_REPEAT, A_RULE, A_UPPER, A_VOWEL, ASCII,
    Ascii, CLASSES, COMMON_CJK_LEADS, COMMON_PAIRS, Class, NO_LETTER, Other, PAIR_TIERS,
    ascii_count, common_cjk, other,
};
use super::features::{Feature as F, TextFeatures};
use super::vietnamese::VietnameseLine;

/// Letters in a word beyond this length count as `long_word_excess`: long
/// words are rare and split into more pieces than their length suggests.
const LONG_WORD: u32 = 8;
/// A run of base64 characters at least this long, mixing upper case, lower
/// case and digits, is encoded data rather than words.
const BASE64_MIN_RUN: u32 = 20;
/// A run of hex digits (with at least one digit and one letter) at least this
/// long is a hash or an id.
const HEX_MIN_RUN: u32 = 8;

/// In a run of one repeated ASCII character (`-----`, `=====`, `xxxxx`),
/// the characters after the first few leave the per-character and
/// run-length counts: vocabularies hold long runs of one character as few
/// tokens (an 80-dash rule is one o200k token, 10,000 `x` are 1,250), while
/// those counts price every character as if it were text. Instead, every
/// full piece of such a run as long as a vocabulary token counts as one
/// `repeat_pieces`, which the fit prices at one token, not fitted.
///
/// Why not a fitted weight: the corpus has such runs in a few dozen
/// samples, mostly short, and a weight fitted on them (mean relative
/// |error|, which fits some samples exactly) came out at 1 to 2 tokens per
/// character, ten to a hundred times the tokenizers' price: it absorbed the
/// leftover error of the few samples that have them. Counting them as words
/// (as before issue 23) held only while the `words` weight stayed near one
/// token; with the multilingual corpus it fell to 0.2–0.4.
///
/// Rule characters ([`A_RULE`]) leave the ordinary counts from the 4th on
/// (`...`, `---` and `***` cost what punctuation costs)…
const RULE_REPEAT_FREE: u32 = 3;
/// …and o200k and cl100k hold up to 64 of them in one token.
const RULE_REPEAT_PIECE: u32 = 64;
/// Other letters and punctuation ([`A_REPEAT`]) leave the ordinary counts
/// from the 9th on: shorter runs (`AAAAAAA` in the base64 of zero bytes,
/// `))))`, `Zzzz`) merge with their neighbours no better than other
/// characters do…
const CHAR_REPEAT_FREE: u32 = 8;
/// …and o200k and cl100k merge runs of one letter 8 to a token (`^`, `<`,
/// `?` too; brackets and quotes less).
const CHAR_REPEAT_PIECE: u32 = 8;

/// The longest text [`scan`] counts in one piece: every count is at most
/// the number of characters, so within a piece no `u32` count can wrap.
/// Only a text longer than this (possible on 64-bit targets alone) is
/// counted piece by piece, the pieces' counts added saturating.
const MAX_PIECE: usize = u32::MAX as usize;

/// Counts the character classes and run shapes of `text` in one pass.
///
/// ```
/// use compaction_scan::{scan, FEATURE_NAMES};
/// let f = scan("parseJSON 42");
/// let words = FEATURE_NAMES.iter().position(|n| *n == "words").unwrap();
/// assert_eq!(f.counts[words], 1);
/// ```
pub fn scan(text: &str) -> TextFeatures {
    // (Written as a conversion, not a comparison with MAX_PIECE: on a
    // 32-bit target no text is longer, and the comparison would always hold.)
    if u32::try_from(text.len()).is_ok() {
        scan_piece(text.as_bytes())
    } else {
        scan_in_pieces(text, MAX_PIECE)
    }
}

/// [`scan`] of a text longer than `max` bytes: the counts of pieces of at
/// most `max` bytes (cut between characters), added saturating.
fn scan_in_pieces(mut text: &str, max: usize) -> TextFeatures {
    let mut total = TextFeatures::default();
    while !text.is_empty() {
        // A character is at most 4 bytes, so a boundary is within 3 of any
        // point; a `max` under 4 still takes one whole character.
        let mut cut = max.min(text.len());
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        if cut == 0 {
            cut = text.chars().next().map_or(text.len(), char::len_utf8);
        }
        let (piece, rest) = text.split_at(cut);
        total.add(&scan_piece(piece.as_bytes()));
        text = rest;
    }
    total
}

/// Where a run of one repeated ASCII character stands (see
/// [`CHAR_REPEAT_FREE`]).
struct Repeat {
    /// The previous character when it was ASCII (0xFF, never a UTF-8 byte
    /// of its own, otherwise).
    prev: u8,
    /// How many times in a row it came.
    same: u32,
}

impl Repeat {
    /// Takes the ASCII character `b` (with its `bits`; `LETTER` when it is
    /// known to be a letter). `None`: it counts as usual. `Some(words)`: it
    /// is beyond the first few of a long repeat, and changes nothing but the
    /// count of the run's pieces (`words` is 1 when it completes one, else
    /// 0): the class, the runs and the word length stay as the first
    /// characters of the run left them.
    #[inline(always)]
    fn absorbs<const LETTER: bool>(&mut self, b: u8, bits: u16) -> Option<u32> {
        if b == self.prev {
            self.same += 1;
            let (free, piece) = if LETTER {
                // A letter is never a rule character.
                (CHAR_REPEAT_FREE, CHAR_REPEAT_PIECE)
            } else if self.same > RULE_REPEAT_FREE && bits & (A_RULE | A_REPEAT) != 0 {
                // RULE_REPEAT_FREE is the smaller: below it nothing is
                // absorbed, and the common case is decided in one comparison.
                if bits & A_RULE != 0 {
                    (RULE_REPEAT_FREE, RULE_REPEAT_PIECE)
                } else {
                    (CHAR_REPEAT_FREE, CHAR_REPEAT_PIECE)
                }
            } else {
                return None;
            };
            if self.same > free {
                return Some(u32::from((self.same - free).is_multiple_of(piece)));
            }
        } else {
            self.prev = b;
            self.same = 1;
        }
        None
    }
}

/// [`scan`] of at most [`MAX_PIECE`] bytes of valid UTF-8.
fn scan_piece(bytes: &[u8]) -> TextFeatures {
    // One loop over local state: small structs ([`Letters`], [`Runs`])
    // whose methods are inlined, so the compiler keeps it all in registers
    // (in wasm, in locals rather than in linear memory); `benches/ab.mjs`
    // showed no loss from that split (0.98 of the single function's time).
    // Words of ASCII letters, runs of spaces and runs of Han / kana / Hangul
    // are consumed by inner loops that skip what cannot change inside them. Each step was kept only if the wasm
    // `estimateTextTokens` got faster in Node (benches/estimator_speed.mjs);
    // `tests/js/scan_port.test.mjs` holds the counts to the plain port.
    let mut f = TextFeatures::default();
    // How many times each ASCII character other than a letter came
    // (outside long repeats): their per-character counts are read off it at
    // the end, one increment per character instead of one per count.
    let mut ascii = [0u32; 128];
    // How many times a run of each class followed one of each class
    // (`transitions[prev * CLASSES + next]`): the counts of run starts are
    // read off it at the end, one increment per change of class instead of
    // a match on the class (measured in wasm: 4% faster).
    let mut transitions = [0u32; CLASSES * CLASSES];
    let mut class = Class::Start;
    let mut run_len = 0u32;
    let mut letters = Letters {
        prev: NO_LETTER,
        ..Letters::default()
    };
    let mut blank_lines = 0u32;
    // The current letter run has a capital / a small letter (after its first
    // letter).
    let mut word_upper = false;
    let mut word_lower = false;
    // The previous character that was not horizontal space was a newline.
    let mut after_newline = false;
    // The current run of ASCII alphanumerics: its length and the OR and AND
    // of its characters' bits; the same for base64 characters (OR only).
    let mut runs = Runs::default();
    let mut repeat = Repeat { prev: 0, same: 0 };
    let mut case_mask = !0u16;
    let mut vietnamese = VietnameseLine::default();

    // The UTF-8 bytes, not `chars()`: most text is ASCII, and an ASCII byte
    // is its own character, answered by one table lookup. Other characters
    // are decoded by hand; the bytes are a `str`'s, so valid UTF-8, and the
    // counts are per character, as they would be over UTF-16.
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let next;
        if b < 0x80 {
            let Ascii { bits, class: c, .. } = ASCII[usize::from(b)];
            if c == Class::Letter {
                // A word of ASCII letters, consumed here in one go: inside it
                // nothing changes class, so the checks a class change needs
                // are left out, and the run counts are added at its end.
                if class != Class::Letter {
                    end_run(&mut f, class, run_len, word_upper, word_lower);
                    transitions[transition(class, Class::Letter)] += 1;
                    class = Class::Letter;
                    after_newline = false;
                    run_len = 0;
                    word_upper = false;
                    word_lower = false;
                    // The case of a word is that of its letters after the
                    // first (`aBCD` counts as capitals, `Abcd` does not),
                    // as the JS port counts it.
                    case_mask = 0;
                }
                let Word { n, any, all, case } =
                    letters.word(bytes, &mut i, &mut repeat, &mut case_mask, &mut f);
                word_upper |= case & A_UPPER != 0;
                word_lower |= case & A_LOWER != 0;
                run_len += n;
                runs.word(n, any, all);
                continue;
            }
            i += 1;
            if let Some(words) = repeat.absorbs::<false>(b, bits) {
                f[F::repeat_pieces] += words;
                continue;
            }
            ascii[usize::from(b)] += 1;
            letters.consonants = 0;
            letters.prev = NO_LETTER;
            if b == b'\n' {
                blank_lines += u32::from(after_newline);
            }
            runs.ascii(bits, &mut f);
            next = c;
        } else {
            let (u, len) = decode(bytes, i, b);
            i += len;
            repeat.prev = 0xFF;
            letters.consonants = 0;
            letters.prev = NO_LETTER;
            let Other {
                class: c,
                count,
                upper,
                lower,
            } = other(u);
            if let Some(count) = count {
                // A letter of Latin-1, Latin Extended-A/B (not IPA's, which
                // follow) or Vietnamese's block: out of the loop's way.
                if let 0xC0..=0x24F | 0x1EA0..=0x1EF9 = u
                    && c == Class::Letter
                {
                    // The line's number: the newlines so far (those outside
                    // ASCII are counted as they come, ASCII's in `ascii`),
                    // read here rather than kept on every newline.
                    let line = ascii[usize::from(b'\n')] + f[F::newlines];
                    vietnamese.letter(u, count, line, &mut f);
                } else {
                    f[count] += 1;
                }
            }
            if c == Class::Letter {
                letters.script_letter(count, upper, lower, class != Class::Letter, &mut f);
                word_upper |= upper;
                word_lower |= lower;
            }
            runs.end(&mut f);
            next = c;
        }
        if next != class {
            end_run(&mut f, class, run_len, word_upper, word_lower);
            transitions[transition(class, next)] += 1;
            run_len = 0;
            word_upper = false;
            word_lower = false;
            if next != Class::Letter {
                letters.prev_lower = false;
            }
        }
        run_len += 1;
        if next != Class::Space {
            after_newline = next == Class::Newline;
        }
        class = next;
        if b == b' ' {
            run_len += spaces(bytes, &mut i);
        } else if class == Class::Cjk {
            run_len += cjk_run(bytes, &mut i, &mut f);
        }
    }

    end_run(&mut f, class, run_len, word_upper, word_lower);
    // At most MAX_PIECE bytes, so it fits.
    f[F::utf8_bytes] += bytes.len() as u32;
    runs.end(&mut f);
    f[F::blank_lines] += blank_lines;
    letters.add_to(&mut f);
    add_counts(&mut f, &transitions, &ascii);
    f
}

/// The current run of ASCII alphanumerics (its length and the OR and AND of
/// its characters' bits) and of base64 characters (length and OR): hashes,
/// ids and encoded data, counted when the run ends. Its methods are inlined
/// into [`scan_piece`], whose registers (wasm locals) keep it.
struct Runs {
    alnum_len: u32,
    alnum_any: u16,
    alnum_all: u16,
    base64_len: u32,
    base64_any: u16,
}

impl Default for Runs {
    fn default() -> Runs {
        Runs {
            alnum_len: 0,
            alnum_any: 0,
            alnum_all: !0,
            base64_len: 0,
            base64_any: 0,
        }
    }
}

impl Runs {
    /// A word of `n` ASCII letters whose bits OR to `any` and AND to `all`.
    #[inline(always)]
    fn word(&mut self, n: u32, any: u16, all: u16) {
        self.alnum_len += n;
        self.alnum_any |= any;
        self.alnum_all &= all;
        self.base64_len += n;
        self.base64_any |= any;
    }

    /// An ASCII character other than a letter, with its `bits`: it extends
    /// the runs it belongs to and ends the others.
    #[inline(always)]
    fn ascii(&mut self, bits: u16, f: &mut TextFeatures) {
        if bits & A_ALNUM != 0 {
            self.alnum_len += 1;
            self.alnum_any |= bits;
            self.alnum_all &= bits;
        } else {
            self.end_alnum(f);
        }
        if bits & A_BASE64 != 0 {
            self.base64_len += 1;
            self.base64_any |= bits;
        } else {
            self.end_base64(f);
        }
    }

    /// Ends the run of alphanumerics, if one is open.
    #[inline(always)]
    fn end_alnum(&mut self, f: &mut TextFeatures) {
        if self.alnum_len > 0 {
            f[F::hex_chars] += hex_run(self.alnum_len, self.alnum_any, self.alnum_all);
            (self.alnum_len, self.alnum_any, self.alnum_all) = (0, 0, !0);
        }
    }

    /// Ends the run of base64 characters, if one is open.
    #[inline(always)]
    fn end_base64(&mut self, f: &mut TextFeatures) {
        if self.base64_len > 0 {
            f[F::base64_chars] += base64_run(self.base64_len, self.base64_any);
            (self.base64_len, self.base64_any) = (0, 0);
        }
    }

    /// Ends both runs (a character outside ASCII, or the end of the text).
    #[inline(always)]
    fn end(&mut self, f: &mut TextFeatures) {
        self.end_alnum(f);
        self.end_base64(f);
    }
}

/// What a word of ASCII letters gave [`Letters::word`]: its length, the OR
/// and AND of its letters' bits, and the case bits of its letters after the
/// first.
struct Word {
    n: u32,
    any: u16,
    all: u16,
    case: u16,
}

/// The letter counts of [`scan_piece`], in a struct its inlined
/// [`Letters::word`] updates: the compiler keeps them in registers (locals
/// in wasm), as when they were the loop's own variables.
#[derive(Default)]
struct Letters {
    /// ASCII letters, vowels among them, capitals among them.
    latin: u32,
    vowels: u32,
    upper: u32,
    /// Consonants in a row so far, and the runs of three or more.
    consonants: u32,
    clusters: u32,
    /// The previous character as a letter index (0 to 25) when it was an
    /// ASCII letter, else NO_LETTER; and the letter pairs rare in English.
    prev: u8,
    rare_bigrams: u32,
    /// The tiers of the letter pairs: how often the real tokenizers cut
    /// between them (`PAIR_TIERS`).
    pair_cuts: u32,
    /// A capital right after a small letter, and whether the previous
    /// letter was small.
    case_humps: u32,
    prev_lower: bool,
}

impl Letters {
    /// A word of ASCII letters from `bytes[*i]`, consumed in one go: inside
    /// it nothing changes class, so the checks a class change needs are left
    /// out, and the caller adds the run counts at its end.
    #[inline(always)]
    fn word(
        &mut self,
        bytes: &[u8],
        i: &mut usize,
        repeat: &mut Repeat,
        case_mask: &mut u16,
        f: &mut TextFeatures,
    ) -> Word {
        let (mut n, mut any, mut all, mut case) = (0u32, 0u16, !0u16, 0u16);
        while let Some(&b) = bytes.get(*i) {
            let Ascii { bits, letter, .. } = ASCII[usize::from(b)];
            if bits & A_ALPHA == 0 {
                break;
            }
            *i += 1;
            if let Some(words) = repeat.absorbs::<true>(b, bits) {
                f[F::repeat_pieces] += words;
                continue;
            }
            self.vowels += u32::from(bits & A_VOWEL);
            self.upper += u32::from(bits & A_UPPER != 0);
            // How English-like the letters are: words in other languages,
            // identifiers, codes and abbreviations have fewer vowels and
            // longer consonant clusters, and split into more pieces.
            // (Without branches: vowels and consonants alternate too
            // irregularly to predict.)
            self.consonants = if bits & A_VOWEL != 0 {
                0
            } else {
                self.consonants + 1
            };
            self.clusters += u32::from(self.consonants >= 3);
            // Words of other languages written in ASCII letters (Finnish,
            // Dutch, Polish, Indonesian) pair letters that English rarely
            // does, and split into more pieces. (Row 31 of the table, no
            // letter before, holds every pair: no branch.)
            let common = COMMON_PAIRS[usize::from(self.prev & 31)];
            self.rare_bigrams += (common >> letter) & 1 ^ 1;
            // How often the vocabularies cut between the two letters, 0
            // to 3 (row 31, no letter before, is all 0). One weighted
            // count measured as well as one count per tier.
            let tier = (PAIR_TIERS[usize::from(self.prev & 31)] >> (2 * letter)) & 3;
            self.pair_cuts += tier as u32;
            self.prev = letter;
            let upper = bits & A_UPPER != 0;
            // A capital right after a small letter starts a new piece in
            // camelCase (o200k splits there; the others merge worse there).
            self.case_humps += u32::from(upper && self.prev_lower);
            self.prev_lower = !upper;
            n += 1;
            any |= bits;
            all &= bits;
            case |= bits & *case_mask;
            *case_mask = !0;
        }
        self.latin += n;
        Word { n, any, all, case }
    }

    /// A letter outside ASCII (its per-script `count`, its case), `first` in
    /// its word: a word that starts with a letter of a non-Latin alphabet
    /// counts as a `script_words`.
    #[inline(always)]
    fn script_letter(
        &mut self,
        count: Option<F>,
        upper: bool,
        lower: bool,
        first: bool,
        f: &mut TextFeatures,
    ) {
        if first
            && let Some(count) = count
            && ((F::cyrillic_letters as u8..=F::other_letters as u8).contains(&(count as u8))
                || count == F::cyrillic_ext_letters
                || count == F::arabic_ext_letters)
        {
            f[F::script_words] += 1;
        }
        if upper {
            f[F::upper_letters] += 1;
        }
        self.case_humps += u32::from(upper && self.prev_lower);
        self.prev_lower = lower;
    }

    /// Adds the letter counts to `f`.
    fn add_to(&self, f: &mut TextFeatures) {
        f[F::latin_letters] += self.latin;
        f[F::vowels] += self.vowels;
        f[F::upper_letters] += self.upper;
        f[F::consonant_clusters] += self.clusters;
        f[F::rare_bigrams] += self.rare_bigrams;
        f[F::pair_cuts] += self.pair_cuts;
        f[F::case_humps] += self.case_humps;
    }
}

/// The rest of a run of spaces (indentation) from `bytes[*i]`, in one go:
/// spaces feed no per-character count, only the run length (returned).
#[inline(always)]
fn spaces(bytes: &[u8], i: &mut usize) -> u32 {
    let start = *i;
    while bytes.get(*i) == Some(&b' ') {
        *i += 1;
    }
    // At most MAX_PIECE bytes, so it fits.
    (*i - start) as u32
}

/// The rest of a run of Chinese, Japanese or Korean characters from
/// `bytes[*i]`, taken in one go: inside it only the script counts and the
/// run length (returned) change.
#[inline(always)]
fn cjk_run(bytes: &[u8], i: &mut usize, f: &mut TextFeatures) -> u32 {
    let mut n = 0;
    while let Some(&lead) = bytes.get(*i) {
        if !COMMON_CJK_LEADS.contains(&lead) {
            break;
        }
        let Some(script) = common_cjk(decode(bytes, *i, lead).0) else {
            break;
        };
        f[script] += 1;
        n += 1;
        *i += 3;
    }
    n
}

/// The counts [`scan_piece`] reads off its tallies at the end: the run
/// starts from the changes of class, and the per-character counts of the
/// ASCII characters.
fn add_counts(f: &mut TextFeatures, transitions: &[u32; CLASSES * CLASSES], ascii: &[u32; 128]) {
    // The run starts, from the changes of class.
    let starts = |next: Class| -> u32 {
        Class::ALL
            .iter()
            .filter(|&&prev| prev != next)
            .map(|&prev| transitions[transition(prev, next)])
            .sum()
    };
    // Tokenizers glue one punctuation mark to the word after it (`.map`,
    // `"name`), so such a run costs less than others.
    let punct_before_word = transitions[transition(Class::Punct, Class::Letter)];
    f[F::words] += starts(Class::Letter);
    f[F::punct_before_word] += punct_before_word;
    // Every punctuation run before a word was counted as a punctuation run
    // when it started, so this does not wrap.
    f[F::punct_runs] += starts(Class::Punct) - punct_before_word;
    f[F::digit_runs] += starts(Class::Digit);
    // A space glues to a following word or punctuation, not to a number:
    // there it is a token of its own.
    f[F::space_before_digit] += transitions[transition(Class::Space, Class::Digit)];
    f[F::cjk_runs] += starts(Class::Cjk);
    // The per-character counts of the ASCII characters.
    for (b, &n) in (0u8..).zip(ascii.iter()) {
        if n > 0
            && let Some(count) = ascii_count(b)
        {
            f[count] += n;
        }
    }
}

/// The code point of the multi-byte UTF-8 sequence starting with `lead` at
/// `bytes[i]`, and its length.
#[inline]
fn decode(bytes: &[u8], i: usize, lead: u8) -> (u32, usize) {
    let cont = |k: usize| u32::from(bytes.get(i + k).copied().unwrap_or(0x80) & 0x3F);
    let lead = u32::from(lead);
    if lead < 0xE0 {
        (((lead & 0x1F) << 6) | cont(1), 2)
    } else if lead < 0xF0 {
        (((lead & 0x0F) << 12) | (cont(1) << 6) | cont(2), 3)
    } else {
        (
            ((lead & 0x07) << 18) | (cont(1) << 12) | (cont(2) << 6) | cont(3),
            4,
        )
    }
}

/// The `hex_chars` of an ended alphanumeric run.
#[inline]
fn hex_run(len: u32, any: u16, all: u16) -> u32 {
    let hex = len >= HEX_MIN_RUN && all & A_HEX != 0 && any & A_DIGIT != 0 && any & A_ALPHA != 0;
    if hex { len } else { 0 }
}

/// The `base64_chars` of an ended base64 run.
#[inline]
fn base64_run(len: u32, any: u16) -> u32 {
    let mixed = A_UPPER | A_LOWER | A_DIGIT;
    if len >= BASE64_MIN_RUN && any & mixed == mixed {
        len
    } else {
        0
    }
}

/// Counts at the end of a run of `class`, `n` characters long.
#[inline]
fn end_run(f: &mut TextFeatures, class: Class, n: u32, upper: bool, lower: bool) {
    match class {
        Class::Letter => {
            if n > LONG_WORD {
                f[F::long_word_excess] += n - LONG_WORD;
            }
            // All-capital words (constants, licence text, acronyms) merge
            // far less than lower-case ones.
            if n >= 2 && upper && !lower {
                f[F::caps_letters] += n;
            }
        }
        Class::Digit => f[F::digit_triples] += n.div_ceil(3),
        Class::Space if n >= 2 => {
            f[F::indent_runs] += 1;
            f[F::indent_chars] += n;
        }
        _ => {}
    }
}

/// The index in the transition counts of a run of `next` after one of
/// `prev`.
#[inline(always)]
fn transition(prev: Class, next: Class) -> usize {
    usize::from(prev as u8) * CLASSES + usize::from(next as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_counted_in_pieces_is_the_sum_of_its_pieces_cut_between_characters() {
        let text = "ab 你好 😀x\n";
        // Pieces of at most 5 bytes: "ab 你" (6 > 5, so "ab " then "你"…).
        let mut want = TextFeatures::default();
        let mut rest = text;
        while !rest.is_empty() {
            let mut cut = 5.min(rest.len());
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            want.add(&scan(&rest[..cut]));
            rest = &rest[cut..];
        }
        assert_eq!(scan_in_pieces(text, 5), want);
        // A piece smaller than a character still takes the character.
        assert_eq!(
            scan_in_pieces("😀😀", 1).counts,
            scan_in_pieces("😀😀", 4).counts
        );
        assert_eq!(scan_in_pieces("😀😀", 4)[F::emoji], 2);
        // One piece: the plain scan.
        assert_eq!(scan_in_pieces(text, 1 << 20), scan(text));
    }
}
