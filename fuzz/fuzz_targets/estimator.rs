//! The estimator over arbitrary bytes read as text: every estimator and
//! tokenizer family gives a whole number, 0 for the empty text, and never
//! more than 16 tokens per UTF-8 byte (a bound on runaway arithmetic, not an
//! accuracy claim: see the README's note on Greek and accented letters).
#![no_main]

use compaction_core::Value;
use compaction_core::json_api as api;
use libfuzzer_sys::fuzz_target;

const OPTIONS: [&str; 6] = [
    r#"{"estimator":"reference"}"#,
    r#"{"estimator":"calibrated","tokenizer":"universal"}"#,
    r#"{"estimator":"calibrated","tokenizer":"o200k"}"#,
    r#"{"estimator":"conservative","tokenizer":"cl100k"}"#,
    r#"{"estimator":"conservative","tokenizer":"claude"}"#,
    r#"{"estimator":"calibrated","tokenizer":"qwen"}"#,
];

fn count(text: &str, options: &str) -> u64 {
    let out = api::estimate_text_tokens(text, options);
    let value: Value = out.parse::<Value>().expect("an envelope");
    let n = value["ok"].as_f64().unwrap_or_else(|| panic!("no estimate: {out}"));
    assert!(n.is_finite() && n >= 0.0 && n.fract() == 0.0, "not a whole number: {out}");
    n as u64
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for options in OPTIONS {
        let n = count(&text, options);
        assert!(n <= (text.len() as u64).saturating_mul(16) + 1, "{n} tokens for {} bytes", text.len());
        if text.is_empty() {
            assert_eq!(n, 0, "an empty text is 0 tokens");
        }
    }
});
