//! The wasm exports: one-liners over [`crate::json_api`].
//!
//! Strings and numbers in, a JSON envelope string out (`{"ok": …}` or
//! `{"error": {"code", "message"}}`). The wasm never calls into host JS and
//! never throws: every interaction with the host — `JSON.stringify`, the
//! `summarize` callback, abort signals, promises — is in the hand-written
//! JS layer (`src/wasm/js/api.js`), in plain JS inside try/catch. So nothing
//! a host passes can unwind through the wasm or leave it half-changed.
//!
//! The chats live in one [`Chats`] registry per module instance; JS holds
//! `u32` handles into it.

use crate::prelude::*;

use core::cell::RefCell;

use wasm_bindgen::prelude::*;

use crate::json_api::{self, Chats, TextOptionsCache};

#[cfg(feature = "web-runtime")]
mod runtime;

/// A value of the module instance. The crate is `no_std` on wasm, so there
/// is no `thread_local!`; none is needed: the module is built without the
/// atomics feature, so it has one thread, and it is never re-entered (it
/// calls no JS), so the borrows below are never contended.
struct Instance<T>(RefCell<T>);

// SAFETY: wasm32-unknown-unknown without `atomics` runs one thread: the
// value is never shared between threads.
unsafe impl<T> Sync for Instance<T> {}

/// Every chat of this module instance.
static CHATS: Instance<Chats> = Instance(RefCell::new(Chats::new()));
/// `estimateTextTokens`' last options, parsed.
static TEXT_OPTIONS: Instance<TextOptionsCache> = Instance(RefCell::new(TextOptionsCache::new()));

/// Runs `f` on the registry. Not generic and not inlined: the registry's
/// lazy set-up and borrow are then in the wasm once, not in every export
/// (size, docs/performance.md).
#[inline(never)]
fn chats(f: &mut dyn FnMut(&mut Chats) -> String) -> String {
    f(&mut CHATS.0.borrow_mut())
}

/// `computeThresholds`.
#[wasm_bindgen]
pub fn compute_thresholds(window: f64) -> String {
    json_api::compute_thresholds(window)
}

/// `currentTier`.
#[wasm_bindgen]
pub fn current_tier(tokens: f64, thresholds: &str) -> String {
    json_api::current_tier(tokens, thresholds)
}

/// `estimateContentTokens`.
#[wasm_bindgen]
pub fn estimate_content_tokens(contents: &str, options: &str) -> String {
    json_api::estimate_content_tokens(contents, options)
}

/// `estimateTextTokens` (`text` raw, not JSON).
#[wasm_bindgen]
pub fn estimate_text_tokens(text: &str, options: &str) -> String {
    json_api::estimate_text_tokens(text, options)
}

/// `estimateTextTokens`' per-text path: the estimate, or NaN for invalid
/// options (the JS layer then asks `estimate_text_tokens` for the error).
#[wasm_bindgen]
pub fn estimate_text_number(text: &str, options: &str) -> f64 {
    TEXT_OPTIONS.0.borrow_mut().estimate(text, options)
}

/// `estimatePromptTokens`.
#[wasm_bindgen]
pub fn estimate_prompt_tokens(
    history: &str,
    user_message: &str,
    last: f64,
    options: &str,
) -> String {
    json_api::estimate_prompt_tokens(history, user_message, last, options)
}

/// `selectTip`.
#[wasm_bindgen]
pub fn select_tip(context: &str) -> String {
    json_api::select_tip(context)
}

/// `contextReport`.
#[wasm_bindgen]
pub fn context_report(tokens: f64, window: f64) -> String {
    json_api::context_report(tokens, window)
}

/// `formatContextReport`.
#[wasm_bindgen]
pub fn format_context_report(tokens: f64, window: f64) -> String {
    json_api::format_context_report(tokens, window)
}

/// `loadSettings`.
#[wasm_bindgen]
pub fn load_settings(settings: &str) -> String {
    json_api::load_settings(settings)
}

/// `ladderConstants`.
#[wasm_bindgen]
pub fn ladder_constants() -> String {
    json_api::ladder_constants()
}

