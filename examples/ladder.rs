//! Prints the ladder and the `/context` block for a window and a token count.
//!
//! `cargo run --example ladder -- <window> [tokens]`
#![allow(clippy::unwrap_used, clippy::expect_used)] // tests assert on data they built

use compaction_core::{ThresholdRule, context_report};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let parse = |i: usize, default: f64| -> Result<f64, String> {
        args.get(i).map_or(Ok(default), |s| {
            s.replace(['_', ','], "")
                .parse::<f64>()
                .map_err(|_| format!("not a number: {s}"))
        })
    };
    let result = (|| -> Result<String, String> {
        let window = parse(0, 200_000.0)?;
        let tokens = parse(1, 0.0)?;
        let report = context_report(tokens, window).map_err(|e| e.to_string())?;
        let t = report.thresholds;
        let rule = |r: ThresholdRule| match r {
            ThresholdRule::Pct => "proportional",
            ThresholdRule::Abs => "absolute",
            ThresholdRule::Auto => "= auto (window too small for a separate hard tier)",
        };
        Ok(format!(
            "Window {} tokens, prompt {} tokens ({:.1}% used)\n\
             \x20 warn {:>12}  {}\n  auto {:>12}  {}\n  hard {:>12}  {}\n\n{}",
            compaction_core::group_digits(window),
            compaction_core::group_digits(tokens),
            report.percent_used,
            t.warn,
            rule(t.warn_rule),
            t.auto,
            rule(t.auto_rule),
            t.hard,
            rule(t.hard_rule),
            report.to_text()
        ))
    })();
    match result {
        Ok(text) => println!("{text}"),
        Err(e) => {
            eprintln!("{e}\nusage: cargo run --example ladder -- <window> [tokens]");
            std::process::exit(2);
        }
    }
}
