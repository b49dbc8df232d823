//! The three-tier ladder: `warn`, `auto` and `hard` for a context window.
//!
//! Each threshold is the larger of a proportional rule and an absolute rule,
//! computed in IEEE doubles in the same order as the reference TypeScript so
//! that results are equal bit for bit:
//!
//! ```text
//! effectiveWindow = window - SUMMARY_RESERVE
//! auto = max(PCT * window, effectiveWindow - AUTOCOMPACT_BUFFER)
//! warn = max((PCT - WARN_PCT_OFFSET) * window, auto - WARN_BUFFER)
//! hard = max(effectiveWindow - HARD_BUFFER, auto)
//! ```

use crate::prelude::*;

use crate::json::{ToJson, json_object, write_str};

use crate::error::{Error, ErrorCode};
use crate::read::{Fields, TOKEN_COUNT, WINDOW};

/// Proportional floor for `auto` (0.7 of the window).
pub const PCT: f64 = 0.7;
/// `warn`'s proportional floor is `PCT - WARN_PCT_OFFSET` (0.6 of the window).
pub const WARN_PCT_OFFSET: f64 = 0.1;
/// Output cap of the summarization call (thinking off).
pub const COMPACT_MAX_OUTPUT_TOKENS: u64 = 20_000;
/// Reserved at the top of the window for the summary; equal to the output cap
/// by design: with thinking off the summary can never be longer than that.
pub const SUMMARY_RESERVE: f64 = COMPACT_MAX_OUTPUT_TOKENS as f64;
/// `effectiveWindow − auto` on large windows.
pub const AUTOCOMPACT_BUFFER: f64 = 13_000.0;
/// `auto − warn` on large windows.
pub const WARN_BUFFER: f64 = 20_000.0;
/// `effectiveWindow − hard` on large windows.
pub const HARD_BUFFER: f64 = 3_000.0;
/// Consecutive non-forced failures that open the circuit breaker.
pub const MAX_CONSECUTIVE_FAILURES: u32 = 3;

/// Which rule set a threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThresholdRule {
    /// The proportional floor (a share of the window); also reported on a tie.
    Pct,
    /// The absolute rule (a fixed buffer below the effective window).
    Abs,
    /// `hard` only: the window is too small for a separate hard tier, so
    /// `hard == auto`.
    Auto,
}

/// The ladder for one context window. Token counts are JS numbers (doubles).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Thresholds {
    /// The raw context window the ladder was computed for.
    pub window: f64,
    /// `window − SUMMARY_RESERVE`, clamped at 0 as the reference reports it.
    pub effective_window: f64,
    /// From here the user is told the context is getting full.
    pub warn: f64,
    /// From here compaction runs before the next send.
    pub auto: f64,
    /// From here compaction is forced before the send.
    pub hard: f64,
    /// Which rule set `warn`.
    pub warn_rule: ThresholdRule,
    /// Which rule set `auto`.
    pub auto_rule: ThresholdRule,
    /// Which rule set `hard` (`auto` when it collapsed onto `auto`).
    pub hard_rule: ThresholdRule,
}

impl ThresholdRule {
    const ALL: [ThresholdRule; 3] = [ThresholdRule::Pct, ThresholdRule::Abs, ThresholdRule::Auto];

    fn name(self) -> &'static str {
        match self {
            ThresholdRule::Pct => "pct",
            ThresholdRule::Abs => "abs",
            ThresholdRule::Auto => "auto",
        }
    }
}

impl ToJson for ThresholdRule {
    fn write_json(&self, out: &mut String) {
        write_str(out, self.name());
    }
}

json_object! {
    /// The ladder as the JS API returns it (`computeThresholds`).
    Thresholds {
        window: "window",
        effective_window: "effectiveWindow",
        warn: "warn",
        auto: "auto",
        hard: "hard",
        warn_rule: "warnRule",
        auto_rule: "autoRule",
        hard_rule: "hardRule",
    }
}

