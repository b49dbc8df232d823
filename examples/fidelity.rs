//! How close the estimators come to real token counts.
//!
//! ```text
//! cargo run --release --example fidelity -- <corpus.jsonl> [histories.jsonl] [--cv K] [--multilingual FILE] [--all-splits] [--under-share S] [--multilingual-weight W]
//! ```
//! `--under-share S` refits the weights (as `scripts/fit-estimator` would)
//! with the conservative margin set to leave the share S of the fitting
//! samples under 0.9 instead of 0.3%, to measure the trade-off between that
//! share and the medians (with `--cv`, each fold's fit uses it).
//! `--multilingual-weight W` likewise refits with the multilingual samples
//! weighing W in the calibrated fit instead of 0.3 (the dev corpus's
//! samples weigh 1).
//! (`scripts/fidelity` runs it.) For each tokenizer family and category it
//! prints the median, p5 and p95 of estimate ÷ actual, the mean |error| and
//! the share of samples under 0.9, for the calibrated and conservative
//! variants and for the spec's rule (`reference`: characters ÷ 4; on
//! histories text ÷ 4 and function JSON ÷ 2). Given a histories file it adds
//! the figures for whole histories (provider count minus the system prompt).
//!
//! Without `--cv` the shipped weight table is measured (in-sample when the
//! corpus is the one it was fitted on). With `--cv K` the weights are refitted
//! K times, each time on all but one fold, and measured on the held-out fold:
//! these are the figures to quote. For histories a fold also leaves out of
//! the text fit every corpus sample that appears as a tool output in a
//! held-out history.
//!
//! `--multilingual FILE` adds the multilingual corpus: its `fit` samples
//! join the fit (and the folds); it gets a report of its own per language,
//! script group and kind, beside npm tokenx and characters ÷ 4 (`multi.rs`).
//! Its `holdout` samples are never fitted, and the report is on them alone
//! unless `--all-splits` is given.
//!
//! `--ceiling` fits the weights on every sample, the `holdout` split too,
//! and measures the shipped kinds of report with them: the best these counts
//! can do on the held-out text when the fit has seen it (in-sample). What it
//! cannot reach, no refit of these counts reaches on unseen text.
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

mod common;

use std::collections::BTreeMap;

use common::multi::{self, Record};
use common::{History, Ratios, Sample, TOKENIZERS};
use compaction_core::calibrated::{EstimateVariant, FamilyWeights, TokenizerFamily};
use compaction_core::{Reference, TextEstimator};

const VARIANTS: [&str; 3] = ["calibrated", "conservative", "reference"];

