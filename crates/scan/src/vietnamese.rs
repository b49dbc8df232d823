//! The Latin letters of Vietnamese lines, which the scanner counts apart
//! from the accented letters of European languages (`scan.rs` calls
//! [`VietnameseLine::letter`] for every letter of Latin-1, Latin
//! Extended-A/B and Vietnamese's block).

use super::features::{Feature as F, TextFeatures};

/// Whether the current line is Vietnamese: it has a letter only Vietnamese
/// writes (U+1EA0 to U+1EF9, ơ, ư). On such a line the Latin-1 and Latin
/// Extended-A/B letters (à ê ô ă đ …) count as `vietnamese_line_letters`,
/// those before that letter too: Vietnamese's syllables are whole tokens
/// of the vocabularies, where a European language's accented letter often
/// costs one. A line rather than a word: most Vietnamese words carry
/// Latin-1's accents alone (`không`, `có`, `các`). No other language of
/// the corpora writes those letters; ă (Romanian) and đ (Croatian) are
/// not enough.
#[derive(Default)]
pub(super) struct VietnameseLine {
    /// The line (its number) the rest is about.
    line: u32,
    /// A letter only Vietnamese writes came since the line began.
    on: bool,
    /// Before it: the line's Latin-1 and Latin Extended-A/B letters,
    /// counted as `latin_ext_letters` and `latin_ext_a_letters`.
    latin1: u32,
    ext_a: u32,
}

impl VietnameseLine {
    /// A letter of Latin-1, Latin Extended-A/B or Vietnamese's block (`u`),
    /// of `count`, on line number `line`. Not inlined: with it inlined the
    /// wasm scanner took 17–20% longer on the dev corpus (English and
    /// code, which never come here), out of line 1–3% (`benches/ab.mjs`).
    #[inline(never)]
    pub(super) fn letter(&mut self, u: u32, count: F, line: u32, f: &mut TextFeatures) {
        self.at(line);
        if count == F::vietnamese_letters {
            f[count] += 1;
            self.start(f);
            return;
        }
        // Ơ ơ Ư ư.
        if let 0x1A0 | 0x1A1 | 0x1AF | 0x1B0 = u {
            self.start(f);
        }
        if self.on {
            f[F::vietnamese_line_letters] += 1;
        } else {
            f[count] += 1;
            if count == F::latin_ext_letters {
                self.latin1 += 1;
            } else {
                self.ext_a += 1;
            }
        }
    }

    /// A letter only Vietnamese writes: the line is Vietnamese, and its
    /// Latin letters so far move to `vietnamese_line_letters`.
    #[inline(always)]
    fn start(&mut self, f: &mut TextFeatures) {
        if !self.on {
            self.on = true;
            // Counted above when they came, so this does not wrap.
            f[F::latin_ext_letters] -= self.latin1;
            f[F::latin_ext_a_letters] -= self.ext_a;
            f[F::vietnamese_line_letters] += self.latin1 + self.ext_a;
            (self.latin1, self.ext_a) = (0, 0);
        }
    }

    /// Now on line number `line`: a new line starts afresh.
    #[inline(always)]
    fn at(&mut self, line: u32) {
        if line != self.line {
            *self = VietnameseLine {
                line,
                ..VietnameseLine::default()
            };
        }
    }
}
