//! The three context tips (docs/spec.md §6): each in its band, in order, with and without thresholds.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built
use compaction_core::StrMap;

use compaction_core::{ErrorCode, TipContext, compute_thresholds, select_tip};

fn tip_at(tokens: f64, window: f64) -> Option<&'static str> {
    let ctx = TipContext {
        last_prompt_token_count: tokens,
        context_window_size: Some(window),
        ..Default::default()
    };
    select_tip(&ctx).unwrap().map(|t| t.id)
}

#[test]
fn each_tip_fires_only_in_its_band() {
    // 200K: warn 147 000, auto 167 000, hard 177 000.
    let w = 200_000.0;
    assert_eq!(tip_at(0.0, w), None);
    assert_eq!(tip_at(146_999.0, w), None);
    assert_eq!(tip_at(147_000.0, w), Some("context-warn"));
    assert_eq!(tip_at(166_999.0, w), Some("context-warn"));
    assert_eq!(tip_at(167_000.0, w), Some("context-high"));
    assert_eq!(tip_at(176_999.0, w), Some("context-high"));
    assert_eq!(tip_at(177_000.0, w), Some("context-critical"));
    assert_eq!(tip_at(400_000.0, w), Some("context-critical"));
}

#[test]
fn the_bands_do_not_overlap_for_any_count() {
    let w = 128_000.0;
    let t = compute_thresholds(w).unwrap();
    let mut seen = Vec::new();
    for tokens in (0..140_000).step_by(250) {
        let tip = tip_at(tokens as f64, w);
        let expected = if (tokens as f64) >= t.hard {
            Some("context-critical")
        } else if (tokens as f64) >= t.auto {
            Some("context-high")
        } else if (tokens as f64) >= t.warn {
            Some("context-warn")
        } else {
            None
        };
        assert_eq!(tip, expected, "tokens {tokens}");
        if seen.last() != Some(&tip) {
            seen.push(tip);
        }
    }
    assert_eq!(
        seen,
        [
            None,
            Some("context-warn"),
            Some("context-high"),
            Some("context-critical")
        ]
    );
}

#[test]
fn small_windows_have_no_middle_tip() {
    // 32K: warn 19 200, auto = hard = 22 400.
    for tokens in (0..40_000).step_by(50) {
        assert_ne!(
            tip_at(tokens as f64, 32_000.0),
            Some("context-high"),
            "tokens {tokens}"
        );
    }
    assert_eq!(tip_at(22_399.0, 32_000.0), Some("context-warn"));
    assert_eq!(tip_at(22_400.0, 32_000.0), Some("context-critical"));
}

#[test]
fn context_high_does_not_linger_after_a_successful_compaction() {
    let w = 200_000.0;
    // The response that crossed auto: context-high shows.
    assert_eq!(tip_at(170_000.0, w), Some("context-high"));
    // Compaction ran before the next send; the next usage is far lower.
    assert_eq!(tip_at(24_000.0, w), None);
}

#[test]
fn all_three_fire_in_order_when_compaction_keeps_failing() {
    let w = 200_000.0;
    let mut last_shown = StrMap::new();
    let mut fired = Vec::new();
    // Usage grows 4 000 tokens a prompt and never drops.
    for prompt in 0..60_u64 {
        let ctx = TipContext {
            last_prompt_token_count: 100_000.0 + 4_000.0 * prompt as f64,
            context_window_size: Some(w),
            session_prompt_count: prompt,
            last_shown: last_shown.clone(),
            ..Default::default()
        };
        if let Some(tip) = select_tip(&ctx).unwrap() {
            last_shown.insert(tip.id.to_string(), prompt);
            if fired.last() != Some(&tip.id) {
                fired.push(tip.id);
            }
        }
    }
    assert_eq!(fired, ["context-warn", "context-high", "context-critical"]);
}

#[test]
fn cooldown_is_honoured() {
    let mut ctx = TipContext {
        last_prompt_token_count: 180_000.0,
        context_window_size: Some(200_000.0),
        session_prompt_count: 10,
        last_shown: StrMap::from([("context-critical".to_string(), 8)]),
        ..Default::default()
    };
    // Shown 2 prompts ago, cooldown 3.
    assert_eq!(select_tip(&ctx).unwrap(), None);
    ctx.session_prompt_count = 11;
    assert_eq!(
        select_tip(&ctx).unwrap().map(|t| t.id),
        Some("context-critical")
    );
    // Another tip's history does not block this one.
    ctx.session_prompt_count = 9;
    ctx.last_shown = StrMap::from([("context-warn".to_string(), 9)]);
    assert_eq!(
        select_tip(&ctx).unwrap().map(|t| t.id),
        Some("context-critical")
    );
}

#[test]
fn tips_without_thresholds_derive_them_from_the_window() {
    let given = TipContext {
        last_prompt_token_count: 100_000.0,
        thresholds: Some(compute_thresholds(128_000.0).unwrap()),
        ..Default::default()
    };
    let derived = TipContext {
        last_prompt_token_count: 100_000.0,
        context_window_size: Some(128_000.0),
        ..Default::default()
    };
    assert_eq!(
        select_tip(&given).unwrap().map(|t| t.id),
        Some("context-high")
    );
    assert_eq!(select_tip(&derived).unwrap(), select_tip(&given).unwrap());
    // Thresholds given by the caller win over the window.
    let both = TipContext {
        context_window_size: Some(1_000_000.0),
        ..given.clone()
    };
    assert_eq!(
        select_tip(&both).unwrap().map(|t| t.id),
        Some("context-high")
    );
    // Neither: no context tip, whatever the count.
    let neither = TipContext {
        last_prompt_token_count: 1e9,
        ..Default::default()
    };
    assert_eq!(select_tip(&neither).unwrap(), None);
}

#[test]
fn the_critical_tip_is_a_notice_after_the_rescue() {
    let tip = select_tip(&TipContext {
        last_prompt_token_count: 190_000.0,
        context_window_size: Some(200_000.0),
        ..Default::default()
    })
    .unwrap()
    .unwrap();
    assert!(
        tip.text
            .contains("compaction was forced before this message was sent"),
        "{}",
        tip.text
    );
    assert!(tip.priority > compaction_core::CONTEXT_HIGH.priority);
}

#[test]
fn bad_counts_and_windows_are_typed_errors() {
    let ctx = TipContext {
        last_prompt_token_count: f64::NAN,
        context_window_size: Some(1e5),
        ..Default::default()
    };
    assert_eq!(
        select_tip(&ctx).unwrap_err().code(),
        ErrorCode::InvalidArgument
    );
    let ctx = TipContext {
        last_prompt_token_count: 1.0,
        context_window_size: Some(-5.0),
        ..Default::default()
    };
    assert_eq!(
        select_tip(&ctx).unwrap_err().code(),
        ErrorCode::InvalidWindow
    );
}