fn main() {
    if let Err(e) = run() {
        eprintln!("fidelity: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let mut positional = Vec::new();
    let mut folds: Option<usize> = None;
    let mut multilingual = None;
    let mut all_splits = false;
    let mut ceiling = false;
    let mut refit = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--multilingual" {
            multilingual = Some(args.next().ok_or("--multilingual needs a file")?);
        } else if let Some(knob) = match a.as_str() {
            "--multilingual-weight" => Some(&common::ML_WEIGHT),
            "--under-share" => Some(&common::UNDER_SHARE),
            _ => None,
        } {
            // Both are a positive number that the refit uses instead of
            // the fit's constant.
            let v = args.next().ok_or_else(|| format!("{a} needs a number"))?;
            let v: f64 = v
                .parse()
                .ok()
                .filter(|x: &f64| *x > 0.0 && x.is_finite())
                .ok_or_else(|| format!("{a}: not a positive number: {v}"))?;
            knob.set(v);
            refit = true;
        } else if a == "--all-splits" {
            all_splits = true;
        } else if a == "--ceiling" {
            ceiling = true;
        } else if a == "--cv" {
            let k = args.next().ok_or("--cv needs a number of folds")?;
            let k: usize = k.parse().map_err(|_| format!("--cv: not a number: {k}"))?;
            if k < 2 {
                return Err("--cv needs at least 2 folds".into());
            }
            folds = Some(k);
        } else {
            positional.push(a);
        }
    }
    let corpus = positional
        .first()
        .ok_or("usage: fidelity <corpus.jsonl> [histories.jsonl] [--cv K]")?;
    let mut samples = common::load_samples(corpus)?;
    // The samples from here on are the multilingual corpus's.
    let n_dev = samples.len();
    if let Some(path) = &multilingual {
        samples.extend(common::load_samples(path)?);
    }
    let histories = match positional.get(1) {
        Some(p) => common::load_histories(p)?,
        None => Vec::new(),
    };
    if ceiling && folds.is_some() {
        return Err("--ceiling and --cv exclude each other".into());
    }
    match folds {
        None if ceiling => println!(
            "# Fidelity, weights fitted on every sample, the holdout split too (the counts' in-sample ceiling)\n"
        ),
        None => {
            println!("# Fidelity, shipped weights (in-sample if {corpus} was used to fit them)\n")
        }
        Some(k) => println!(
            "# Fidelity, {k}-fold cross-validated (each figure from weights fitted without its sample)\n"
        ),
    }
    // The weights measured without `--cv` (each fold fits its own).
    let histories_fitted: Vec<&History> = histories.iter().collect();
    let weights = if ceiling {
        // fit_all leaves the holdout split out: fit on copies marked `fit`.
        let all: Vec<Sample> = samples
            .iter()
            .map(|s| Sample {
                split: "fit".to_string(),
                ..s.clone()
            })
            .collect();
        common::fit_all(&all.iter().collect::<Vec<_>>(), &histories_fitted)
    } else if refit && folds.is_none() {
        // What `scripts/fit-estimator` would write with the knobs set.
        common::fit_all(&samples.iter().collect::<Vec<_>>(), &histories_fitted)
    } else {
        TokenizerFamily::ALL.map(|f| *f.weights())
    };
    let records = text_records(&samples, folds, &weights);
    print_spread(&samples, &records);
    let text = table(&samples, &records, |i| i < n_dev);
    print_text(&text);
    if multilingual.is_some() {
        let measured = |i: usize| i >= n_dev && (all_splits || samples[i].split == "holdout");
        multi::print(&samples, &records, measured, all_splits);
    }
    if !histories.is_empty() {
        let hist = history_ratios(&samples, &histories, folds, &weights);
        print_histories(&hist);
        print_summary(&text, Some(&hist));
    } else {
        print_summary(&text, None);
    }
    Ok(())
}

/// Ratios keyed by (family, variant, category); category "ALL" pools all.
type Table = BTreeMap<(usize, usize, String), Ratios>;

/// The calibrated error by size, on the samples fitted (the dev corpus and
/// the multilingual `fit` split), per family: the root mean square of
/// (real − estimate) ÷ real, unrounded, by real count. What the
/// conservative margin's model of the spread follows (`SPREAD_TOKENS`).
fn print_spread(samples: &[Sample], records: &[Record]) {
    const EDGES: [f64; 8] = [0.0, 5.0, 10.0, 20.0, 50.0, 100.0, 300.0, f64::INFINITY];
    println!("## Spread by size: calibrated relative error's root mean square, fitted samples\n");
    print!("{:<10}", "family");
    for w in EDGES.windows(2) {
        let label = if w[1].is_finite() {
            format!("≤{}", w[1])
        } else {
            format!(">{}", w[0])
        };
        print!(" | {label:>9}");
    }
    println!("  (root mean square, samples)");
    for (fi, family) in TokenizerFamily::ALL.into_iter().enumerate().skip(1) {
        print!("{:<10}", family.name());
        for w in EDGES.windows(2) {
            let errors: Vec<f64> = records
                .iter()
                .filter(|r| r.family == fi && samples[r.sample].split != "holdout")
                .filter(|r| r.actual > w[0] && r.actual <= w[1])
                .map(|r| ((r.actual - r.unrounded) / r.actual).powi(2))
                .collect();
            let rms = (errors.iter().sum::<f64>() / errors.len().max(1) as f64).sqrt();
            print!(" | {:>9}", format!("{rms:.3} {}", errors.len()));
        }
        println!();
    }
    println!();
}