/// `slimMessage`.
#[wasm_bindgen]
pub fn slim_message(message: &str, budget_tokens: f64, options: &str) -> String {
    json_api::slim_message(message, budget_tokens, options)
}

/// The core's lists (statuses, their aliases, error codes, the steps'
/// keys): scripts/build writes the JS layer's `CompressionStatus` and step
/// keys from them and checks the `.d.ts` against them (the web build needs
/// them before `init()`, so they are generated, not read at run time).
#[wasm_bindgen]
pub fn lists() -> String {
    json_api::lists()
}

/// `new ChatCompactor(options)`.
#[wasm_bindgen]
pub fn chat_create(options: &str) -> String {
    chats(&mut |c| c.create(options))
}

/// `ChatCompactor.restore(state)`.
#[wasm_bindgen]
pub fn chat_restore(state: &str) -> String {
    chats(&mut |c| c.restore(state))
}

/// `chat.free()`.
#[wasm_bindgen]
pub fn chat_free(handle: u32) -> String {
    chats(&mut |c| c.free(handle))
}

/// `chat.save()`.
#[wasm_bindgen]
pub fn chat_save(handle: u32) -> String {
    chats(&mut |c| c.save(handle))
}

/// The getters: window, thresholds, lastPromptTokenCount, consecutiveFailures, busy.
#[wasm_bindgen]
pub fn chat_state(handle: u32) -> String {
    chats(&mut |c| c.state(handle))
}

/// `modelLimits(modelId)`.
#[wasm_bindgen]
pub fn model_limits(model_id: &str) -> String {
    json_api::model_limits(model_id)
}

/// `chat.setWindow(window)`.
#[wasm_bindgen]
pub fn chat_set_window(handle: u32, window: f64) -> String {
    chats(&mut |c| c.set_window(handle, window))
}

/// `chat.setWindow(window, maxOutputTokens)`: both at once; NaN for
/// `max_output_tokens` clears the model's limit (JS passes `null` as NaN).
#[wasm_bindgen]
pub fn chat_set_model_limits(handle: u32, window: f64, max_output_tokens: f64) -> String {
    chats(&mut |c| c.set_model_limits(handle, window, max_output_tokens))
}

/// `chat.setOverhead(overhead)`.
#[wasm_bindgen]
pub fn chat_set_overhead(handle: u32, tokens: f64, text: &str) -> String {
    chats(&mut |c| c.set_overhead(handle, tokens, text))
}

/// `chat.reportUsage(usage)`.
#[wasm_bindgen]
pub fn chat_report_usage(handle: u32, usage: &str) -> String {
    chats(&mut |c| c.report_usage(handle, usage))
}

/// `chat.usage()`.
#[wasm_bindgen]
pub fn chat_usage(handle: u32) -> String {
    chats(&mut |c| c.usage(handle))
}

/// `chat.beforeSend`: the first step (`history` "" = not serialized yet:
/// `{"needHistory":true}` when the check needs it).
#[wasm_bindgen]
pub fn chat_before_send(handle: u32, history: &str, user_message: &str) -> String {
    chats(&mut |c| c.before_send(handle, history, user_message))
}

/// `chat.compact`: the first step (`focus` "" = none).
#[wasm_bindgen]
pub fn chat_compact(handle: u32, history: &str, focus: &str) -> String {
    chats(&mut |c| c.compact(handle, history, focus))
}

/// The callback's answer, as JSON: the next step.
#[wasm_bindgen]
pub fn chat_answer(handle: u32, id: f64, answer: &str) -> String {
    chats(&mut |c| c.answer(handle, id, answer))
}

/// The callback threw or rejected with `message`: the next step.
#[wasm_bindgen]
pub fn chat_fail(handle: u32, id: f64, message: &str) -> String {
    chats(&mut |c| c.fail(handle, id, message))
}

/// The host aborted the run: the next step.
#[wasm_bindgen]
pub fn chat_abort(handle: u32, id: f64) -> String {
    chats(&mut |c| c.abort(handle, id))
}
