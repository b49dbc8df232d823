//! # compaction-core
//!
//! Decides when a long LLM chat must be compacted, and runs the compaction
//! without ever losing the user's history.
//!
//! * [`ladder`]: three thresholds per context window — `warn` (tell the
//!   user), `auto` (compact before the next send), `hard` (force compaction
//!   before the send) — each the larger of a proportional and an absolute
//!   rule, computed in IEEE doubles so results equal a JavaScript
//!   implementation bit for bit.
//! * [`estimate`]: the size of the prompt about to be sent, from the last
//!   API usage plus the new message, or from the whole history when no usage
//!   exists yet (a resumed session).
//! * [`tips`], [`context_report`]: what the user is shown about it.
//! * [`settings`]: the few settings a host may load.
//! * [`engine`]: the compaction state machine ([`Compactor`]), sans-IO:
//!   it decides before each send, hands out a [`SummaryRequest`] and judges
//!   the answer; the host owns the history and runs the model.
//! * [`retention`]: what stays verbatim; [`summary_request`]: the
//!   summarization call and the messages a summary becomes; [`usage`]:
//!   provider usage objects read leniently.
//! * [`driver`]: an async driver over a host [`Summarizer`], which never
//!   holds the compactor borrowed across an `.await`.
//!
//! The crate is plain Rust with plain data: no I/O, no clock, no JS. The
//! WebAssembly bindings live in `src/wasm/` and only there.
//!
//! Errors from bad input are [`Error`] values with a stable [`ErrorCode`];
//! nothing that comes from outside can make the library panic.

pub mod calibrated;
#[cfg(not(feature = "refit"))]
mod calibrated_weights;
pub mod content;
pub mod context_report;
pub mod driver;
pub mod engine;
pub mod error;
pub mod estimate;
pub mod json_api;
pub mod ladder;
pub mod read;
pub mod retention;
pub mod settings;
pub mod summary_request;
pub mod tips;
pub mod usage;

pub use calibrated::{CalibratedEstimator, EstimateVariant, TokenizerFamily};
pub use content::{Content, Part, PartKind};
pub use context_report::{ContextReport, context_report, group_digits};
pub use driver::{SummarizeError, Summarizer, before_send, compact_now};
pub use engine::{
    CompactionOptions, CompactionOutcome, CompactionStatus, Compactor, CompactorConfig,
    LEGACY_OPTION_WARNING, NoopReason, ReadConfig, RequestId, SAVED_STATE_VERSION, SavedState,
    SendDecision, SummaryAnswer, Trigger, UsageUpdate,
};
pub use error::{Error, ErrorCode};
pub use estimate::{
    DEFAULT_IMAGE_TOKEN_ESTIMATE, EstimateOptions, Estimator, Reference, TextEstimator,
    estimate_content_tokens, estimate_prompt_tokens, message_tokens,
};
pub use ladder::{
    AUTOCOMPACT_BUFFER, COMPACT_MAX_OUTPUT_TOKENS, HARD_BUFFER, MAX_CONSECUTIVE_FAILURES, PCT,
    SUMMARY_RESERVE, ThresholdRule, Thresholds, Tier, WARN_BUFFER, WARN_PCT_OFFSET,
    compute_thresholds, current_tier,
};
pub use retention::{RetentionRule, RetentionSettings, Split, split_point};
pub use settings::{LoadedSettings, Settings, load_settings};
pub use summary_request::{
    DEFAULT_SUMMARY_PROMPT, PromptSettings, SummaryConfig, SummaryRequest, ThinkingConfig,
    build_summary_request,
};
pub use tips::{
    CONTEXT_CRITICAL, CONTEXT_HIGH, CONTEXT_TIPS, CONTEXT_WARN, Tip, TipContext, select_tip,
};
pub use usage::{ParsedUsage, Usage};

#[cfg(target_arch = "wasm32")]
mod wasm;