/// Every sample's estimates against each tokenizer it was counted by: with
/// `--cv` from weights fitted without its fold.
fn text_records(
    samples: &[Sample],
    folds: Option<usize>,
    fixed: &[FamilyWeights; common::FAMILIES],
) -> Vec<Record> {
    // Folds are stratified: the i-th sample of each category goes to fold i mod k.
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let fold_of: Vec<usize> = samples
        .iter()
        .map(|s| {
            let n = seen.entry(s.category.as_str()).or_insert(0);
            *n += 1;
            (*n - 1) % folds.unwrap_or(1)
        })
        .collect();
    let mut records = Vec::new();
    for fold in 0..folds.unwrap_or(1) {
        let weights = match folds {
            None => *fixed,
            Some(_) => {
                let train: Vec<&Sample> = samples
                    .iter()
                    .zip(&fold_of)
                    .filter(|(_, f)| **f != fold)
                    .map(|(s, _)| s)
                    .collect();
                common::fit_all(&train, &[])
            }
        };
        for (si, s) in samples.iter().enumerate() {
            if folds.is_some() && fold_of[si] != fold {
                continue;
            }
            for (fi, family) in TokenizerFamily::ALL.into_iter().enumerate() {
                let estimates = [
                    common::estimator(&weights[fi], EstimateVariant::Calibrated)
                        .text(&s.text)
                        .ceil(),
                    common::estimator(&weights[fi], EstimateVariant::Conservative)
                        .text(&s.text)
                        .ceil(),
                    (s.utf16_len / 4.0).ceil(),
                    s.tokenx,
                ];
                let unrounded =
                    common::estimator(&weights[fi], EstimateVariant::Calibrated).text(&s.text);
                for (ti, tok) in TOKENIZERS.into_iter().enumerate() {
                    // A family's own weights meet its own tokenizer; universal meets all.
                    if family != TokenizerFamily::Universal && family != tok {
                        continue;
                    }
                    if s.tokens[ti] > 0.0 {
                        records.push(Record {
                            sample: si,
                            family: fi,
                            tokenizer: ti,
                            estimates,
                            actual: s.tokens[ti],
                            unrounded,
                        });
                    }
                }
            }
        }
    }
    records
}

/// The ratios of the samples `which` keeps, per family, variant and
/// category ("ALL" pools them).
fn table(samples: &[Sample], records: &[Record], which: impl Fn(usize) -> bool) -> Table {
    let mut table = Table::new();
    for r in records.iter().filter(|r| which(r.sample)) {
        for (vi, e) in r.estimates.iter().take(VARIANTS.len()).enumerate() {
            for cat in [samples[r.sample].category.as_str(), "ALL"] {
                table
                    .entry((r.family, vi, cat.to_string()))
                    .or_default()
                    .push(*e, r.actual);
            }
        }
    }
    table
}

fn history_ratios(
    samples: &[Sample],
    histories: &[History],
    folds: Option<usize>,
    fixed: &[FamilyWeights; common::FAMILIES],
) -> Table {
    let mut table = Table::new();
    let k = folds.unwrap_or(1);
    for fold in 0..k {
        let held_out: Vec<&History> = histories
            .iter()
            .enumerate()
            .filter(|(i, _)| folds.is_none() || i % k == fold)
            .map(|(_, h)| h)
            .collect();
        let weights = match folds {
            None => *fixed,
            Some(_) => {
                let train_h: Vec<&History> = histories
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| i % k != fold)
                    .map(|(_, h)| h)
                    .collect();
                let train_s: Vec<&Sample> = samples
                    .iter()
                    .filter(|s| !held_out.iter().any(|h| h.outputs.contains(&s.text)))
                    .collect();
                common::fit_all(&train_s, &train_h)
            }
        };
        for h in held_out {
            for (fi, family) in TokenizerFamily::ALL.into_iter().enumerate() {
                let cal = common::estimator(&weights[fi], EstimateVariant::Calibrated);
                let cons = common::estimator(&weights[fi], EstimateVariant::Conservative);
                let estimates = [
                    common::history_estimate(&h.contents, &cal),
                    common::history_estimate(&h.contents, &cons),
                    common::history_estimate(&h.contents, &Reference),
                ];
                for (ti, tok) in TOKENIZERS
                    .into_iter()
                    .take(common::HISTORY_TOKENIZERS)
                    .enumerate()
                {
                    if family != TokenizerFamily::Universal && family != tok {
                        continue;
                    }
                    for (vi, e) in estimates.iter().enumerate() {
                        for group in [format!("lang:{}", h.lang), "ALL".to_string()] {
                            table
                                .entry((fi, vi, group))
                                .or_default()
                                .push(*e, h.tokens[ti]);
                        }
                    }
                }
            }
        }
    }
    table
}

