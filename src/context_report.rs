//! The `/context` report and the context-usage indicator.

use crate::prelude::*;

use crate::json::json_object;

use crate::error::Error;
use crate::ladder::{SUMMARY_RESERVE, Thresholds, Tier, compute_thresholds, current_tier};
use crate::read::check_count;

/// Where a chat stands: the ladder, the tier and how much room is left.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContextReport {
    /// The prompt size the report is for.
    pub tokens: f64,
    /// The ladder.
    pub thresholds: Thresholds,
    /// The tier `tokens` is in.
    pub tier: Tier,
    /// `tokens / window × 100`: 0 for a window of 0, and capped at the
    /// largest double (`Number.MAX_VALUE`) where the division overflows (a
    /// window of a tiny fraction of a token), so that it is always a finite
    /// number (JSON has no Infinity).
    pub percent_used: f64,
    /// Tokens left before `auto` (0 at or past it).
    pub tokens_until_auto: f64,
    /// Whether a footer indicator should show: `warn <= tokens < auto`.
    pub show_footer: bool,
}

json_object! {
    ContextReport {
        tokens: "tokens",
        thresholds: "thresholds",
        tier: "tier",
        percent_used: "percentUsed",
        tokens_until_auto: "tokensUntilAuto",
        show_footer: "showFooter",
    }
}

/// Builds the report for `tokens` in a window of `window` tokens.
///
/// ```
/// let r = compaction_core::context_report(150_000.0, 200_000.0).unwrap();
/// assert_eq!(r.tier.as_str(), "warn");
/// assert_eq!(r.tokens_until_auto, 17_000.0);
/// ```
pub fn context_report(tokens: f64, window: f64) -> Result<ContextReport, Error> {
    let tokens = check_count("tokens", tokens)?;
    let thresholds = compute_thresholds(window)?;
    let tier = current_tier(tokens, &thresholds);
    Ok(ContextReport {
        tokens,
        thresholds,
        tier,
        percent_used: if window > 0.0 {
            (tokens / window * 100.0).min(f64::MAX)
        } else {
            0.0
        },
        tokens_until_auto: (thresholds.auto - tokens).max(0.0),
        show_footer: tier == Tier::Warn,
    })
}

impl ContextReport {
    /// The `/context` block: the effective window and the three thresholds
    /// with en-US digit grouping, and the current tier.
    pub fn to_text(&self) -> String {
        let t = &self.thresholds;
        let values = [t.effective_window, t.warn, t.auto, t.hard].map(group_digits);
        let width = values.iter().map(String::len).max().unwrap_or(0);
        format!(
            "Compaction thresholds\n\
             \x20 Effective window:   {:>width$}  (window − {} reserve)\n\
             \x20 Warn threshold:     {:>width$}\n\
             \x20 Auto threshold:     {:>width$}\n\
             \x20 Hard threshold:     {:>width$}\n\
             \x20 Current tier:       {}",
            values[0],
            group_digits(SUMMARY_RESERVE),
            values[1],
            values[2],
            values[3],
            self.tier.as_str(),
        )
    }
}

/// Rounds to a whole number and groups digits by thousands, as
/// `Math.round(n).toLocaleString('en-US')` does. Numbers of 2^53 and more
/// print their shortest round-trip digits padded with zeros
/// (`1e21` → `1,000,000,000,000,000,000,000`), never an exponent.
pub fn group_digits(n: f64) -> String {
    // JS Math.round rounds halves up (towards +∞); from 2^52 on every
    // double is whole, and adding 0.5 could round up to the next one.
    let rounded = if n.abs() >= 4_503_599_627_370_496.0 {
        n
    } else {
        (n + 0.5).floor()
    };
    let digits = whole_digits(rounded.abs());
    let mut out = String::with_capacity(digits.len() + digits.len() / 3 + 1);
    if rounded < 0.0 {
        out.push('-');
    }
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The decimal digits of a whole, finite, non-negative double: exact below
/// 2^53, the shortest round-trip digits padded with zeros above (what
/// `toLocaleString` prints), never in exponent form.
fn whole_digits(n: f64) -> String {
    if n < 9_007_199_254_740_992.0 {
        return crate::error::show_number(n);
    }
    // As JavaScript writes it: "9007199254740992", "1.2345e+21".
    let text = crate::json::number_to_string(n);
    let (mantissa, exponent) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.trim_start_matches('+').parse::<i32>().unwrap_or(0)),
        None => (text.as_str(), 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let frac_part = frac_part.trim_end_matches('0');
    let digits = format!("{int_part}{frac_part}");
    // Where the decimal point falls, counted in digits from the left.
    let point = int_part.len() as i32 + exponent;
    let mut out: String = digits.chars().take(point.max(0) as usize).collect();
    while (out.len() as i32) < point {
        out.push('0');
    }
    out
}
