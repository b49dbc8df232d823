//! The three-tier ladder (docs/spec.md §1): the spec's table, the junctions, `warn <= auto <= hard` over many windows.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built
use compaction_core::{ErrorCode, ThresholdRule as R, Tier, compute_thresholds, current_tier};

#[test]
fn spec_table() {
    // (window, effective, warn, auto, hard, rules) from docs/spec.md §1.
    let rows = [
        (
            32_000.0,
            12_000.0,
            19_200.0,
            22_400.0,
            22_400.0,
            [R::Pct, R::Pct, R::Auto],
        ),
        (
            128_000.0,
            108_000.0,
            76_800.0,
            95_000.0,
            105_000.0,
            [R::Pct, R::Abs, R::Abs],
        ),
        (
            200_000.0,
            180_000.0,
            147_000.0,
            167_000.0,
            177_000.0,
            [R::Abs, R::Abs, R::Abs],
        ),
        (
            1_000_000.0,
            980_000.0,
            947_000.0,
            967_000.0,
            977_000.0,
            [R::Abs, R::Abs, R::Abs],
        ),
        (
            10_000.0,
            0.0,
            6_000.0,
            7_000.0,
            7_000.0,
            [R::Pct, R::Pct, R::Auto],
        ),
        (0.0, 0.0, 0.0, 0.0, 0.0, [R::Pct, R::Pct, R::Auto]),
    ];
    for (window, effective, warn, auto, hard, rules) in rows {
        let t = compute_thresholds(window).unwrap();
        assert_eq!(
            (t.effective_window, t.warn, t.auto, t.hard),
            (effective, warn, auto, hard),
            "window {window}"
        );
        assert_eq!(
            [t.warn_rule, t.auto_rule, t.hard_rule],
            rules,
            "window {window}"
        );
    }
}

#[test]
fn bit_for_bit_with_the_javascript_formula() {
    // The same expressions in the same order as the reference TypeScript;
    // to_bits compares every bit, so a reordered sum would show here.
    for window in [
        1.0, 33_333.0, 65_537.0, 76_666.0, 99_999.0, 123_457.0, 131_072.0, 262_144.0, 2.5e7,
    ] {
        let t = compute_thresholds(window).unwrap();
        let effective = window - 20_000.0;
        let auto = f64::max(0.7 * window, effective - 13_000.0);
        let warn = f64::max((0.7 - 0.1) * window, auto - 20_000.0);
        let hard = f64::max(effective - 3_000.0, auto);
        assert_eq!(t.auto.to_bits(), auto.to_bits());
        assert_eq!(t.warn.to_bits(), warn.to_bits());
        assert_eq!(t.hard.to_bits(), hard.to_bits());
    }
    // 0.7 * 33 333 is not an integer: the thresholds are doubles, not rounded.
    assert_eq!(compute_thresholds(33_333.0).unwrap().auto, 0.7 * 33_333.0);
}

#[test]
fn auto_switches_at_110_000_and_is_stable_there() {
    let at = compute_thresholds(110_000.0).unwrap();
    assert_eq!(at.auto, 77_000.0); // pct == abs
    assert_eq!(at.auto_rule, R::Pct);
    assert_eq!(compute_thresholds(109_999.0).unwrap().auto_rule, R::Pct);
    let after = compute_thresholds(110_001.0).unwrap();
    assert_eq!(after.auto_rule, R::Abs);
    assert_eq!(after.auto, 77_001.0);
    // No jump across the junction.
    assert!((after.auto - at.auto - 1.0).abs() < 1e-9);
    assert!((at.auto - compute_thresholds(109_999.0).unwrap().auto - 0.7).abs() < 1e-9);
}

#[test]
fn warn_switches_at_132_500_and_is_stable_there() {
    let at = compute_thresholds(132_500.0).unwrap();
    assert_eq!(at.warn, 79_500.0);
    assert_eq!(at.warn_rule, R::Pct);
    assert_eq!(compute_thresholds(132_499.0).unwrap().warn_rule, R::Pct);
    let after = compute_thresholds(132_501.0).unwrap();
    assert_eq!(after.warn_rule, R::Abs);
    assert_eq!(after.warn, 79_501.0);
}

#[test]
fn hard_collapses_onto_auto_up_to_about_76_667() {
    for window in [32_000.0, 64_000.0, 76_666.0] {
        let t = compute_thresholds(window).unwrap();
        assert_eq!(t.hard, t.auto, "window {window}");
        assert_eq!(t.hard_rule, R::Auto);
    }
    let t = compute_thresholds(76_667.0).unwrap();
    assert!(t.hard > t.auto);
    assert_eq!(t.hard_rule, R::Abs);
}

#[test]
fn warn_auto_hard_are_ordered_for_every_window() {
    // A deterministic xorshift so the property test needs no extra crate and
    // fails the same way every time.
    let mut state = 0x9E37_79B9_7F4A_7C15_u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for i in 0..200_000 {
        let r = next();
        let window = match i % 4 {
            0 => (r % 10_000_001) as f64,             // 0 to 10^7, integers
            1 => (r as f64 / u64::MAX as f64) * 1e7,  // fractional
            2 => (r % 200_001) as f64,                // around the junctions
            _ => (r as f64 / u64::MAX as f64) * 1e15, // far beyond
        };
        let t = compute_thresholds(window).unwrap();
        assert!(
            t.warn <= t.auto && t.auto <= t.hard,
            "window {window}: {t:?}"
        );
        assert!(t.effective_window >= 0.0);
        assert!(t.warn >= 0.0);
    }
}

#[test]
fn bad_windows_are_typed_errors() {
    for window in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -1.0, -0.5] {
        let err = compute_thresholds(window).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidWindow);
        assert!(err.message().contains("finite number"), "{}", err.message());
    }
}

#[test]
fn tier_checks_hard_first() {
    let t = compute_thresholds(200_000.0).unwrap();
    assert_eq!(current_tier(0.0, &t), Tier::Safe);
    assert_eq!(current_tier(146_999.0, &t), Tier::Safe);
    assert_eq!(current_tier(147_000.0, &t), Tier::Warn);
    assert_eq!(current_tier(166_999.0, &t), Tier::Warn);
    assert_eq!(current_tier(167_000.0, &t), Tier::Auto);
    assert_eq!(current_tier(176_999.0, &t), Tier::Auto);
    assert_eq!(current_tier(177_000.0, &t), Tier::Hard);
    assert_eq!(current_tier(5e6, &t), Tier::Hard);

    // Small window: hard == auto, so reaching auto is reported as hard.
    let small = compute_thresholds(32_000.0).unwrap();
    assert_eq!(current_tier(22_399.0, &small), Tier::Warn);
    assert_eq!(current_tier(22_400.0, &small), Tier::Hard);
}
