//! What the ledger section costs per compaction, on agent histories.
//!
//! ```text
//! cargo run --release --example ledger_cost -- [histories.jsonl] [--window N] [--at SHARE]
//! ```
//! (`scripts/ledger-cost` runs it.) Each history is split at `SHARE` of its
//! messages (default 0.8): the head is what a compaction would replace. The
//! ledger of the head is built with the default options for a `N`-token
//! window (default 128 000) and rendered after two summaries: an empty one
//! (the worst case: a summary that names nothing), and one that already
//! names every file (what a good summary leaves to the ledger: the user's
//! words). It prints median, p90 and max of the section's tokens, also as a
//! share of the window, under the spec's estimator and the conservative one
//! the thresholds use, and the figures behind the words budget's floor.
//! Then the same through the engine: each history compacted by hand
//! (`/compact`, the default options, the split retention makes) with a
//! one-sentence summary, with the ledger and without: what the section adds
//! to the new history's count, and how often it had to shrink for room.
//! Figures only; nothing is asserted.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

mod common;

use compaction_core::engine::Next;
use compaction_core::estimate::estimate_text_tokens;
use compaction_core::ledger::{Ledger, LedgerOptions};
use compaction_core::{
    CompactionOutcome, CompactionStatus, Compactor, CompactorConfig, Content, EstimateOptions,
    SendDecision, SummaryAnswer, TokenizerFamily,
};

/// What a careless summarizer answers.
const GENERIC: &str = "The assistant worked on the user's task and made progress.";

fn main() {
    if let Err(e) = run() {
        eprintln!("ledger_cost: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let mut path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/corpus/histories-dev.jsonl"
    )
    .to_string();
    let mut window = 128_000.0;
    let mut at = 0.8;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut number = |name: &str| -> Result<f64, String> {
            args.next()
                .and_then(|v| v.parse::<f64>().ok())
                .ok_or_else(|| format!("{name} needs a number"))
        };
        match arg.as_str() {
            "--window" => window = number("--window")?,
            "--at" => at = number("--at")?,
            _ => path = arg,
        }
    }
    let histories = common::load_histories(&path)?;
    println!(
        "{} histories from {path}, split at {:.0}% of their messages, window {window} tokens",
        histories.len(),
        at * 100.0
    );
    let options = LedgerOptions::default();
    println!(
        "user words budget: {} tokens\n",
        options.user_words_budget_for(window)
    );
    let estimators = [
        ("reference", EstimateOptions::default()),
        (
            "conservative",
            EstimateOptions::for_thresholds(TokenizerFamily::Universal),
        ),
    ];
    for (name, estimate) in estimators {
        let mut empty = Vec::new();
        let mut named = Vec::new();
        let mut files = Vec::new();
        let mut words = Vec::new();
        for h in &histories {
            let cut = ((h.contents.len() as f64 * at).floor() as usize).clamp(1, h.contents.len());
            let head = &h.contents[..cut];
            let ledger = Ledger::from_messages(head, &options, window, &estimate);
            let every_file: String = ledger
                .files
                .iter()
                .map(|f| format!("- {}\n", f.path))
                .collect();
            let tokens = |s: &str| estimate_text_tokens(s, &estimate) as f64;
            empty.push(tokens(&ledger.render("", f64::INFINITY)));
            named.push(tokens(&ledger.render(&every_file, f64::INFINITY)));
            files.push(ledger.files.len() as f64);
            words.push(ledger.user_words.iter().map(|w| tokens(w)).sum::<f64>());
        }
        println!("estimator: {name}");
        row("section, summary names nothing", &empty, Some(window));
        row("section, summary names every file", &named, Some(window));
        row("files recorded", &files, None);
        row("user's words kept (tokens)", &words, None);
        println!();
    }
    engine_cost(&histories, window)
}

/// A manual compaction of `history` with the generic summary, the ledger
/// on or off; `None` when there is nothing to compress.
fn compact(
    history: &[Content],
    window: f64,
    ledger: bool,
) -> Result<Option<CompactionOutcome>, String> {
    let mut config = CompactorConfig::new(window);
    config.options.ledger.enabled = ledger;
    let mut chat = Compactor::new(config).map_err(|e| e.to_string())?;
    match chat.poll_manual(history, None).map_err(|e| e.to_string())? {
        SendDecision::Proceed { .. } => Ok(None),
        SendDecision::Cleared(outcome) => Ok(Some(outcome)),
        SendDecision::Summarize { mut id, .. } => loop {
            // Every call of a multi-call run gets the same generic answer.
            let answer = SummaryAnswer {
                text: GENERIC.into(),
                ..SummaryAnswer::default()
            };
            match chat.handle_answer(id, answer).map_err(|e| e.to_string())? {
                Next::Done(outcome) => return Ok(Some(outcome)),
                Next::Summarize { id: next, .. } => id = next,
                other => return Err(format!("a step this example does not know: {other:?}")),
            }
        },
        other => Err(format!("the history is given: {other:?}")),
    }
}

fn engine_cost(histories: &[common::History], window: f64) -> Result<(), String> {
    let mut added = Vec::new();
    let (mut shrunk, mut inflated) = (0, 0);
    for h in histories {
        let (Some(on), Some(off)) = (
            compact(&h.contents, window, true)?,
            compact(&h.contents, window, false)?,
        ) else {
            continue;
        };
        // A summary that alone inflates the history (a head of one short
        // message) leaves the ledger no room: no section.
        if off.status() != CompactionStatus::Compressed {
            inflated += 1;
            continue;
        }
        added.push(on.new_token_count() as f64 - off.new_token_count() as f64);
        if on.summary() == off.summary()
            || on
                .summary()
                .is_some_and(|s| s.contains("left out for room"))
        {
            shrunk += 1;
        }
    }
    println!(
        "through the engine: /compact of each whole history (default options, conservative \
         estimator), a one-sentence summary; {} compressed, {inflated} inflated without the \
         ledger too (no room, no section)",
        added.len()
    );
    row("added to newTokenCount by the ledger", &added, Some(window));
    println!("  of these, sections shrunk or left out for room: {shrunk}");
    Ok(())
}

fn row(label: &str, values: &[f64], window: Option<f64>) {
    let median = common::quantile(values, 0.5);
    let p90 = common::quantile(values, 0.9);
    let max = values.iter().copied().fold(0.0, f64::max);
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    print!("  {label:<36} min {min:>6.0}  median {median:>6.0}  p90 {p90:>6.0}  max {max:>6.0}");
    if let Some(w) = window {
        print!(
            "   (median {:.2}%, p90 {:.2}%, max {:.2}% of the window)",
            100.0 * median / w,
            100.0 * p90 / w,
            100.0 * max / w
        );
    }
    println!();
}
