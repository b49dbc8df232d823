//! The character classes the scanner asks about, each range written once:
//! a table for ASCII (one lookup per byte) and a classifier for the rest.

use super::features::Feature;

/// The kind of a character as far as run boundaries go.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Class {
    /// Before the first character.
    #[default]
    Start,
    Letter,
    Digit,
    /// Horizontal space.
    Space,
    Newline,
    /// Punctuation, symbols and control characters.
    Punct,
    /// Han, kana and Hangul.
    Cjk,
    Emoji,
}

/// How many classes there are.
pub(super) const CLASSES: usize = Class::ALL.len();
// `ALL` lists every class: the last one's value is the last index.
const _: () = assert!(Class::Emoji as usize + 1 == CLASSES);

impl Class {
    /// Every class, in the order of their values.
    pub(super) const ALL: [Class; 8] = [
        Class::Start,
        Class::Letter,
        Class::Digit,
        Class::Space,
        Class::Newline,
        Class::Punct,
        Class::Cjk,
        Class::Emoji,
    ];
}

/// What the scanner asks about an ASCII character, one bit each.
pub(super) const A_VOWEL: u16 = 1;
pub(super) const A_ALPHA: u16 = 2;
pub(super) const A_UPPER: u16 = 4;
pub(super) const A_LOWER: u16 = 8;
pub(super) const A_DIGIT: u16 = 16;
pub(super) const A_HEX: u16 = 32;
/// Letters, digits and `+ / = - _`: the characters of a base64-ish run.
pub(super) const A_BASE64: u16 = 64;
/// `# * + - . / = _ ~ %`: the characters rules and separators are drawn
/// with. Vocabularies hold runs of 32 to 64 of them as one token, against 2
/// to 16 for letters and other punctuation.
pub(super) const A_RULE: u16 = 128;
/// Letters and punctuation that are not [`A_RULE`]: the other characters
/// whose long runs merge (digits and whitespace are not cut by repeats, and
/// have run counts of their own).
pub(super) const A_REPEAT: u16 = 256;
/// Letters and digits: the characters of a hex-ish run.
pub(super) const A_ALNUM: u16 = 512;

/// Everything the scanner asks about an ASCII character: one table lookup.
#[derive(Clone, Copy)]
pub(super) struct Ascii {
    pub(super) bits: u16,
    pub(super) class: Class,
    /// A letter's place in the alphabet (0 to 25, either case), else
    /// [`NO_LETTER`]: the index of [`COMMON_PAIRS`].
    pub(super) letter: u8,
}

/// Not an ASCII letter (the rows of [`COMMON_PAIRS`] from 26 on).
pub(super) const NO_LETTER: u8 = 31;

/// For each ASCII letter `a` (0 to 25), the letters `b` with bit `b` set
/// when the pair `ab` is common in English: the 263 pairs that make 97% of
/// the letter pairs of the dev corpus's English prose and Markdown
/// (`prose_en`, `markdown_en`), case folded. Rows 26 to 31 (no letter
/// before) hold every pair, so a table lookup with the index masked to 5
/// bits needs no other check.
pub(super) static COMMON_PAIRS: [u32; 32] = [
    20887918, 17976081, 1985941, 1327449, 32487807, 1720625, 1196433, 1720593, 36633727, 262288,
    262161, 18664217, 1364251, 20761981, 8322415, 2021657, 1048576, 18775391, 20760981, 22989213,
    964959, 337, 4612497, 557073, 843776, 16, !0, !0, !0, !0, !0, !0,
];

/// For each ASCII letter `a` (0 to 25), the tier of each pair `ab`, two
/// bits per letter `b` (bits `2b` and `2b + 1`): how often the seven real
/// tokenizers cut a word between `a` and `b`, on average over the families,
/// measured on the dev corpus and the multilingual corpus's `fit` split
/// (never its `holdout`) by `scripts/tokenizers/pair_boundaries.mjs`, which
/// prints this table: tier 0 under 5% (`th`, `in`, `er`), 1 under 15%
/// (`te`, `ti`, `tt`), 2 under 35% (`ea`, `ka`, `zy`), 3 from 35% (`aa`,
/// `ij`, `ei`, `kk`). A pair seen fewer than 20 times is pulled toward a
/// rate of one half. Rows 26 to 31 (no letter before) are tier 0, so a
/// lookup with the index masked to 5 bits needs no other check.
pub(super) static PAIR_TIERS: [u64; 32] = [
    0x86503301d8703,
    0xdfdfbdf75fdfe,
    0xdfe278b4e3c9d,
    0xefffbdffdfcba,
    0xe1b41a16fd61a,
    0xefd67cbbde5f9,
    0xbfe97eabe6dff,
    0xffd3bdffdfcfd,
    0x77603401fc001,
    0xfffcfaffefdfe,
    0xfffaffffeedfe,
    0xdfd5f9f3df47d,
    0xefeef597efcb5,
    0xefd1f9b9ec91d,
    0xe8403000a9311,
    0xdfd174d3e7dbd,
    0xffdffffffffff,
    0xdfa17c59dd85d,
    0xefd1b9e9d3cee,
    0xcfd579efd3dad,
    0xf7f03703ddd62,
    0xfffefeffdecfc,
    0xfafe7d7fd3dfe,
    0xebf7fbffffeee,
    0xfef5f6affffff,
    0xeffbfefffbdff,
    0,
    0,
    0,
    0,
    0,
    0,
];