fn row(r: &Ratios) -> String {
    format!(
        "{:>5.3} {:>5.3} {:>5.3} {:>5.1}% {:>5.1}%",
        r.median(),
        r.p5(),
        r.p95(),
        100.0 * r.mean_abs_error(),
        100.0 * r.share_under(0.9)
    )
}

fn print_table(title: &str, table: &Table) {
    for (fi, family) in TokenizerFamily::ALL.into_iter().enumerate() {
        let against = if family == TokenizerFamily::Universal {
            "all tokenizers"
        } else {
            family.name()
        };
        let mut groups: Vec<&String> = table
            .keys()
            .filter(|(f, v, _)| *f == fi && *v == 0)
            .map(|(_, _, c)| c)
            .collect();
        if groups.is_empty() {
            // (The histories count only the first four tokenizers.)
            continue;
        }
        println!("## {title}: {} weights vs {against}\n", family.name());
        println!(
            "{:<14} {:>5} | {:^33} | {:^33} | {:^33}",
            "category", "n", VARIANTS[0], VARIANTS[1], VARIANTS[2]
        );
        println!(
            "{:<14} {:>5} | {h} | {h} | {h}",
            "",
            "",
            h = format!(
                "{:>5} {:>5} {:>5} {:>6} {:>6}",
                "med", "p5", "p95", "|err|", "<0.9"
            )
        );
        groups.sort_by_key(|c| (c.as_str() == "ALL", c.to_string()));
        for g in groups {
            let cells: Vec<String> = (0..3)
                .map(|vi| table.get(&(fi, vi, g.clone())).map_or(String::new(), row))
                .collect();
            let n = table.get(&(fi, 0, g.clone())).map_or(0, |r| r.0.len());
            println!(
                "{g:<14} {n:>5} | {} | {} | {}",
                cells[0], cells[1], cells[2]
            );
        }
        println!();
    }
}

fn print_text(table: &Table) {
    print_table("Text samples", table);
}

fn print_histories(table: &Table) {
    print_table("Whole histories", table);
}

fn print_summary(text: &Table, hist: Option<&Table>) {
    println!("## Summary\n");
    println!(
        "{:<10} | {:>7} {:>16} | {:>9} {:>9} | {:>26} | {:>15} | {:>9}",
        "family",
        "|err|",
        "worst cat. med.",
        "cons<0.9",
        "cons med",
        "hist cal med/p5/p95",
        "hist cons p5/med",
        "hist ref"
    );
    for (fi, family) in TokenizerFamily::ALL.into_iter().enumerate() {
        let all = |vi: usize| {
            text.get(&(fi, vi, "ALL".to_string()))
                .cloned()
                .unwrap_or_default()
        };
        let worst = text
            .iter()
            .filter(|((f, v, c), _)| *f == fi && *v == 0 && c != "ALL")
            .map(|((_, _, c), r)| (c.clone(), r.median()))
            .max_by(|a, b| (a.1 - 1.0).abs().total_cmp(&(b.1 - 1.0).abs()));
        let worst = worst.map_or(String::new(), |(c, m)| format!("{m:.3} {c}"));
        let hist_cells = match hist {
            Some(h) => {
                let g = |vi: usize| {
                    h.get(&(fi, vi, "ALL".to_string()))
                        .cloned()
                        .unwrap_or_default()
                };
                let (c, k, r) = (g(0), g(1), g(2));
                format!(
                    "{:>8.3} {:>8.3} {:>8.3} | {:>7.3} {:>7.3} | {:>9.3}",
                    c.median(),
                    c.p5(),
                    c.p95(),
                    k.p5(),
                    k.median(),
                    r.median()
                )
            }
            None => String::new(),
        };
        println!(
            "{:<10} | {:>6.1}% {:>16} | {:>8.2}% {:>9.3} | {hist_cells}",
            family.name(),
            100.0 * all(0).mean_abs_error(),
            worst,
            100.0 * all(1).share_under(0.9),
            all(1).median(),
        );
    }
    println!();
}