impl Thresholds {
    /// Reads a ladder from plain JSON, such as [`compute_thresholds`]'s
    /// result came back from JS. `warn`, `auto` and `hard` are required;
    /// the other fields are read when present (0 or `pct` otherwise).
    pub fn from_json(value: &crate::json::Value, path: &str) -> Result<Thresholds, Error> {
        let f = Fields::of(value, path, ErrorCode::InvalidArgument)?;
        let count = |key: &str| f.rule(key, &TOKEN_COUNT);
        let rule = |key: &str| -> Result<ThresholdRule, Error> {
            Ok(f.choice(key, &ThresholdRule::ALL, ThresholdRule::name)?
                .unwrap_or(ThresholdRule::Pct))
        };
        Ok(Thresholds {
            window: count("window")?.unwrap_or(0.0),
            effective_window: count("effectiveWindow")?.unwrap_or(0.0),
            warn: f.required("warn", count("warn")?)?,
            auto: f.required("auto", count("auto")?)?,
            hard: f.required("hard", count("hard")?)?,
            warn_rule: rule("warnRule")?,
            auto_rule: rule("autoRule")?,
            hard_rule: rule("hardRule")?,
        })
    }
}

/// Computes the ladder for a context window of `window` tokens.
///
/// Fails with `INVALID_WINDOW` when `window` is NaN, infinite or negative.
/// Small windows never fail: at 10 000 the absolute terms are negative and
/// the proportional floors win.
///
/// ```
/// let t = compaction_core::compute_thresholds(200_000.0).unwrap();
/// assert_eq!((t.warn, t.auto, t.hard, t.effective_window), (147_000.0, 167_000.0, 177_000.0, 180_000.0));
/// ```
pub fn compute_thresholds(window: f64) -> Result<Thresholds, Error> {
    let window = WINDOW.check("the context window", window)?;
    let effective_window = window - SUMMARY_RESERVE;

    let pct_auto = PCT * window;
    let abs_auto = effective_window - AUTOCOMPACT_BUFFER;
    let auto = pct_auto.max(abs_auto);

    let pct_warn = (PCT - WARN_PCT_OFFSET) * window;
    let abs_warn = auto - WARN_BUFFER;
    let warn = pct_warn.max(abs_warn);

    let raw_hard = effective_window - HARD_BUFFER;
    let hard = raw_hard.max(auto);

    Ok(Thresholds {
        window,
        effective_window: effective_window.max(0.0),
        warn,
        auto,
        hard,
        warn_rule: if pct_warn >= abs_warn {
            ThresholdRule::Pct
        } else {
            ThresholdRule::Abs
        },
        auto_rule: if pct_auto >= abs_auto {
            ThresholdRule::Pct
        } else {
            ThresholdRule::Abs
        },
        hard_rule: if raw_hard > auto {
            ThresholdRule::Abs
        } else {
            ThresholdRule::Auto
        },
    })
}

/// Where a token count stands on the ladder.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Tier {
    /// Below `warn`: nothing to say.
    Safe,
    /// `[warn, auto)`: the context is getting full.
    Warn,
    /// `[auto, hard)`: compaction runs before the next send.
    Auto,
    /// `[hard, ∞)`: compaction is forced before the send.
    Hard,
}

impl ToJson for Tier {
    fn write_json(&self, out: &mut String) {
        write_str(out, self.as_str());
    }
}

impl Tier {
    /// Every tier, from the lowest.
    pub const ALL: [Tier; 4] = [Tier::Safe, Tier::Warn, Tier::Auto, Tier::Hard];

    /// The tier's name as the JS API and the `/context` report spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Safe => "safe",
            Tier::Warn => "warn",
            Tier::Auto => "auto",
            Tier::Hard => "hard",
        }
    }
}

/// The tier that `tokens` is in. Checks `hard` first, so on small windows
/// (where `hard == auto`) a count at `auto` is reported as `hard` directly.
///
/// ```
/// use compaction_core::{compute_thresholds, current_tier, Tier};
/// let t = compute_thresholds(32_000.0).unwrap();
/// assert_eq!(current_tier(22_400.0, &t), Tier::Hard);
/// ```
pub fn current_tier(tokens: f64, thresholds: &Thresholds) -> Tier {
    if tokens >= thresholds.hard {
        Tier::Hard
    } else if tokens >= thresholds.auto {
        Tier::Auto
    } else if tokens >= thresholds.warn {
        Tier::Warn
    } else {
        Tier::Safe
    }
}
