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
//! * [`tips`], [`mod@context_report`]: what the user is shown about it.
//! * [`settings`]: the few settings a host may load; [`options`]: what a
//!   host tunes per chat.
//! * [`engine`]: the compaction state machine ([`Compactor`]), sans-IO,
//!   one entry point per kind of input: it decides before each send
//!   ([`Compactor::poll_before_send`], a [`SendDecision`]), hands out a
//!   [`SummaryRequest`] with a [`RequestId`] that the answer consumes, and
//!   judges the [`Answer`] ([`Compactor::handle_answer`],
//!   [`engine::judge`]) until the run is [`Next::Done`]; what a run did is a
//!   [`CompactionOutcome`] ([`engine::outcome`]); the state saves and
//!   restores as JSON ([`engine::saved_state`]).
//! * [`slim`]: messages made smaller without a model (a tool output or a
//!   pasted text cut to its head and end around a marker), so that every
//!   send fits the window.
//! * [`retention`]: what stays verbatim; [`summary_request`]: the
//!   summarization call and the messages a summary becomes; [`usage`]:
//!   provider usage objects read leniently.
//! * [`ledger`]: what must survive a compaction (the files changed, the
//!   user's own words), read by the library from the replaced messages and
//!   written after the model's summary, so a careless summary loses neither.
//! * [`mod@format`]: the message shapes hosts keep histories in (Gemini,
//!   OpenAI, Anthropic, AI SDK), read into the core's model with the facts
//!   the engine needs (pinned system prompts, calls and results by id) and
//!   written back; [`mod@model_limits`]: a dated table of model windows and
//!   output limits.
//! * [`driver`]: an async driver over a host [`Summarizer`], which never
//!   holds the compactor borrowed across an `.await`.
//! * [`Value`]: a JSON value (objects in key order, a [`Map`]), read
//!   ([`str::parse`]) and written ([`Value`]'s `Display`) as `JSON.parse`
//!   and `JSON.stringify` do, numbers exactly; the [`json!`] macro builds
//!   one and [`ToJson`] writes the library's types as one. With the
//!   optional `serde` feature, `Value` converts to and from
//!   `serde_json::Value`.
//! * [`json_api`]: every operation of the JS API over JSON text, returning
//!   JSON envelopes; the wasm exports are one line each over it.
//!
//! ## How the pieces call each other
//!
//! At the bottom sit the support modules, internal to the crate: `json`
//! (the crate's own JSON values, reader and writer, in place of serde_json;
//! [`Value`], [`Map`] and [`ToJson`] are re-exported for hosts), `str_map`
//! (the lookup tables' map, strings to values in insertion order; its
//! [`StrMap`] is re-exported, the type of a few public fields),
//! `str_search` and `sort`. They and [`error`] (the one list of
//! [`ErrorCode`]s) depend on nothing else, and the input layer (`read.rs`:
//! JSON text with its tolerances, and each field's rule, written once) on
//! them only. [`content`] (messages), [`usage`],
//! [`ladder`] and the estimator read through them. [`retention`] and
//! [`summary_request`] work on messages with the estimator; [`settings`] and
//! [`options`] read the host's configuration through the same rules.
//!
//! The [`engine`] sits on all of these. Before a send the host calls
//! [`Compactor::poll_before_send`] with the history ([`HistoryRef`]) and
//! the pending messages: the engine estimates the prompt, asks the ladder
//! for the tier, and either says "send" or splits the history
//! ([`retention`]) and builds a [`SummaryRequest`] ([`summary_request`]).
//! While the request is in flight the engine keeps only indices and counts;
//! the host's answer ([`Compactor::handle_answer`]) goes to
//! [`engine::judge`], and the outcome carries the
//! new history's head and where the kept tail starts, which the host splices
//! onto its own history ([`CompactionOutcome::apply_to`]), so messages
//! appended meanwhile are kept; a host whose history is in another
//! [`Format`] gets the head in it ([`CompactionOutcome::head_in`],
//! [`CompactionOutcome::new_history_in`]).
//!
//! Two layers drive the engine for hosts: [`driver`] runs it with an async
//! Rust summarizer whose own error comes back on the outcome, and
//! [`json_api`] runs it as a conversation of steps over JSON text (`Chats`,
//! with `u32` handles), which the hand-written JS layer in `src/wasm/` calls.
//! Nothing below `json_api` knows about JSON text or JS.
//!
//! The crate is plain Rust with plain data: no I/O, no clock, no JS. The
//! WebAssembly bindings live in `src/wasm/` and only there.
//!
//! Errors from bad input are [`Error`] values with a stable [`ErrorCode`];
//! nothing that comes from outside can make the library panic.

