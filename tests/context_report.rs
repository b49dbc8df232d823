//! The `/context` report and the usage indicator: the block's lines, the marked tier, percent used, the footer band.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built
use compaction_core::ToJson;
use compaction_core::{ErrorCode, Tier, context_report, group_digits};

#[test]
fn the_block_for_200k() {
    let report = context_report(150_000.0, 200_000.0).unwrap();
    assert_eq!(
        report.to_text(),
        "Compaction thresholds\n  \
         Effective window:   180,000  (window − 20,000 reserve)\n  \
         Warn threshold:     147,000\n  \
         Auto threshold:     167,000\n  \
         Hard threshold:     177,000\n  \
         Current tier:       warn"
    );
}

#[test]
fn the_block_marks_each_tier() {
    for (tokens, tier) in [
        (0.0, "safe"),
        (150_000.0, "warn"),
        (170_000.0, "auto"),
        (177_000.0, "hard"),
    ] {
        let text = context_report(tokens, 200_000.0).unwrap().to_text();
        assert!(
            text.ends_with(&format!("Current tier:       {tier}")),
            "{text}"
        );
    }
    // Small windows report hard directly at auto.
    let text = context_report(22_400.0, 32_000.0).unwrap().to_text();
    assert!(text.ends_with("Current tier:       hard"), "{text}");
}

#[test]
fn numbers_are_rounded_grouped_and_aligned() {
    // 32K: effective 12 000 (5 digits + comma) and fractional-free values.
    let text = context_report(0.0, 32_000.0).unwrap().to_text();
    assert!(
        text.contains("Effective window:   12,000  (window"),
        "{text}"
    );
    assert!(text.contains("Warn threshold:     19,200\n"), "{text}");
    // 1M: seven digits.
    let text = context_report(0.0, 1_000_000.0).unwrap().to_text();
    assert!(text.contains("Hard threshold:     977,000"), "{text}");
    // A window whose thresholds are not integers is rounded like Math.round.
    let text = context_report(0.0, 33_333.0).unwrap().to_text();
    assert!(text.contains("Auto threshold:     23,333\n"), "{text}"); // 23 333.1
    assert!(text.contains("Effective window:   13,333"), "{text}");
    // A window of 10K has effective 0: right-aligned under the others.
    let text = context_report(0.0, 10_000.0).unwrap().to_text();
    assert!(
        text.contains("Effective window:       0  (window"),
        "{text}"
    );
    assert_eq!(group_digits(1_234_567.5), "1,234,568");
    assert_eq!(group_digits(999.4), "999");
    assert_eq!(group_digits(0.0), "0");
}

#[test]
fn report_data() {
    let r = context_report(150_000.0, 200_000.0).unwrap();
    assert_eq!(r.tier, Tier::Warn);
    assert_eq!(r.percent_used, 75.0);
    assert_eq!(r.tokens_until_auto, 17_000.0);
    assert!(r.show_footer);
    let r = context_report(170_000.0, 200_000.0).unwrap();
    assert_eq!(r.tokens_until_auto, 0.0);
    assert!(!r.show_footer, "the footer hides once auto is reached");
    let r = context_report(100.0, 200_000.0).unwrap();
    assert!(!r.show_footer);
    let r = context_report(0.0, 0.0).unwrap();
    assert_eq!(r.percent_used, 0.0);
}

#[test]
fn bad_inputs_are_typed_errors() {
    assert_eq!(
        context_report(-1.0, 1e5).unwrap_err().code(),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        context_report(f64::INFINITY, 1e5).unwrap_err().code(),
        ErrorCode::InvalidArgument
    );
    assert_eq!(
        context_report(1.0, f64::NAN).unwrap_err().code(),
        ErrorCode::InvalidWindow
    );
}

#[test]
fn huge_numbers_print_their_digits_never_an_exponent() {
    assert_eq!(group_digits(1e21), "1,000,000,000,000,000,000,000");
    assert_eq!(
        group_digits(9_007_199_254_740_991.0),
        "9,007,199,254,740,991"
    );
    // 2^60: shortest round-trip digits, padded, as toLocaleString prints it.
    assert_eq!(group_digits(2f64.powi(60)), "1,152,921,504,606,847,000");
    assert_eq!(group_digits(-1e21), "-1,000,000,000,000,000,000,000");
    let max = group_digits(f64::MAX);
    assert!(max.starts_with("179,769,313,486,231,570,000,"), "{max}");
    assert_eq!(max.replace(',', "").len(), 309);
    let text = context_report(0.0, 1e21).unwrap().to_text();
    assert!(!text.contains("e+") && !text.contains("e2"), "{text}");
    // 1e21 − 20 000 is 1e21 again in doubles.
    assert!(
        text.contains("Effective window:   1,000,000,000,000,000,000,000  (window"),
        "{text}"
    );
}

#[test]
fn percent_used_is_always_a_finite_number() {
    // 0.5 / 5e-324 overflows: capped at the largest double, never Infinity
    // (which JSON would write as null).
    let report = context_report(0.5, 5e-324).unwrap();
    assert_eq!(report.percent_used, f64::MAX);
    assert_eq!(
        context_report(f64::MAX, 1.0).unwrap().percent_used,
        f64::MAX
    );
    let json = report.to_json();
    assert!(json["percentUsed"].is_f64(), "{json}");
    assert_eq!(context_report(5.0, 0.0).unwrap().percent_used, 0.0);
}