/// The bits and class of each ASCII character; the bytes from 0x80 on have
/// no bits, so one lookup also tells a letter from the start of a longer
/// UTF-8 sequence.
pub(super) static ASCII: [Ascii; 256] = {
    let mut t = [Ascii {
        bits: 0,
        class: Class::Punct,
        letter: NO_LETTER,
    }; 256];
    let mut i = 0;
    while i < 128 {
        let c = i as u8;
        let mut bits = 0;
        if matches!(
            c,
            b'a' | b'e' | b'i' | b'o' | b'u' | b'A' | b'E' | b'I' | b'O' | b'U'
        ) {
            bits |= A_VOWEL;
        }
        if c.is_ascii_alphabetic() {
            bits |= A_ALPHA;
        }
        if c.is_ascii_uppercase() {
            bits |= A_UPPER;
        }
        if c.is_ascii_lowercase() {
            bits |= A_LOWER;
        }
        if c.is_ascii_digit() {
            bits |= A_DIGIT;
        }
        if c.is_ascii_hexdigit() {
            bits |= A_HEX;
        }
        if c.is_ascii_alphanumeric() {
            bits |= A_ALNUM;
        }
        if c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=' | b'-' | b'_') {
            bits |= A_BASE64;
        }
        let class = if c.is_ascii_alphabetic() {
            Class::Letter
        } else if c.is_ascii_digit() {
            Class::Digit
        } else if c == b'\n' {
            Class::Newline
        } else if matches!(c, b'\t' | b' ' | b'\r' | 0x0b | 0x0c) {
            Class::Space
        } else {
            Class::Punct
        };
        if matches!(
            c,
            b'#' | b'*' | b'+' | b'-' | b'.' | b'/' | b'=' | b'_' | b'~' | b'%'
        ) {
            bits |= A_RULE;
        } else if matches!(class, Class::Letter | Class::Punct) {
            bits |= A_REPEAT;
        }
        let letter = if c.is_ascii_alphabetic() {
            (c | 0x20) - b'a'
        } else {
            NO_LETTER
        };
        t[i] = Ascii {
            bits,
            class,
            letter,
        };
        i += 1;
    }
    t
};

/// The per-character count of an ASCII character other than a letter (a
/// letter's counts depend on its neighbours; spaces feed none).
#[inline]
pub(super) fn ascii_count(b: u8) -> Option<Feature> {
    match ASCII[usize::from(b)].class {
        Class::Digit => Some(Feature::digits),
        Class::Newline => Some(Feature::newlines),
        Class::Space if b == b'\t' => Some(Feature::tabs),
        Class::Punct => Some(Feature::ascii_punct),
        _ => None,
    }
}

/// The script of a character of the main blocks of Chinese, Japanese and
/// Korean, which nearly every character of such text is in: the scanner
/// takes runs of them in an inner loop. All are three bytes in UTF-8, with
/// lead bytes 0xE3 to 0xED ([`COMMON_CJK_LEADS`]).
#[inline]
pub(super) fn common_cjk(u: u32) -> Option<Feature> {
    match u {
        0x4E00..=0x9FFF => Some(Feature::han),
        0x3040..=0x30FF => Some(Feature::kana),
        0xAC00..=0xD7AF => Some(Feature::hangul),
        _ => None,
    }
}

/// The UTF-8 lead bytes of the characters [`common_cjk`] knows (U+3000 to
/// U+DFFF).
pub(super) const COMMON_CJK_LEADS: core::ops::RangeInclusive<u8> = 0xE3..=0xED;

/// What the scanner asks about a character outside ASCII.
pub(super) struct Other {
    pub(super) class: Class,
    /// The per-character count it feeds (none for spaces).
    pub(super) count: Option<Feature>,
    /// A capital / a small letter (letters only).
    pub(super) upper: bool,
    pub(super) lower: bool,
}

