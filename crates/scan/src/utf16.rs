//! JavaScript's `string.length` of a UTF-8 string: the spec's rule divides
//! it by 4, so the reference estimator reads every byte of every text with
//! it. Here, in the crate built for speed, rather than in the library
//! built for size.

/// Length of a string in UTF-16 code units: JavaScript's `string.length`.
///
/// ```
/// use compaction_scan::utf16_len;
/// assert_eq!(utf16_len("héllo"), 5);
/// assert_eq!(utf16_len("日本"), 2);
/// assert_eq!(utf16_len("🙂"), 2);
/// ```
pub fn utf16_len(text: &str) -> usize {
    // One unit per char, counted as the bytes that are not continuation
    // bytes (10xxxxxx), plus one for each 4-byte lead (11110xxx), whose
    // char is a surrogate pair. Byte by byte, with no decoding, so the loop
    // unrolls; chunks of 8 bytes summed in a u8 lane apiece stay exact.
    let bytes = text.as_bytes();
    let mut total = 0usize;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let mut n = 0u8;
        for &b in chunk {
            n += u8::from(b & 0xC0 != 0x80) + u8::from(b >= 0xF0);
        }
        total += usize::from(n);
    }
    for &b in chunks.remainder() {
        total += usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::utf16_len;

    #[test]
    fn is_the_utf16_length_of_every_kind_of_char() {
        let samples = [
            "",
            "a",
            "hello world, 12345678",
            "é日🙂",
            "🙂🙂🙂🙂🙂🙂🙂🙂🙂",
            "mixed ascii and Ελληνικά and 中文 and emoji 👩‍💻 across chunk edges",
        ];
        for s in samples {
            assert_eq!(utf16_len(s), s.encode_utf16().count(), "{s:?}");
        }
        // Every char, one at a time and repeated across chunk boundaries.
        for u in (0..0x11_0000u32).step_by(97) {
            let Some(c) = char::from_u32(u) else { continue };
            let s: String = core::iter::repeat_n(c, 11).collect();
            assert_eq!(utf16_len(&s), s.encode_utf16().count(), "U+{u:04X}");
        }
    }
}