// The library needs only `core` and `alloc`: with no `std` in the web
// build, the module links no panic machinery (messages, locations, the
// hook) and no std allocator; `src/wasm/runtime.rs` supplies both (issue
// 13). Native builds and every test link `std` as usual.
#![cfg_attr(target_arch = "wasm32", no_std)]

extern crate alloc;

mod prelude;

pub mod content;
pub mod context_report;
pub mod driver;
pub mod engine;
pub mod error;
pub mod estimate;
pub mod format;
mod json;
pub mod json_api;
pub mod ladder;
pub mod ledger;
pub mod model_limits;
pub mod options;
pub(crate) mod read;
pub mod retention;
pub mod settings;
pub mod slim;
pub(crate) mod sort;
mod str_map;
pub(crate) mod str_search;
pub mod summary_request;
pub mod tips;
pub mod usage;

pub use calibrated::{CalibratedEstimator, EstimateVariant, TokenizerFamily};
pub use content::{Content, Part, PartKind};
pub use context_report::{ContextReport, context_report, group_digits};
pub use driver::{SummarizeError, Summarizer, before_send, compact_now};
pub use engine::judge::SummaryAnswer;
pub use engine::outcome::{
    CompactionOutcome, CompactionStatus, Method, NoopReason, Run, SummarizerCause, Trigger,
};
pub use engine::saved_state::{SAVED_STATE_VERSION, SavedState};
pub use engine::{Answer, Compactor, HistoryRef, Next, RequestId, SendDecision};
pub use error::{Error, ErrorCode};
/// The calibrated estimator, at its old path (`compaction_core::calibrated`).
pub use estimate::calibrated;
pub use estimate::{
    DEFAULT_IMAGE_TOKEN_ESTIMATE, EstimateOptions, Estimator, Reference, TextEstimator,
    estimate_content_tokens, estimate_prompt_tokens, message_tokens,
};
pub use format::{Format, History, MessageFacts};
pub use json::{Map, ParseError, ToJson, Value};
pub use ladder::{
    AUTOCOMPACT_BUFFER, COMPACT_MAX_OUTPUT_TOKENS, HARD_BUFFER, MAX_CONSECUTIVE_FAILURES, PCT,
    SUMMARY_RESERVE, ThresholdRule, Thresholds, Tier, WARN_BUFFER, WARN_PCT_OFFSET,
    compute_thresholds, current_tier,
};
pub use ledger::{Ledger, LedgerOptions, SummaryCheck};
pub use model_limits::{ModelLimits, model_limits};
pub use options::{
    CompactionOptions, CompactorConfig, FitOptions, LEGACY_OPTION_WARNING, ReadConfig,
};
pub use read::{MAX_COUNT, MAX_DEPTH};
pub use retention::{RetentionRule, RetentionSettings, Split, split_point};
pub use settings::{LoadedSettings, Settings, load_settings};
pub use slim::{clear_tool_outputs, fit_messages, slim_message};
pub use str_map::StrMap;
pub use summary_request::{
    DEFAULT_SUMMARY_PROMPT, PromptSettings, SummaryConfig, SummaryRequest, ThinkingConfig,
    build_summary_request,
};
pub use tips::{
    CONTEXT_CRITICAL, CONTEXT_HIGH, CONTEXT_TIPS, CONTEXT_WARN, Tip, TipContext, select_tip,
};
pub use usage::{ParsedUsage, Usage, UsageUpdate};

/// What [`json!`]'s expansion names, in the caller's crate (where `alloc`
/// may not be named and the `json` module is private): not API.
#[doc(hidden)]
pub mod __private {
    pub use crate::json::{Map, Value, to_value};
    pub use alloc::{vec, vec::Vec};
}

#[cfg(target_arch = "wasm32")]
mod wasm;
