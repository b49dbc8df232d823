//! The `serde` feature: `compaction_core::Value` to `serde_json::Value` and
//! back (`cargo test --features serde --test serde`; scripts/test runs it).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use compaction_core::{Compactor, CompactorConfig, Format, ToJson, Value, json};

#[test]
fn values_convert_both_ways_and_write_the_same_text() {
    let text = r#"{"role":"assistant","content":null,"n":[0,1,-7,0.5,1e21,-1.5e-7,9007199254740992],"ok":true,"s":"é\n\u0001😀","o":{}}"#;
    let ours: Value = text.parse().unwrap();
    let theirs: serde_json::Value = serde_json::from_str(text).unwrap();
    assert_eq!(serde_json::Value::from(&ours), theirs);
    assert_eq!(Value::from(&theirs), ours);
    // Whole numbers become integers, so serde_json writes them as JavaScript does.
    let numbers = serde_json::Value::from(json!([0, 1, -7, 4_294_967_296_u64, 0.5]));
    assert_eq!(numbers.to_string(), "[0,1,-7,4294967296,0.5]");
    assert!(numbers[1].is_i64());
    // Round trips keep every value.
    assert_eq!(Value::from(serde_json::Value::from(ours.clone())), ours);
    assert_eq!(serde_json::Value::from(Value::from(theirs.clone())), theirs);
}

#[test]
fn what_serde_json_cannot_hold_is_written_as_javascript_writes_it() {
    // A hand-built non-finite number becomes null, as JSON.stringify writes it.
    for x in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(
            serde_json::Value::from(Value::Number(x)),
            serde_json::Value::Null
        );
        assert_eq!(Value::Number(x).to_string(), "null");
    }
    // Negative zero keeps its sign; numbers past u64 stay floats.
    let minus_zero = serde_json::Value::from(Value::Number(-0.0));
    assert!(minus_zero.as_f64().unwrap().is_sign_negative());
    assert_eq!(
        serde_json::Value::from(Value::Number(1e19)).as_u64(),
        Some(10_000_000_000_000_000_000)
    );
    assert!(serde_json::Value::from(Value::Number(1e300)).is_f64());
    // serde_json's integers past 2^53 read as the nearest double, as JSON.parse reads them.
    let big: serde_json::Value = serde_json::from_str("9007199254740993").unwrap();
    assert_eq!(Value::from(big), Value::Number(9_007_199_254_740_992.0));
}

#[test]
fn a_host_keeps_its_history_and_saved_state_as_serde_values() {
    // A history kept as serde values goes through the engine's readers and comes back.
    let history: serde_json::Value = serde_json::json!([
        { "role": "system", "content": "Be brief." },
        { "role": "user", "content": "hello" },
        { "role": "assistant", "content": "hi" },
    ]);
    let read = Format::OpenAi
        .read(Value::from(&history), "history")
        .unwrap();
    assert!(read.facts[0].pinned);
    // The conversation (the system prompt is kept aside, pinned) written back.
    let written: Vec<serde_json::Value> = read.contents[1..]
        .iter()
        .map(|m| serde_json::Value::from(Format::OpenAi.write(m).unwrap()))
        .collect();
    assert_eq!(written, history.as_array().unwrap()[1..]);
    let saved = serde_json::Value::from(
        Compactor::new(CompactorConfig::new(128_000.0))
            .unwrap()
            .save()
            .to_json(),
    );
    assert_eq!(
        saved["version"],
        serde_json::json!(compaction_core::SAVED_STATE_VERSION)
    );
    assert_eq!(
        Compactor::restore_json(&Value::from(saved))
            .unwrap()
            .window(),
        128_000.0
    );
}
