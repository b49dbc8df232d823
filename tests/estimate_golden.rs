//! Every count and estimate of the dev corpus, held to a golden file
//! (`tests/golden/estimates.jsonl`) written by the estimator as it was
//! before the re-layout of `src/estimate/` (the estimator's re-layout): a change of layout
//! must not change one count, one weighted sum or one rounding.
//!
//! For edge cases and 1,000 random strings: the scanner's counts. For each
//! sample of `tokens-dev.jsonl`: every one of the scanner's counts and the
//! unrounded text estimate of every family and variant and of the spec's
//! rule, as the bits of the double. For each history of
//! `histories-dev.jsonl`: the counts summed over its parts (text, calls and
//! responses as the fitting program reads them), and for every estimator
//! the unrounded sum of its message estimates, a hash of each message's
//! estimate in order, the rounded content estimate and the prompt estimate
//! with and without a usage anchor.
//!
//! The golden file changes only when the counts are meant to change (then
//! the weights are refitted too): `GOLDEN_WRITE=1 cargo test --test
//! estimate_golden` rewrites it from the current code.
//!
//! The corpus is the repository's `tests/corpus/` (or `$COMPACTION_CORPUS`).
#![allow(clippy::unwrap_used, clippy::expect_used)]
// tests assert on data they built

// Built with `refit` the crate has no weights: nothing to compare.
#![cfg(not(feature = "refit"))]

use std::path::PathBuf;

use compaction_core::calibrated::{
    CalibratedEstimator, EstimateVariant, FEATURE_NAMES, TextFeatures, TokenizerFamily,
    call_features, response_features, scan,
};
use compaction_core::json;
use compaction_core::{
    Content, EstimateOptions, Estimator, Reference, TextEstimator, estimate_content_tokens,
    estimate_prompt_tokens, message_tokens,
};
use compaction_core::{Map, Value};

const GOLDEN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/golden/estimates.jsonl");

fn corpus_file(name: &str) -> PathBuf {
    // The repository carries the corpus; COMPACTION_CORPUS points elsewhere.
    let dir = std::env::var("COMPACTION_CORPUS")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus").to_string());
    PathBuf::from(dir).join(name)
}

fn lines(name: &str) -> Vec<Value> {
    let path = corpus_file(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            l.parse::<Value>()
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        })
        .collect()
}

/// A double as the hex of its bits: exact, whatever the JSON reader does
/// with the last digit of a decimal.
fn bits(x: f64) -> String {
    format!("{:016x}", x.to_bits())
}

/// Every estimator the options can select, by a stable name.
fn all_options() -> Vec<(String, EstimateOptions)> {
    let mut out = vec![("reference".to_string(), EstimateOptions::default())];
    for family in TokenizerFamily::ALL {
        for (name, estimator) in [
            ("calibrated", Estimator::Calibrated),
            ("conservative", Estimator::Conservative),
        ] {
            out.push((
                format!("{}/{name}", family.name()),
                EstimateOptions {
                    estimator,
                    tokenizer: family,
                    ..EstimateOptions::default()
                },
            ));
        }
    }
    out
}

fn sample_row(sample: &Value) -> Value {
    let id = sample["id"].as_str().unwrap_or_default();
    let text = sample["text"].as_str().unwrap_or_default();
    let mut estimates = Map::new();
    estimates.insert("reference".into(), json!(bits(Reference.text(text))));
    for family in TokenizerFamily::ALL {
        for (name, variant) in [
            ("calibrated", EstimateVariant::Calibrated),
            ("conservative", EstimateVariant::Conservative),
        ] {
            let est = CalibratedEstimator::new(family, variant);
            estimates.insert(
                format!("{}/{name}", family.name()),
                json!(bits(est.text(text))),
            );
        }
    }
    json!({
        "sample": id,
        "bytes": text.len(),
        "counts": &scan(text).counts[..],
        "estimates": estimates,
    })
}

