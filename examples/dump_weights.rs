//! Prints the shipped weight table as JSON, for ports of the scanner
//! (`benches/scan.mjs`): the benchmark and its port test read the weights
//! from here instead of copying numbers by hand.
//!
//! ```text
//! cargo run --example dump_weights [-- --counts <corpus.jsonl>]
//! ```
//! Output: `{ "feature_names": [...], "families": { "<name>": { "text": [...],
//! "conservative_text": [...] }, ... } }`. With `--counts` it adds
//! `"counts": [[...one per FEATURE_NAMES...], ...]`, one row per line of the corpus, as
//! the crate's own scanner counts them, so a port can be checked count by
//! count. Doubles print in their shortest round-trip form, so JavaScript
//! reads back the very same weights.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

use compaction_core::calibrated::{FEATURE_NAMES, TokenizerFamily, scan};
use compaction_core::json;
use compaction_core::{Map, Value};

fn main() {
    if let Err(e) = run() {
        eprintln!("dump_weights: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let corpus = match args.as_slice() {
        [] => None,
        [flag, path] if flag == "--counts" => Some(path.as_str()),
        _ => return Err("usage: dump_weights [--counts <corpus.jsonl>]".into()),
    };
    let mut families = Map::new();
    for family in TokenizerFamily::ALL {
        let w = family.weights();
        families.insert(
            family.name().to_string(),
            // The f32 weights as the doubles the estimator multiplies by.
            json!({
                "text": w.text.map(f64::from).to_vec(),
                "conservative_text": w.conservative_text.map(f64::from).to_vec(),
                "bytes_bound": w.bytes_bound
            }),
        );
    }
    let mut out = json!({ "feature_names": &FEATURE_NAMES[..], "families": families });
    if let Some(path) = corpus {
        out["counts"] = Value::Array(corpus_counts(path)?);
    }
    println!("{out}");
    Ok(())
}

fn corpus_counts(path: &str) -> Result<Vec<Value>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .enumerate()
        .map(|(i, line)| {
            let v: Value = line
                .parse::<Value>()
                .map_err(|e| format!("{path}:{}: {e}", i + 1))?;
            let sample = v
                .get("text")
                .and_then(Value::as_str)
                .ok_or_else(|| format!("{path}:{}: no `text` string", i + 1))?;
            Ok(json!(&scan(sample).counts[..]))
        })
        .collect()
}
