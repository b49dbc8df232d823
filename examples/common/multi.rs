//! The multilingual report of `fidelity`: per language, script group and
//! kind of sample, the calibrated and conservative estimates beside npm
//! tokenx and characters ÷ 4, and a summary against issue 23's targets.

use std::collections::BTreeMap;

use compaction_core::calibrated::TokenizerFamily;

use super::{Ratios, Sample};

/// One estimate of one sample against one tokenizer.
pub struct Record {
    /// Index of the sample.
    pub sample: usize,
    /// Index of the weight row (`TokenizerFamily::ALL`).
    pub family: usize,
    /// Index of the tokenizer (`TOKENIZERS`).
    pub tokenizer: usize,
    /// Calibrated, conservative, characters ÷ 4, tokenx (all rounded up).
    pub estimates: [f64; 4],
    /// The tokenizer's count.
    pub actual: f64,
    /// The calibrated estimate before rounding.
    pub unrounded: f64,
}

const CAL: usize = 0;
const CONS: usize = 1;
const CHARS4: usize = 2;
const TOKENX: usize = 3;

/// The 23 languages of issue 23's measurement.
pub const ISSUE_LANGUAGES: [&str; 23] = [
    "el", "ar", "he", "fa", "hi", "bn", "ta", "th", "ko", "vi", "tr", "pl", "cs", "uk", "ru", "pt",
    "it", "nl", "sv", "id", "de", "fr", "es",
];

type Groups = BTreeMap<String, [Ratios; 4]>;

fn groups(samples: &[Sample], records: &[&Record], key: impl Fn(&Sample) -> String) -> Groups {
    let mut g = Groups::new();
    for r in records {
        let entry = g.entry(key(&samples[r.sample])).or_default();
        for (ratios, e) in entry.iter_mut().zip(r.estimates) {
            if e.is_finite() {
                ratios.push(e, r.actual);
            }
        }
    }
    g
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn print_groups(title: &str, g: &Groups) {
    println!(
        "{title:<16} {:>4} | {:>6} {:>7} | {:>6} {:>6} | {:>7} | {:>7}",
        "n", "med", "|err|", "c.med", "c<0.9", "tokenx", "chars/4"
    );
    for (name, r) in g {
        println!(
            "{name:<16} {:>4} | {:>6.3} {:>7} | {:>6.3} {:>6} | {:>7} | {:>7}",
            r[CAL].0.len(),
            r[CAL].median(),
            pct(r[CAL].mean_abs_error()),
            r[CONS].median(),
            pct(r[CONS].share_under(0.9)),
            pct(r[TOKENX].mean_abs_error()),
            pct(r[CHARS4].mean_abs_error()),
        );
    }
    println!();
}

/// Mean over groups of each group's mean |error| for estimate `e`.
fn mean_over(g: &Groups, e: usize, keep: impl Fn(&str) -> bool) -> f64 {
    let v: Vec<f64> = g
        .iter()
        .filter(|(k, _)| keep(k))
        .map(|(_, r)| r[e].mean_abs_error())
        .collect();
    v.iter().sum::<f64>() / v.len().max(1) as f64
}

/// Prints the report for the records whose sample `measured` keeps.
pub fn print(
    samples: &[Sample],
    records: &[Record],
    measured: impl Fn(usize) -> bool,
    all_splits: bool,
) {
    let which = if all_splits {
        "all samples (the `fit` ones were fitted)"
    } else {
        "the `holdout` samples (never fitted)"
    };
    println!("# Multilingual corpus: {which}\n");
    println!(
        "Columns: calibrated median ratio and mean |error|; conservative median and share under 0.9; \
         mean |error| of npm tokenx and of characters ÷ 4.\n"
    );
    let mut summary = Vec::new();
    for (fi, family) in TokenizerFamily::ALL.into_iter().enumerate() {
        let rs: Vec<&Record> = records
            .iter()
            .filter(|r| r.family == fi && measured(r.sample))
            .collect();
        if rs.is_empty() {
            continue;
        }
        let against = if family == TokenizerFamily::Universal {
            "all tokenizers"
        } else {
            family.name()
        };
        println!("## {} weights vs {against}\n", family.name());
        let by_lang = groups(samples, &rs, |s| format!("{} {}", s.category, s.script));
        print_groups("language script", &by_lang);
        let by_script = groups(samples, &rs, |s| s.script.clone());
        print_groups("script group", &by_script);
        let by_kind = groups(samples, &rs, |s| s.kind.clone());
        print_groups("kind", &by_kind);
        summary.push((family, by_lang, by_script, by_kind));
    }

    println!("## Summary (issue 23's targets)\n");
    println!(
        "Mean |err| is the mean over languages of each language's mean |error| (23: the issue's \
         languages; all: every language of the corpus). Medians out: languages whose calibrated \
         median is outside [0.85, 1.15]. Conservative: the worst script group. tokenx wins: \
         script groups where tokenx's mean |error| is lower than calibrated's.\n"
    );
    println!(
        "{:<9} | {:>7} {:>7} | {:>14} | {:>7} | {:>8} {:>8} | {:>7} {:>7} | tokenx wins",
        "family",
        "|err|23",
        "|err|all",
        "medians out",
        "short",
        "cons<0.9",
        "cons med",
        "tokenx",
        "chars/4",
    );
    for (family, by_lang, by_script, by_kind) in &summary {
        let issue = |k: &str| ISSUE_LANGUAGES.contains(&k.split(' ').next().unwrap_or(""));
        let out: Vec<String> = by_lang
            .iter()
            .filter(|(_, r)| !(0.85..=1.15).contains(&r[CAL].median()))
            .map(|(k, r)| {
                format!(
                    "{} {:.2}",
                    k.split(' ').next().unwrap_or(""),
                    r[CAL].median()
                )
            })
            .collect();
        let short = by_kind
            .get("short")
            .map_or(f64::NAN, |r| r[CAL].mean_abs_error());
        let cons_under = by_script
            .values()
            .map(|r| r[CONS].share_under(0.9))
            .fold(0.0, f64::max);
        let cons_med = by_script
            .values()
            .map(|r| r[CONS].median())
            .fold(0.0, f64::max);
        let wins: Vec<&str> = by_script
            .iter()
            .filter(|(_, r)| r[TOKENX].mean_abs_error() <= r[CAL].mean_abs_error())
            .map(|(k, _)| k.as_str())
            .collect();
        println!(
            "{:<9} | {:>7} {:>7} | {:>14} | {:>7} | {:>8} {:>8.3} | {:>7} {:>7} | {}",
            family.name(),
            pct(mean_over(by_lang, CAL, issue)),
            pct(mean_over(by_lang, CAL, |_| true)),
            format!("{}/{}", out.len(), by_lang.len()),
            pct(short),
            pct(cons_under),
            cons_med,
            pct(mean_over(by_lang, TOKENX, issue)),
            pct(mean_over(by_lang, CHARS4, issue)),
            if wins.is_empty() {
                "none".to_string()
            } else {
                wins.join(" ")
            },
        );
        if !out.is_empty() {
            println!("{:<9}   medians out: {}", "", out.join(", "));
        }
    }
    println!();
}