/// Classifies a character outside ASCII.
#[inline]
pub(super) fn other(u: u32) -> Other {
    let of = |class: Class, count: Feature| Other {
        class,
        count: Some(count),
        upper: false,
        lower: false,
    };
    let letter = |count: Feature, upper: bool, lower: bool| Other {
        class: Class::Letter,
        count: Some(count),
        upper,
        lower,
    };
    // Chinese, Japanese and Korean first, and their punctuation: in such
    // text nearly every character is one of these, and no range below takes
    // them. (Measured: this order saves instructions over one match.)
    if let Some(script) = common_cjk(u) {
        return of(Class::Cjk, script);
    }
    if let 0x3000..=0x303F | 0xFF00..=0xFF65 = u {
        return of(Class::Punct, Feature::cjk_punct);
    }
    match u {
        0xA0 | 0x1680 | 0x2000..=0x200A | 0x202F | 0x205F => Other {
            class: Class::Space,
            count: None,
            upper: false,
            lower: false,
        },
        0x2028 | 0x2029 | 0x85 => of(Class::Newline, Feature::newlines),
        0xC0..=0xDE if u != 0xD7 => letter(Feature::latin_ext_letters, true, false),
        0xDF..=0xFF if u != 0xF7 => letter(Feature::latin_ext_letters, false, true),
        // Latin Extended-A/B and Extended Additional pair capital and small
        // letters on even and odd code points (with exceptions that do not
        // matter for a count). Vietnamese's stacked diacritics (ạ ả ấ ầ ẩ
        // ẫ ậ … ỹ) are a block of their own there.
        0x1EA0..=0x1EF9 => letter(
            Feature::vietnamese_letters,
            u.is_multiple_of(2),
            !u.is_multiple_of(2),
        ),
        0x100..=0x24F => letter(
            Feature::latin_ext_a_letters,
            u.is_multiple_of(2),
            !u.is_multiple_of(2),
        ),
        0x1E00..=0x1EFF => letter(
            Feature::latin_ext_letters,
            u.is_multiple_of(2),
            !u.is_multiple_of(2),
        ),
        0x250..=0x2AF => letter(Feature::latin_ext_letters, false, true),
        0x300..=0x36F | 0x1DC0..=0x1DFF => letter(Feature::combining_marks, false, false),
        0x391..=0x3A9 => letter(Feature::greek_letters, true, false),
        0x370..=0x3FF | 0x1F00..=0x1FFF => letter(Feature::greek_letters, false, true),
        // Russian's alphabet: А to я, Ё and ё.
        0x410..=0x42F | 0x401 => letter(Feature::cyrillic_letters, true, false),
        0x430..=0x44F | 0x451 => letter(Feature::cyrillic_letters, false, true),
        0x400..=0x40F => letter(Feature::cyrillic_ext_letters, true, false),
        0x450..=0x45F => letter(Feature::cyrillic_ext_letters, false, true),
        // Cyrillic's other letters pair capital and small letters on even
        // and odd code points, as Latin Extended-A does.
        0x460..=0x52F => letter(
            Feature::cyrillic_ext_letters,
            u.is_multiple_of(2),
            !u.is_multiple_of(2),
        ),
        0x531..=0x556 => letter(Feature::armenian_letters, true, false),
        0x530..=0x58F => letter(Feature::armenian_letters, false, true),
        0x590..=0x5FF | 0xFB1D..=0xFB4F => letter(Feature::hebrew_letters, false, false),
        // The Arabic script: the letters of languages other than Arabic
        // (Persian, Urdu, Pashto, Kurdish, …) apart from Arabic's own.
        0x671..=0x6D3 | 0x750..=0x77F | 0x8A0..=0x8FF => {
            letter(Feature::arabic_ext_letters, false, false)
        }
        0x600..=0x6FF | 0xFB50..=0xFDFF | 0xFE70..=0xFEFF => {
            letter(Feature::arabic_letters, false, false)
        }
        0x900..=0x97F => letter(Feature::devanagari_letters, false, false),
        0x980..=0x9FF => letter(Feature::bengali_letters, false, false),
        0xB80..=0xBFF => letter(Feature::tamil_letters, false, false),
        0xA00..=0xDFF => letter(Feature::indic_letters, false, false),
        0xE00..=0xEFF => letter(Feature::thai_letters, false, false),
        0x10A0..=0x10FF | 0x1C90..=0x1CBF | 0x2D00..=0x2D2F => {
            letter(Feature::georgian_letters, false, false)
        }
        // Hangul jamo (the syllables are common_cjk's); before the other
        // alphabets, whose range holds the jamo's.
        0x1100..=0x11FF | 0x3130..=0x318F => of(Class::Cjk, Feature::hangul),
        0x700..=0x1DBF => letter(Feature::other_letters, false, false),
        // The zero-width non-joiner sits inside Persian and Indic words.
        0x200C => letter(Feature::bmp_symbols, false, false),
        // The rest of kana and Han (the main blocks are common_cjk's).
        0x31F0..=0x31FF | 0xFF66..=0xFF9F => of(Class::Cjk, Feature::kana),
        0x3400..=0x4DBF | 0xF900..=0xFAFF | 0x20000..=0x3134F => of(Class::Cjk, Feature::han),
        // Emoji modifiers and glue: variation selectors, zero-width joiner,
        // keycap, skin tones, tag characters.
        0xFE00..=0xFE0F | 0x200D | 0x20E3 | 0x1F3FB..=0x1F3FF | 0xE0000..=0xE007F => {
            of(Class::Emoji, Feature::emoji_parts)
        }
        // Regional indicators: a flag is two of them.
        0x1F1E6..=0x1F1FF => of(Class::Emoji, Feature::flags),
        0x2600..=0x27BF | 0x2B00..=0x2BFF => of(Class::Emoji, Feature::bmp_emoji),
        0x1F000..=0x1FAFF => of(Class::Emoji, Feature::emoji),
        0x80..=0xFFFF => of(Class::Punct, Feature::bmp_symbols),
        _ => of(Class::Punct, Feature::astral_symbols),
    }
}
