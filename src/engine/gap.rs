//! The usage gap (`overheadTokens`, `setOverhead`: docs/api.md): what the provider counted in the
//! last prompt beyond the estimator's count of the history the host passed.
//!
//! The gap has two parts. What the host sends besides the messages (the
//! system prompt, the tool schemas) is fixed: it is in every prompt, and a
//! compaction does not remove it. The host declares it (`overheadTokens`,
//! or the framework adapter from the call's own system prompt and tools).
//! The rest is the estimator's error on the history, which scales with
//! the history it was measured against, so a compaction removes it along
//! with the history. The next prompt after a compaction is predicted as
//! `fixed + ratio × (estimate of what it keeps)`, where
//! `ratio = (provider's count − fixed) / estimate of the history`.
//!
//! Worked example (a 200K window): usage 168,000, the history estimated at
//! 24,000, nothing declared. Counted as fixed (before), 144,000 tokens of
//! every later prompt were beyond reach, the kept tail had ~3,000 tokens
//! left and yielded below `excludeMessages`. Here the ratio is 7: a tail
//! of 2,000 estimated tokens is predicted at 14,000 provider tokens. With
//! `overheadTokens: 140,000` declared, the ratio is (168,000 − 140,000) /
//! 24,000 ≈ 1.17 and the same tail is predicted at 140,000 + 2,333.

/// The gap model of one prompt.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Gap {
    /// Provider tokens every prompt carries besides the messages.
    pub fixed: f64,
    /// Provider tokens per estimated token of the messages.
    pub ratio: f64,
}

/// Bounds of the ratio: a bogus usage count cannot make it absurd.
const MIN_RATIO: f64 = 0.25;
const MAX_RATIO: f64 = 64.0;

impl Gap {
    /// The model for a history of `history_estimate` estimated tokens whose
    /// prompt the provider counted at `provider_tokens` (0: no usage; the
    /// prompt is then `declared + history_estimate`), with `declared` fixed
    /// tokens (at most the provider's count).
    pub fn new(provider_tokens: u64, history_estimate: f64, declared: Option<u64>) -> Gap {
        let declared = declared.map_or(0.0, |n| n as f64);
        if provider_tokens == 0 {
            return Gap {
                fixed: declared,
                ratio: 1.0,
            };
        }
        let provider = provider_tokens as f64;
        let fixed = declared.min(provider);
        let ratio = if history_estimate > 0.0 {
            super::clamp((provider - fixed) / history_estimate, MIN_RATIO, MAX_RATIO)
        } else {
            1.0
        };
        Gap { fixed, ratio }
    }

    /// The provider's count predicted for a prompt whose messages are
    /// estimated at `visible`.
    pub fn predict(&self, visible: f64) -> f64 {
        self.fixed + self.ratio * visible
    }

    /// The estimated tokens of messages that keep a prompt of `room`
    /// provider tokens (fixed part included) within it; 0 at least.
    pub fn room_for(&self, room: f64) -> f64 {
        ((room - self.fixed) / self.ratio).max(0.0)
    }
}
