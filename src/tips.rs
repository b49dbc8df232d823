//! The three `context-*` tips, one per tier of the ladder.
//!
//! Their token ranges do not overlap: `context-warn` in `[warn, auto)`,
//! `context-high` in `[auto, hard)`, `context-critical` in `[hard, ∞)`. On a
//! small window `hard == auto`, so the middle band is empty and no
//! `context-high` is ever shown. When auto compaction works, the count drops
//! below `auto` right after the compaction and `context-high` does not
//! linger; when it keeps failing, the three fire in order as the count grows.

use crate::prelude::*;

use crate::json::json_object;

use crate::error::{Error, ErrorCode};
use crate::ladder::{Thresholds, Tier, compute_thresholds, current_tier};
use crate::read::{Fields, TOKEN_COUNT, check_count};

/// A tip the host may show after a response.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tip {
    /// Stable id: `context-warn`, `context-high` or `context-critical`.
    pub id: &'static str,
    /// The English text.
    pub text: &'static str,
    /// Higher wins when several tips are relevant.
    pub priority: u32,
    /// Prompts to wait before showing the same tip again.
    pub cooldown_prompts: u32,
    /// The tier this tip belongs to.
    pub tier: Tier,
}

json_object! {
    Tip {
        id: "id",
        text: "text",
        priority: "priority",
        cooldown_prompts: "cooldownPrompts",
        tier: "tier",
    }
}

/// `[warn, auto)`: the context is getting full.
pub const CONTEXT_WARN: Tip = Tip {
    id: "context-warn",
    text: "Context is getting full. It will be compacted automatically before it runs out; \
           use /compact now to choose what the summary keeps.",
    priority: 50,
    cooldown_prompts: 10,
    tier: Tier::Warn,
};

/// `[auto, hard)`: compaction runs before the next send.
pub const CONTEXT_HIGH: Tip = Tip {
    id: "context-high",
    text: "Context is nearly full: older messages will be summarized before your next message is sent. \
           Export the conversation first if you need its full history.",
    priority: 90,
    cooldown_prompts: 5,
    tier: Tier::Auto,
};

/// `[hard, ∞)`: a notice after the rescue, not a warning before it.
pub const CONTEXT_CRITICAL: Tip = Tip {
    id: "context-critical",
    text: "Context was full: compaction was forced before this message was sent. \
           If it keeps happening, start a new session or run /compact with a focus.",
    priority: 100,
    cooldown_prompts: 3,
    tier: Tier::Hard,
};

/// All context tips, most urgent first.
pub const CONTEXT_TIPS: [Tip; 3] = [CONTEXT_CRITICAL, CONTEXT_HIGH, CONTEXT_WARN];

/// What tip selection looks at.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TipContext {
    /// Prompt size reported by the last response.
    pub last_prompt_token_count: f64,
    /// The model's context window; without it (and without thresholds) no
    /// context tip is shown.
    pub context_window_size: Option<f64>,
    /// The ladder, if the caller computed it; else it is derived from the window.
    pub thresholds: Option<Thresholds>,
    /// Prompts sent so far in this session.
    pub session_prompt_count: u64,
    /// For each tip id, the session prompt count when it was last shown.
    pub last_shown: crate::StrMap<String, u64>,
}

json_object! {
    TipContext {
        last_prompt_token_count: "lastPromptTokenCount",
        context_window_size: "contextWindowSize",
        thresholds: "thresholds",
        session_prompt_count: "sessionPromptCount",
        last_shown: "lastShown",
    }
    const FIELDS;
}

impl TipContext {
    /// Reads a tip context from plain JSON, with errors that name the field.
    pub fn from_json(value: &crate::json::Value, path: &str) -> Result<TipContext, Error> {
        let f = Fields::of(value, path, ErrorCode::InvalidArgument)?;
        f.only(&TipContext::FIELDS)?;
        let count = |key: &str| f.rule(key, &TOKEN_COUNT);
        let thresholds = match f.get("thresholds") {
            Some(t) => Some(Thresholds::from_json(t, &format!("{path}.thresholds"))?),
            None => None,
        };
        let last_shown_path = format!("{path}.lastShown");
        let shown = Fields::of(
            f.get("lastShown").unwrap_or(&crate::json::Value::Null),
            &last_shown_path,
            ErrorCode::InvalidArgument,
        )?;
        let mut last_shown = crate::StrMap::new();
        for key in shown.keys() {
            if let Some(n) = shown.count(key)? {
                last_shown.insert(key.to_string(), n);
            }
        }
        Ok(TipContext {
            last_prompt_token_count: count("lastPromptTokenCount")?.unwrap_or(0.0),
            context_window_size: count("contextWindowSize")?,
            thresholds,
            session_prompt_count: f.count("sessionPromptCount")?.unwrap_or(0),
            last_shown,
        })
    }
}

/// The tip to show now, if any: the most urgent tip whose band holds the
/// last prompt count and whose cooldown has passed.
///
/// ```
/// use compaction_core::{select_tip, TipContext};
/// let ctx = TipContext { last_prompt_token_count: 150_000.0, context_window_size: Some(200_000.0), ..Default::default() };
/// assert_eq!(select_tip(&ctx).unwrap().map(|t| t.id), Some("context-warn"));
/// ```
pub fn select_tip(ctx: &TipContext) -> Result<Option<Tip>, Error> {
    let tokens = check_count("lastPromptTokenCount", ctx.last_prompt_token_count)?;
    let thresholds = match (ctx.thresholds, ctx.context_window_size) {
        (Some(t), _) => t,
        (None, Some(window)) => compute_thresholds(window)?,
        (None, None) => return Ok(None),
    };
    let tier = current_tier(tokens, &thresholds);
    Ok(CONTEXT_TIPS
        .iter()
        .filter(|tip| tip.tier == tier)
        .filter(|tip| match ctx.last_shown.get(tip.id) {
            Some(&shown) => {
                ctx.session_prompt_count.saturating_sub(shown) >= u64::from(tip.cooldown_prompts)
            }
            None => true,
        })
        .max_by_key(|tip| tip.priority)
        .copied())
}
