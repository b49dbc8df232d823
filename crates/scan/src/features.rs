//! The counts the scanner produces, listed once.
//!
//! The `features!` table below is the only place a count is named: it
//! gives the index type [`Feature`], [`FEATURE_COUNT`], [`FEATURE_NAMES`]
//! (which the fitting program writes into the weight table, so a stale
//! table is detected) and the width of [`TextFeatures`] and of a weight row
//! ([`FamilyWeights`]). The order is the order of the weight table: a count
//! is added at the end, and the weights refitted (`scripts/fit-estimator`).

use core::ops::{Index, IndexMut};

/// Declares the counts: one entry per count, its name as it appears in the
/// weight table and the fitting tools, and what it counts.
macro_rules! features {
    ($( $(#[doc = $doc:literal])+ $name:ident, )+) => {
        /// One count of [`TextFeatures`], by its place in the weight table.
        // The variants are spelled as the counts are named in the weight
        // table and the fitting tools: the table is then written once.
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(u8)]
        pub enum Feature {
            $( $(#[doc = $doc])+ $name, )+
        }

        impl Feature {
            /// Every count, in the order of the weight table.
            pub const ALL: [Feature; FEATURE_COUNT] = [$(Feature::$name),+];
        }

        /// Number of counts the scanner produces.
        pub const FEATURE_COUNT: usize = [$(Feature::$name),+].len();

        /// Names of the counts, in the order of [`TextFeatures::counts`].
        pub const FEATURE_NAMES: [&str; FEATURE_COUNT] = [$(stringify!($name)),+];
    };
}

features! {
    /// ASCII letters (outside the long repeats of one letter).
    latin_letters,
    /// Words (runs of letters).
    words,
    /// A capital right after a small letter (camelCase).
    case_humps,
    /// Capital letters.
    upper_letters,
    /// Letters of all-capital words of two letters or more.
    caps_letters,
    /// ASCII vowels.
    vowels,
    /// ASCII consonants that are the third or later in a row.
    consonant_clusters,
    /// ASCII letters that follow an ASCII letter they rarely follow in
    /// English (`ij`, `aa`, `zy`, …): words of other languages.
    rare_bigrams,
    /// Accented Latin letters, precomposed: Latin-1's (the accents of
    /// Western European languages), IPA and Extended Additional outside
    /// Vietnamese's. Latin Extended-A/B is `latin_ext_a_letters`.
    latin_ext_letters,
    /// Combining marks (U+0300 to U+036F, U+1DC0 to U+1DFF): accents of
    /// decomposed (NFD) text.
    combining_marks,
    /// Vietnamese's letters with stacked diacritics (U+1EA0 to U+1EF9).
    vietnamese_letters,
    /// Cyrillic letters of Russian's alphabet (`cyrillic_ext_letters`: the
    /// others).
    cyrillic_letters,
    /// Greek letters (and Greek Extended).
    greek_letters,
    /// Armenian letters.
    armenian_letters,
    /// Georgian letters.
    georgian_letters,
    /// Hebrew letters and points.
    hebrew_letters,
    /// Letters of the Arabic alphabet (the Arabic block's others are
    /// `arabic_ext_letters`), its marks and digits, presentation forms.
    arabic_letters,
    /// Devanagari (Hindi, Marathi, Nepali), with its vowel signs.
    devanagari_letters,
    /// Bengali letters and signs.
    bengali_letters,
    /// Tamil letters and signs.
    tamil_letters,
    /// The other Indic scripts: Gurmukhi, Gujarati, Oriya, Telugu, Kannada,
    /// Malayalam, Sinhala.
    indic_letters,
    /// Thai and Lao.
    thai_letters,
    /// Letters of the other alphabets (Myanmar, Khmer, Ethiopic, Tibetan,
    /// Syriac, Thaana, …).
    other_letters,
    /// Words that start with a letter of a non-Latin alphabet (Greek to
    /// `other_letters`; not Han, kana or Hangul).
    script_words,
    /// Letters of a word beyond its eighth.
    long_word_excess,
    /// Han characters.
    han,
    /// Hiragana and katakana.
    kana,
    /// Hangul syllables and jamo.
    hangul,
    /// Runs of Han, kana and Hangul.
    cjk_runs,
    /// CJK and full-width punctuation.
    cjk_punct,
    /// ASCII digits.
    digits,
    /// Runs of digits.
    digit_runs,
    /// Groups of up to three digits in a run.
    digit_triples,
    /// Runs of digits right after horizontal space.
    space_before_digit,
    /// Newlines (`\n`, U+0085, U+2028, U+2029).
    newlines,
    /// Newlines that end a blank line.
    blank_lines,
    /// Runs of two or more horizontal spaces.
    indent_runs,
    /// Characters of those runs.
    indent_chars,
    /// Tabs.
    tabs,
    /// ASCII punctuation and control characters.
    ascii_punct,
    /// Runs of punctuation not right before a word.
    punct_runs,
    /// Runs of punctuation right before a word (tokenizers glue them on).
    punct_before_word,
    /// Other characters of the Basic Multilingual Plane (symbols, marks).
    bmp_symbols,
    /// Other characters beyond it.
    astral_symbols,
    /// Emoji (U+1F000 to U+1FAFF).
    emoji,
    /// Emoji-like symbols of the BMP (U+2600 to U+27BF, U+2B00 to U+2BFF).
    bmp_emoji,
    /// Regional indicators (a flag is two).
    flags,
    /// Emoji modifiers and glue: variation selectors, zero-width joiner,
    /// keycap, skin tones, tags.
    emoji_parts,
    /// Characters of long base64-like runs that mix capitals, small letters
    /// and digits.
    base64_chars,
    /// Characters of long hex-like runs that mix digits and letters.
    hex_chars,
    /// Vocabulary-sized pieces of long runs of one repeated ASCII
    /// character (`-----`, `xxxxx`). Not fitted: priced at one token each
    /// (`REPEAT_PIECE_TOKENS` of the fit), which is what a vocabulary
    /// holds them as; too few samples have them to fit a weight.
    repeat_pieces,
    /// UTF-8 bytes. Never weighted: the bound of byte-level BPE families,
    /// which never produce more tokens than a text has bytes.
    utf8_bytes,
    /// Latin Extended-A/B letters (U+0100 to U+024F): the letters of
    /// Central and Eastern European, Baltic, Turkish and Romanian text
    /// (ą č ė ł ő ř ş ț ų …), which vocabularies hold less well than
    /// Latin-1's accents.
    latin_ext_a_letters,
    /// Cyrillic letters outside Russian's alphabet (Ukrainian і ї є ґ,
    /// Kazakh ә ғ қ ң ө ұ ү һ, Serbian and Macedonian ђ ј љ њ ћ џ, …):
    /// vocabularies hold the words of these languages less well than
    /// Russian's.
    cyrillic_ext_letters,
    /// Letters of the Arabic script outside the Arabic alphabet's (U+0671 to
    /// U+06D3, Arabic Supplement and Extended-A): Persian's پ چ ژ گ ک ی,
    /// Urdu's ٹ ڈ ڑ ں ھ ے, …, which vocabularies hold less well than
    /// Arabic's own letters.
    arabic_ext_letters,
    /// ASCII letters after an ASCII letter, each counted by the tier (0 to
    /// 3) of the pair: how often the real tokenizers cut a word between the
    /// two letters (`PAIR_TIERS`, measured by
    /// `scripts/tokenizers/pair_boundaries.mjs`: 0 under 5% of the time,
    /// `th` `in` `er`; 1 under 15%, `te` `ti` `tt`; 2 under 35%, `ea` `ka`
    /// `zy`; 3 from 35%, `aa` `ij` `ei` `kk`). Words of plain ASCII
    /// letters split where their pairs are unusual for the vocabularies.
    pair_cuts,
    /// Latin-1 and Latin Extended-A/B letters (à ê ô ă đ …) on a line that
    /// has a letter only Vietnamese writes (U+1EA0 to U+1EF9, ơ, ư): there
    /// they are Vietnamese, whose syllables the vocabularies hold whole,
    /// not the accents of European languages; they leave
    /// `latin_ext_letters` and `latin_ext_a_letters`.
    vietnamese_line_letters,
}

/// What the scanner counted in a text: the inputs of the weighted sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TextFeatures {
    /// One count per entry of [`FEATURE_NAMES`].
    pub counts: [u32; FEATURE_COUNT],
}

impl Default for TextFeatures {
    fn default() -> Self {
        TextFeatures {
            counts: [0; FEATURE_COUNT],
        }
    }
}

impl TextFeatures {
    /// Adds another text's counts (the features are additive over pieces),
    /// saturating: no count wraps, whatever the input's size.
    pub fn add(&mut self, other: &TextFeatures) {
        for (a, b) in self.counts.iter_mut().zip(other.counts.iter()) {
            *a = a.saturating_add(*b);
        }
    }

    /// Weighted sum of the counts (in `f64`: the weights are stored as
    /// `f32`, which holds their six significant digits, and summed wide).
    pub fn dot(&self, weights: &[f32; FEATURE_COUNT]) -> f64 {
        self.counts
            .iter()
            .zip(weights.iter())
            .map(|(&c, &w)| f64::from(c) * f64::from(w))
            .sum()
    }
}

impl Index<Feature> for TextFeatures {
    type Output = u32;
    #[inline]
    fn index(&self, feature: Feature) -> &u32 {
        &self.counts[feature as usize]
    }
}

impl IndexMut<Feature> for TextFeatures {
    #[inline]
    fn index_mut(&mut self, feature: Feature) -> &mut u32 {
        &mut self.counts[feature as usize]
    }
}

/// Weights of one tokenizer family (one row of the generated table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FamilyWeights {
    /// Tokens per unit of each count of [`TextFeatures`], unbiased
    /// (compaction-core's `EstimateVariant::Calibrated`). Stored as `f32`:
    /// the fit rounds every weight to six significant digits, which `f32`
    /// holds, and the table is then half the size in the web build.
    pub text: [f32; FEATURE_COUNT],
    /// The spread of compaction-core's `EstimateVariant::Conservative`:
    /// each count's share of the calibrated error's variance (scaled by
    /// the fit's z², kept to 8 significant bits), so that the margin added
    /// to the calibrated estimate grows where the estimate varies more.
    pub conservative_text: [f32; FEATURE_COUNT],
    /// Chat-template tokens per message (role markers, separators).
    pub per_message: f64,
    /// Template tokens around one function call, beyond its name and
    /// arguments.
    pub per_call: f64,
    /// Template tokens around one function response, beyond its output.
    pub per_response: f64,
    /// The family's tokenizer is a byte-level BPE that never gives more
    /// tokens than UTF-8 bytes, so no estimate exceeds the
    /// [`Feature::utf8_bytes`] count.
    pub bytes_bound: bool,
}

impl FamilyWeights {
    /// All zero: a starting point for weights of your own.
    pub const ZERO: FamilyWeights = FamilyWeights {
        text: [0.0; FEATURE_COUNT],
        per_message: 0.0,
        per_call: 0.0,
        per_response: 0.0,
        conservative_text: [0.0; FEATURE_COUNT],
        bytes_bound: false,
    };
}
