//! Finding a string in a string, for the few places that look for one (the
//! ledger's paths and words in a summary, patch headers, model ids), in
//! place of `str::find`/`contains` with a `&str` pattern (size, docs/performance.md).
//!
//! std's searcher (Two-Way) is larger code than this one, and it and
//! `&s[a..b]` on a `str` are what linked core's char-boundary panic
//! message, with the `Debug` of `char` and `Range` and the Unicode
//! printability tables that it prints. The search here is Knuth–Morris–Pratt
//! over bytes: linear in the text and the needle whatever they hold, as
//! std's is, so a hostile history cannot make it slow; a UTF-8 needle
//! found in UTF-8 text starts and ends on char boundaries. Slices go
//! through `str::get`, which does not panic.

use crate::prelude::*;

/// Where `needle` starts in `hay`, first occurrence (`str::find`).
pub(crate) fn find(hay: &str, needle: &str) -> Option<usize> {
    kmp(hay.as_bytes(), needle.as_bytes(), false)
}

/// Where `needle` starts in `hay`, last occurrence (`str::rfind`).
pub(crate) fn rfind(hay: &str, needle: &str) -> Option<usize> {
    kmp(hay.as_bytes(), needle.as_bytes(), true).map(|from_end| hay.len() - from_end - needle.len())
}

/// Whether `hay` holds `needle` (`str::contains`).
pub(crate) fn contains(hay: &str, needle: &str) -> bool {
    find(hay, needle).is_some()
}

/// The first match of `needle` in `hay` read forward, or with `backward`
/// both read from their ends (then the position is counted from the end
/// too). Not generic: one copy serves both directions.
fn kmp(hay: &[u8], needle: &[u8], backward: bool) -> Option<usize> {
    let at = |s: &[u8], i: usize| if backward { s[s.len() - 1 - i] } else { s[i] };
    let m = needle.len();
    if m == 0 {
        return Some(0);
    }
    if m > hay.len() {
        return None;
    }
    // fail[i]: the length of the longest proper border of needle[..=i].
    let mut fail = vec![0usize; m];
    let mut k = 0;
    for i in 1..m {
        while k > 0 && at(needle, i) != at(needle, k) {
            k = fail[k - 1];
        }
        if at(needle, i) == at(needle, k) {
            k += 1;
        }
        fail[i] = k;
    }
    let mut k = 0;
    for i in 0..hay.len() {
        while k > 0 && at(hay, i) != at(needle, k) {
            k = fail[k - 1];
        }
        if at(hay, i) == at(needle, k) {
            k += 1;
            if k == m {
                return Some(i + 1 - m);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Agrees with std's `find`, `rfind` and `contains` on every pair of
    /// short strings over a small alphabet (where borders and overlaps are
    /// common), and on multi-byte text.
    #[test]
    fn agrees_with_std() {
        let alphabet = ["a", "b", "ab", "é"];
        let mut words = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> = words
                .iter()
                .flat_map(|w| alphabet.iter().map(move |c| format!("{w}{c}")))
                .collect();
            words.extend(longer);
            words.sort();
            words.dedup();
            words.truncate(400);
        }
        for hay in &words {
            for needle in words.iter().take(120) {
                assert_eq!(
                    find(hay, needle),
                    hay.find(needle.as_str()),
                    "{hay} / {needle}"
                );
                assert_eq!(
                    rfind(hay, needle),
                    hay.rfind(needle.as_str()),
                    "{hay} / {needle}"
                );
                assert_eq!(contains(hay, needle), hay.contains(needle.as_str()));
            }
        }
        let text = "*** Begin Patch\n*** Update File: src/日本.rs\n(moved to x) (created)";
        for needle in [
            "*** Begin Patch",
            "日本",
            " (",
            "x) (",
            "missing",
            "本.rs\n(",
        ] {
            assert_eq!(find(text, needle), text.find(needle), "{needle}");
            assert_eq!(rfind(text, needle), text.rfind(needle), "{needle}");
        }
    }

    /// The input that makes a naive search quadratic (a million `a`s, a
    /// needle of a thousand `a`s and a `b`) is read right.
    #[test]
    fn a_hostile_text_is_read_right() {
        let hay = "a".repeat(1_000_000);
        let needle = format!("{}b", "a".repeat(1000));
        assert_eq!(find(&hay, &needle), None);
        assert_eq!(rfind(&hay, &needle), None);
        assert_eq!(find(&format!("{hay}b"), &needle), Some(1_000_000 - 1000));
        assert_eq!(rfind(&format!("b{hay}"), &needle[..1]), Some(1_000_000));
    }
}
