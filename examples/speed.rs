//! Native throughput of the calibrated estimator's scan, for comparison
//! with the wasm figures of `benches/estimator_speed.mjs`.
//!
//! ```text
//! cargo run --release --example speed -- <corpus.jsonl> [rounds]
//! ```
//! (`scripts/bench` runs it.) Times `CalibratedEstimator::text` (the scan
//! plus the weighted sum) over every text of the corpus, one call per text,
//! and prints the median of the rounds in MB/s of UTF-8 and µs per KB
//! (1,000 bytes). It prints figures only.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

use std::hint::black_box;
use std::time::Instant;

use compaction_core::TextEstimator;
use compaction_core::Value;
use compaction_core::calibrated::{CalibratedEstimator, EstimateVariant, TokenizerFamily};

fn main() {
    if let Err(e) = run() {
        eprintln!("speed: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let path = args.next().ok_or("usage: speed <corpus.jsonl> [rounds]")?;
    let rounds: usize = match args.next() {
        Some(r) => r
            .parse()
            .map_err(|_| format!("rounds: not a number: {r}"))?,
        None => 21,
    };
    let corpus = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?;
    let texts: Vec<String> = corpus
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: Value = l.parse::<Value>().map_err(|e| format!("{path}: {e}"))?;
            v.get("text")
                .and_then(Value::as_str)
                .map(str::to_string)
                .ok_or_else(|| format!("{path}: a line has no `text` string"))
        })
        .collect::<Result<_, String>>()?;
    let bytes: usize = texts.iter().map(String::len).sum();
    let est = CalibratedEstimator::new(TokenizerFamily::O200k, EstimateVariant::Calibrated);

    let mut times = Vec::with_capacity(rounds);
    for round in 0..rounds + 2 {
        let start = Instant::now();
        let total: f64 = texts.iter().map(|t| est.text(black_box(t)).ceil()).sum();
        black_box(total);
        // The first two rounds warm the caches.
        if round >= 2 {
            times.push(start.elapsed().as_secs_f64());
        }
    }
    times.sort_by(f64::total_cmp);
    let secs = times[times.len() / 2];
    let mbps = bytes as f64 / 1e6 / secs;
    println!(
        "native scan (release profile, calibrated o200k): {} texts, {:.2} MB UTF-8, median of {rounds} rounds: {:.1} ms, {mbps:.1} MB/s, {:.2} µs/KB",
        texts.len(),
        bytes as f64 / 1e6,
        secs * 1e3,
        1000.0 / mbps
    );
    Ok(())
}
