//! docs/spec.md §8: "the estimate is within ±30% of real usage on real histories".
//! Runs on the 60 agent sessions of `tests/corpus/histories-dev.jsonl`
//! (set COMPACTION_CORPUS to another folder holding the same file). Their
//! `tokens` are what each provider counts for the rendered prompt, including
//! a fixed system prompt that is not in the history; it is subtracted.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

use compaction_core::Value;
use compaction_core::calibrated::TokenizerFamily;
use compaction_core::{Content, EstimateOptions, Estimator, estimate_content_tokens};

/// Tokens of the fixed system prompt per family (corpus README).
const SYSTEM_PROMPT: [(TokenizerFamily, &str, f64); 4] = [
    (TokenizerFamily::O200k, "o200k", 38.0),
    (TokenizerFamily::Cl100k, "cl100k", 39.0),
    (TokenizerFamily::Claude, "claude", 38.0),
    (TokenizerFamily::Qwen, "qwen", 40.0),
];

fn histories() -> Vec<(String, Vec<Content>, Value)> {
    let dir = std::env::var("COMPACTION_CORPUS")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/tests/corpus").to_string());
    let path = format!("{dir}/histories-dev.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!("{path}: {e} (the repository carries the corpus in tests/corpus/)")
    });
    text.lines()
        .map(|line| {
            let row: Value = line.parse::<Value>().unwrap();
            let id = row["id"].as_str().unwrap().to_string();
            let history = Content::list_from_value(row["history"].clone(), &id).unwrap();
            (id, history, row["tokens"].clone())
        })
        .collect()
}

/// Every history's estimate ÷ the provider's count, for each family.
fn ratios(estimator: Estimator) -> Vec<(String, &'static str, f64)> {
    let histories = histories();
    assert_eq!(histories.len(), 60);
    let mut out = Vec::new();
    for (id, history, tokens) in &histories {
        for (family, name, system) in SYSTEM_PROMPT {
            let options = EstimateOptions {
                estimator,
                tokenizer: family,
                ..EstimateOptions::default()
            };
            let real = tokens[name].as_f64().unwrap() - system;
            out.push((
                id.clone(),
                name,
                estimate_content_tokens(history, &options) as f64 / real,
            ));
        }
    }
    out
}

#[test]
fn the_calibrated_estimate_is_within_30_percent_on_every_history() {
    for (id, family, ratio) in ratios(Estimator::Calibrated) {
        assert!((0.7..=1.3).contains(&ratio), "{family} {id}: {ratio:.3}");
    }
}

#[test]
fn the_conservative_estimate_almost_never_falls_under_the_real_count() {
    let all = ratios(Estimator::Conservative);
    let under = all.iter().filter(|(_, _, r)| *r < 0.95).count();
    // In-sample (these are the histories the overheads were fitted on): at
    // most 1 in 40 under 0.95, and none under 0.85.
    assert!(
        under * 40 <= all.len(),
        "{under} of {} under 0.95",
        all.len()
    );
    // It leans high by design, within reason. Since issue 23 (weights fitted
    // with the multilingual corpus too) the worst of the 240 is over by
    // 42% (31% before).
    let worst = all.iter().map(|(_, _, r)| *r).fold(0.0, f64::max);
    eprintln!("conservative, the most over: {worst:.3}");
    for (id, family, ratio) in all {
        assert!((0.85..=1.45).contains(&ratio), "{family} {id}: {ratio:.3}");
    }
}

#[test]
fn the_specs_rule_misses_the_30_percent_test_that_the_calibrated_one_meets() {
    // Why the library does not use the spec's rule for thresholds: on these
    // real sessions it is outside ±30% for many of them.
    let outside = ratios(Estimator::Reference)
        .iter()
        .filter(|(_, _, r)| !(0.7..=1.3).contains(r))
        .count();
    assert!(
        outside > 60,
        "the spec's rule was outside ±30% on only {outside} of 240"
    );
}