/// The counts of a history's parts, as `examples/common` reads them for
/// the fit.
fn history_features(messages: &[Value]) -> TextFeatures {
    let mut f = TextFeatures::default();
    for m in messages {
        let parts = m
            .get("parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten();
        for p in parts.filter_map(Value::as_object) {
            if let Some(Value::String(t)) = p.get("text") {
                f.add(&scan(t));
            } else if let Some(Value::Object(c)) = p.get("functionCall") {
                f.add(&call_features(c));
            } else if let Some(Value::Object(r)) = p.get("functionResponse") {
                f.add(&response_features(r));
            }
        }
    }
    f
}

fn history_row(row: &Value) -> Value {
    let id = row["id"].as_str().unwrap_or_default();
    let messages = row["history"].as_array().cloned().unwrap_or_default();
    let contents = Content::list_from_value(Value::Array(messages.clone()), id)
        .unwrap_or_else(|e| panic!("{id}: {e}"));
    let (last, earlier) = contents
        .split_last()
        .unwrap_or_else(|| panic!("{id}: an empty history"));
    let mut estimates = Map::new();
    for (name, options) in all_options() {
        let per_message: Vec<f64> = contents
            .iter()
            .map(|c| message_tokens(c, &options))
            .collect();
        // FNV-1a over each message's bits, in order.
        let mut hash = 0xcbf2_9ce4_8422_2325u64;
        for x in &per_message {
            for b in x.to_bits().to_le_bytes() {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
            }
        }
        estimates.insert(
            name,
            json!({
                "sum": bits(per_message.iter().sum()),
                "messages_fnv": format!("{hash:016x}"),
                "content": estimate_content_tokens(&contents, &options),
                "prompt": estimate_prompt_tokens(earlier, last, 0, &options),
                "prompt_anchored": estimate_prompt_tokens(earlier, last, 1_000, &options),
            }),
        );
    }
    json!({
        "history": id,
        "messages": contents.len(),
        "counts": &history_features(&messages).counts[..],
        "estimates": estimates,
    })
}

/// Texts that reach every branch of the scanner (those of
/// `tests/js/scan_port.test.mjs`), then random strings drawn from the
/// characters each branch takes, with long runs of one character now and
/// then: the corpus has few of those.
fn synthetic_texts() -> Vec<String> {
    let mut texts: Vec<String> = [
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
        "안녕하세요 가 ㄱㄴ",
        "Привет, мир! ЁЖЗ ԯ",
        "Ελληνικά ΑΒΓ άέ ϗ",
        "naïve café ÆØÅ ß × ÷ Ÿ ŁĄ Ḁḁ e\u{301}",
        "עברית العربية हिन्दी ქართული",
        "👍🏽 👨‍👩‍👧 🇫🇷🇩🇪 ☀️ 1️⃣ ⬛ 🀄 🫠 \u{E0067}",
        "a\u{2028}b\u{2029}c\u{85}d\u{a0}e\u{2003}f\u{202f}g\u{205f}h\u{1680}i",
        "math 𝒜𝔅 ∑∫ → ‰ € ¶ ©",
        "[{\"name\":\"read_file\",\"args\":{\"path\":\"/src/main.rs\"}}]",
    ]
    .map(String::from)
    .to_vec();
    texts.push("=".repeat(200) + "\n" + &"-".repeat(64) + "name " + &"#".repeat(67));
    texts.push(
        "x".repeat(100) + "Y aaaaaaaaab ZZZZZZZZZZZZZZZZZZ " + &"^".repeat(33) + &")".repeat(17),
    );
    texts.push(
        "\0".repeat(10)
            + " "
            + &"0".repeat(40)
            + &" ".repeat(40)
            + &"é".repeat(20)
            + &"~".repeat(70),
    );
    let mut pool: Vec<char> =
        "aeiouAEIOUbcdxyzBCDXYZ0123456789 \t\n\r\u{b}\u{c}.,;:!?\"'()[]{}<>+/=-_#@$%^&*|\\~`"
            .chars()
            .collect();
    pool.extend(
        [
            0xa0, 0x85, 0xc0, 0xd7, 0xde, 0xdf, 0xf7, 0xff, 0x100, 0x101, 0x24f, 0x1e00, 0x1e01,
            0x301, 0x391, 0x3a9, 0x3b1, 0x3ff, 0x400, 0x42f, 0x430, 0x52f, 0x5d0, 0x627, 0x1100,
            0x1dbf, 0x2000, 0x200a, 0x200d, 0x2028, 0x2029, 0x202f, 0x205f, 0x20e3, 0x2192, 0x2600,
            0x27bf, 0x2b00, 0x3000, 0x3001, 0x3042, 0x30ff, 0x3130, 0x31f0, 0x3400, 0x4e00, 0x9fff,
            0xac00, 0xd7af, 0xf900, 0xfe0f, 0xff01, 0xff65, 0xff66, 0xff9f, 0xfffd, 0x10000,
            0x1d49c, 0x1f1e6, 0x1f1ff, 0x1f3fb, 0x1f44d, 0x1f600, 0x1faff, 0x20000, 0x3134f,
            0xe0067, 0xe007f, 0x10fffd,
        ]
        .into_iter()
        .filter_map(char::from_u32),
    );
    // A fixed xorshift generator, so the texts are the same on every run.
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    for _ in 0..1000 {
        let len = 1 + next(120);
        let mut text = String::new();
        while text.chars().count() < len {
            let times = if next(20) == 0 {
                1 + next(150)
            } else {
                1 + next(4)
            };
            let c = pool[next(pool.len())];
            text.extend(std::iter::repeat_n(c, times));
        }
        texts.push(text);
    }
    texts
}

fn current() -> Vec<Value> {
    let mut out = vec![json!({ "feature_names": &FEATURE_NAMES[..] })];
    out.extend(
        synthetic_texts()
            .iter()
            .map(|t| json!({ "text": t, "counts": &scan(t).counts[..] })),
    );
    out.extend(lines("tokens-dev.jsonl").iter().map(sample_row));
    out.extend(lines("histories-dev.jsonl").iter().map(history_row));
    out
}

#[test]
fn every_count_and_estimate_of_the_dev_corpus_equals_the_golden_file() {
    let rows = current();
    if std::env::var_os("GOLDEN_WRITE").is_some() {
        let text: String = rows.iter().map(|r| format!("{r}\n")).collect();
        std::fs::write(GOLDEN, text).unwrap_or_else(|e| panic!("cannot write {GOLDEN}: {e}"));
        return;
    }
    let golden_text =
        std::fs::read_to_string(GOLDEN).unwrap_or_else(|e| panic!("cannot read {GOLDEN}: {e}"));
    let golden: Vec<Value> = golden_text
        .lines()
        .map(|l| {
            l.parse::<Value>()
                .unwrap_or_else(|e| panic!("{GOLDEN}: {e}"))
        })
        .collect();
    assert_eq!(
        golden.len(),
        rows.len(),
        "the golden file has {} rows, the corpus gives {}",
        golden.len(),
        rows.len()
    );
    let mut differ = Vec::new();
    for (want, got) in golden.iter().zip(&rows) {
        if want != got {
            differ.push(format!("golden {want}\n   now {got}"));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} rows differ; the first:\n{}",
        differ.len(),
        rows.len(),
        differ.first().map_or("", String::as_str)
    );
}
