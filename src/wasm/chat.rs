//! `ChatCompactor`: one chat's compaction state, for JS.
//!
//! The state lives in an `Rc<RefCell<Compactor>>`. The async methods are
//! plain functions returning a `Promise`: they clone the `Rc` and hand it to
//! the core's driver, which borrows the compactor only around synchronous
//! calls. So while the host's `summarize` callback runs, every other method
//! works, and a second compaction gets a `BUSY` error — never wasm-bindgen's
//! "recursive use of an object" panic.
//!
//! The host owns the history. On a failure the result's `history` is the
//! very array the host passed; on success it is a new array that ends with
//! the host's own message objects (the verbatim tail).

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::{Array, Function, Object, Promise, Reflect};
use serde_json::{Map, Value};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{JsFuture, future_to_promise};

use super::convert::{
    content, contents, js_type, json, json_strict, number, thrown_message, to_js,
};
use super::error::{invalid_argument, js_error};
use super::functions::warn_once;
use crate::context_report::context_report;
use crate::driver::{self, SummarizeError, Summarizer};
use crate::engine::{
    CompactionOptions, CompactionOutcome, CompactionStatus, Compactor, CompactorConfig,
    SummaryAnswer,
};
use crate::error::{ErrorCode, describe};
use crate::ladder::MAX_CONSECUTIVE_FAILURES;
use crate::summary_request::SummaryRequest;
use crate::usage::Usage;

const LEGACY_OPTION_WARNING: &str = "compaction-core: hasFailedCompressionAttempt is deprecated; pass \
     consecutiveFailures (true maps to 3, false to 0).";

/// The statuses of a compaction, numbered as in the reference
/// implementation (1–6) plus this library's 7 and 8.
#[wasm_bindgen]
// Named as the reference spells them, which is what JS code switches on.
#[allow(non_camel_case_types, clippy::upper_case_acronyms)]
#[derive(Clone, Copy)]
pub enum CompressionStatus {
    /// The history was compacted: use the result's `history`.
    COMPRESSED = 1,
    /// The summary would have made the prompt larger; nothing changed.
    INFLATED = 2,
    /// Kept for the reference's numbering; not produced (the estimator is the fallback).
    TOKEN_COUNT_ERROR = 3,
    /// The summary was empty; nothing changed.
    EMPTY_SUMMARY = 4,
    /// Nothing to do: below `auto`, breaker open, or nothing to compress.
    NOOP = 5,
    /// The summary stopped on the output limit; nothing changed.
    OUTPUT_TRUNCATED = 6,
    /// The `summarize` callback threw, rejected or answered something malformed; nothing changed.
    SUMMARIZER_FAILED = 7,
    /// The host aborted the run; nothing changed, not counted as a failure.
    ABORTED = 8,
}

#[wasm_bindgen]
extern "C" {
    /// Options of `beforeSend`.
    #[wasm_bindgen(typescript_type = "BeforeSendOptions")]
    pub type BeforeSendOptionsJs;
    /// Options of `compact`.
    #[wasm_bindgen(typescript_type = "CompactOptions")]
    pub type CompactOptionsJs;

    #[wasm_bindgen(typescript_type = "AbortSignal")]
    type AbortSignal;
    #[wasm_bindgen(method, getter)]
    fn aborted(this: &AbortSignal) -> bool;
    #[wasm_bindgen(method, js_name = addEventListener)]
    fn add_event_listener(this: &AbortSignal, kind: &str, listener: &Function);
}

/// The compaction state of one chat: the window, the last prompt size the
/// provider reported, the failure count and the options. Call
/// `reportUsage` after every model response and `beforeSend` before every
/// user message; `compact` is the manual `/compact`.
///
/// @example
/// ```ts
/// const chat = new ChatCompactor({ window: 200_000 });
/// const result = await chat.beforeSend(history, userMessage, summarize);
/// history = result.history;                       // new on COMPRESSED, the same array otherwise
/// const reply = await callModel([...history, userMessage]);
/// chat.reportUsage(reply.usageMetadata);
/// ```
#[wasm_bindgen]
pub struct ChatCompactor {
    core: Rc<RefCell<Compactor>>,
}

#[wasm_bindgen]
impl ChatCompactor {
    /// A chat with a context window of `options.window` tokens.
    /// `hasFailedCompressionAttempt` (deprecated) is accepted: true → 3
    /// consecutive failures, false → 0, with a one-time warning.
    ///
    /// @example
    /// ```ts
    /// new ChatCompactor({ window: 128_000, excludeMessages: 3, consecutiveFailures: 0 });
    /// ```
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(unchecked_param_type = "ChatCompactorOptions")] options: JsValue,
    ) -> Result<ChatCompactor, JsValue> {
        let config = config_from_js(options)?;
        Ok(ChatCompactor {
            core: Rc::new(RefCell::new(Compactor::new(config)?)),
        })
    }

    /// A chat restored from `save()`'s output (e.g. after a webview reload).
    ///
    /// @example
    /// ```ts
    /// const chat = ChatCompactor.restore(JSON.parse(localStorage.chatState));
    /// ```
    pub fn restore(
        #[wasm_bindgen(unchecked_param_type = "SavedState")] state: JsValue,
    ) -> Result<ChatCompactor, JsValue> {
        let value = json(state, "state")?;
        Ok(ChatCompactor {
            core: Rc::new(RefCell::new(Compactor::restore_json(&value)?)),
        })
    }

    /// The state as plain JSON data, for `ChatCompactor.restore`. A run in
    /// flight is not part of it.
    ///
    /// @example
    /// ```ts
    /// localStorage.chatState = JSON.stringify(chat.save());
    /// ```
    #[wasm_bindgen(unchecked_return_type = "SavedState")]
    pub fn save(&self) -> Result<JsValue, JsValue> {
        to_js(&self.core()?.save())
    }

    /// The context window, in tokens.
    #[wasm_bindgen(getter)]
    pub fn window(&self) -> Result<f64, JsValue> {
        Ok(self.core()?.window())
    }

    /// The ladder for the window.
    #[wasm_bindgen(getter, unchecked_return_type = "Thresholds")]
    pub fn thresholds(&self) -> Result<JsValue, JsValue> {
        to_js(self.core()?.thresholds())
    }

    /// The prompt size the provider last reported (0: none yet), or the
    /// size after the last compaction.
    #[wasm_bindgen(getter, js_name = lastPromptTokenCount)]
    pub fn last_prompt_token_count(&self) -> Result<f64, JsValue> {
        Ok(self.core()?.last_prompt_token_count() as f64)
    }

    /// Non-forced compaction failures in a row (the breaker opens at 3).
    #[wasm_bindgen(getter, js_name = consecutiveFailures)]
    pub fn consecutive_failures(&self) -> Result<u32, JsValue> {
        Ok(self.core()?.consecutive_failures())
    }

    /// Whether a compaction is running (its `summarize` call has not settled).
    #[wasm_bindgen(getter)]
    pub fn busy(&self) -> Result<bool, JsValue> {
        Ok(self.core()?.pending_request().is_some())
    }

    /// Changes the window (the user switched models).
    ///
    /// @example
    /// ```ts
    /// chat.setWindow(1_000_000);
    /// ```
    #[wasm_bindgen(js_name = setWindow)]
    pub fn set_window(
        &self,
        #[wasm_bindgen(unchecked_param_type = "number")] window: JsValue,
    ) -> Result<(), JsValue> {
        let window = number(&window, "window")?;
        self.core_mut()?.set_window(window).map_err(Into::into)
    }

    /// Takes the prompt size from a response's usage, in any provider's
    /// names (Gemini `usageMetadata`, OpenAI `usage`, Anthropic `usage`).
    /// Missing, negative or non-numeric counts are ignored, never trusted.
    ///
    /// @example
    /// ```ts
    /// chat.reportUsage({ promptTokenCount: 90_000, candidatesTokenCount: 800, totalTokenCount: 90_800 });
    /// ```
    #[wasm_bindgen(js_name = reportUsage, unchecked_return_type = "UsageUpdate")]
    pub fn report_usage(
        &self,
        #[wasm_bindgen(unchecked_param_type = "UsageReport")] usage: JsValue,
    ) -> Result<JsValue, JsValue> {
        let value = json(usage, "usage")?;
        let update = self.core_mut()?.handle_usage(&value);
        to_js(&update)
    }

    /// The context-usage indicator for the last prompt size: percent used,
    /// tier, tokens left before `auto`, whether the footer shows.
    ///
    /// @example
    /// ```ts
    /// const { percentUsed, tier } = chat.usage();
    /// ```
    #[wasm_bindgen(unchecked_return_type = "ContextReport")]
    pub fn usage(&self) -> Result<JsValue, JsValue> {
        let core = self.core()?;
        to_js(&context_report(
            core.last_prompt_token_count() as f64,
            core.window(),
        )?)
    }

    /// The check before sending `userMessage` (SPEC §3): at `hard` the
    /// breaker is reset and compaction is forced; with the breaker open or
    /// below `auto` nothing happens; at `auto` the history is compacted
    /// through `summarize` (thinking off, `maxOutputTokens` ≤ 20 000).
    /// Resolves to the result; rejects only with a `CompactionError` for
    /// bad arguments or `BUSY`. An aborted `signal` gives status ABORTED.
    ///
    /// @example
    /// ```ts
    /// const result = await chat.beforeSend(history, userMessage, async (request) => {
    ///   const r = await gemini.models.generateContent({ model, contents: request.contents,
    ///     config: { systemInstruction: request.systemInstruction, ...request.config } });
    ///   return { text: r.text ?? "", finishReason: r.candidates?.[0]?.finishReason, usage: r.usageMetadata };
    /// });
    /// if (result.status === CompressionStatus.COMPRESSED) history = result.history;
    /// ```
    #[wasm_bindgen(js_name = beforeSend, unchecked_return_type = "Promise<CompactionResult>")]
    pub fn before_send(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Content[]")] history: JsValue,
        #[wasm_bindgen(js_name = userMessage, unchecked_param_type = "Content")]
        user_message: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Summarize")] summarize: JsValue,
        options: Option<BeforeSendOptionsJs>,
    ) -> Promise {
        let core = self.core.clone();
        future_to_promise(async move {
            let user_message = content(user_message, "userMessage")?;
            let history_array = history_array(&history)?;
            let summarizer =
                JsSummarizer::new(summarize, options.map_or(JsValue::UNDEFINED, Into::into))?;
            // On an ordinary turn the check needs only the new message: do
            // not convert a long history that will not be read.
            let needed = borrow(&core)?.needs_history(&user_message);
            let parsed = if needed {
                contents(history, "history")?
            } else {
                Vec::new()
            };
            let outcome = driver::before_send(&core, &summarizer, &parsed, &user_message).await?;
            result_to_js(outcome, &history_array, summarizer.cause.take())
        })
    }

    /// Manual compaction (`/compact`): forced, whatever the size and the
    /// breaker; a failure is not counted. `focus` is appended to the prompt.
    ///
    /// @example
    /// ```ts
    /// const result = await chat.compact(history, summarize, { focus: "keep the API design decisions" });
    /// ```
    #[wasm_bindgen(unchecked_return_type = "Promise<CompactionResult>")]
    pub fn compact(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Content[]")] history: JsValue,
        #[wasm_bindgen(unchecked_param_type = "Summarize")] summarize: JsValue,
        options: Option<CompactOptionsJs>,
    ) -> Promise {
        let core = self.core.clone();
        future_to_promise(async move {
            let options: JsValue = options.map_or(JsValue::UNDEFINED, Into::into);
            let focus = match get(&options, "focus")? {
                v if v.is_undefined() || v.is_null() => None,
                v => Some(v.as_string().ok_or_else(|| {
                    invalid_argument(format!(
                        "options.focus must be a string, got {}",
                        js_type(&v)
                    ))
                })?),
            };
            let history_array = history_array(&history)?;
            let summarizer = JsSummarizer::new(summarize, options)?;
            let parsed = contents(history, "history")?;
            let outcome =
                driver::compact_now(&core, &summarizer, &parsed, focus.as_deref()).await?;
            result_to_js(outcome, &history_array, summarizer.cause.take())
        })
    }
}

impl ChatCompactor {
    fn core(&self) -> Result<std::cell::Ref<'_, Compactor>, JsValue> {
        self.core.try_borrow().map_err(|_| busy())
    }

    fn core_mut(&self) -> Result<std::cell::RefMut<'_, Compactor>, JsValue> {
        self.core.try_borrow_mut().map_err(|_| busy())
    }
}

fn borrow(core: &Rc<RefCell<Compactor>>) -> Result<std::cell::Ref<'_, Compactor>, JsValue> {
    core.try_borrow().map_err(|_| busy())
}

fn busy() -> JsValue {
    driver::busy().into()
}

fn get(object: &JsValue, key: &str) -> Result<JsValue, JsValue> {
    if object.is_undefined() || object.is_null() {
        return Ok(JsValue::UNDEFINED);
    }
    if !object.is_object() {
        return Err(invalid_argument(format!(
            "options must be an object, got {}",
            js_type(object)
        )));
    }
    Reflect::get(object, &JsValue::from_str(key))
}

fn history_array(history: &JsValue) -> Result<Array, JsValue> {
    history.dyn_ref::<Array>().cloned().ok_or_else(|| {
        crate::error::Error::new(
            crate::error::ErrorCode::InvalidContent,
            format!(
                "history must be an array of messages, got {}",
                js_type(history)
            ),
        )
        .into()
    })
}

/// Reads the constructor's options, mapping the legacy flag.
fn config_from_js(options: JsValue) -> Result<CompactorConfig, JsValue> {
    if !options.is_object() || Array::is_array(&options) {
        return Err(invalid_argument(format!(
            "options must be an object such as {{ window: 200000 }}, got {}",
            js_type(&options)
        )));
    }
    // A NaN or infinite window is the core's INVALID_WINDOW, as elsewhere.
    if let Some(window) = Reflect::get(&options, &JsValue::from_str("window"))?.as_f64() {
        crate::ladder::compute_thresholds(window)?;
    }
    let Value::Object(mut map) = json_strict(options, "options")? else {
        return Err(invalid_argument("options must be an object".into()));
    };
    let window = match map.remove("window") {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(other) => {
            return Err(invalid_argument(format!(
                "options.window must be a number, got {}",
                describe(&other)
            )));
        }
        None => {
            return Err(invalid_argument(
                "options.window is missing: the model's context window in tokens".into(),
            ));
        }
    };
    let legacy = map.remove("hasFailedCompressionAttempt");
    let consecutive_failures = match (map.remove("consecutiveFailures"), legacy) {
        (Some(v), _) => match v.as_f64() {
            Some(n) if n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n) => n as u32,
            _ => {
                return Err(invalid_argument(format!(
                    "options.consecutiveFailures must be an integer >= 0, got {}",
                    describe(&v)
                )));
            }
        },
        (None, Some(Value::Bool(failed))) => {
            warn_once(LEGACY_OPTION_WARNING);
            if failed { MAX_CONSECUTIVE_FAILURES } else { 0 }
        }
        (None, Some(other)) => {
            return Err(invalid_argument(format!(
                "options.hasFailedCompressionAttempt must be a boolean, got {}",
                describe(&other)
            )));
        }
        (None, None) => 0,
    };
    let options =
        CompactionOptions::from_json(&Value::Object(map), "options", ErrorCode::InvalidArgument)?;
    Ok(CompactorConfig {
        window,
        options,
        consecutive_failures,
    })
}

/// The host's `summarize` callback, with the abort signal of the run.
struct JsSummarizer {
    callback: Function,
    signal: Option<AbortSignal>,
    /// The host's own error when the callback failed, for the result's `cause`.
    cause: RefCell<Option<JsValue>>,
}

impl JsSummarizer {
    fn new(callback: JsValue, options: JsValue) -> Result<JsSummarizer, JsValue> {
        let callback = callback.dyn_into::<Function>().map_err(|v| {
            invalid_argument(format!(
                "summarize must be a function (request) => answer, got {}",
                js_type(&v)
            ))
        })?;
        let signal = match get(&options, "signal")? {
            v if v.is_undefined() || v.is_null() => None,
            v => Some(v.dyn_into::<AbortSignal>().map_err(|v| {
                invalid_argument(format!(
                    "options.signal must be an AbortSignal, got {}",
                    js_type(&v)
                ))
            })?),
        };
        Ok(JsSummarizer {
            callback,
            signal,
            cause: RefCell::new(None),
        })
    }

    fn aborted(&self) -> bool {
        self.signal.as_ref().is_some_and(AbortSignal::aborted)
    }

    fn failed(&self, error: JsValue, what: &str) -> SummarizeError {
        let message = thrown_message(&error);
        *self.cause.borrow_mut() = Some(error);
        SummarizeError::Failed(format!("the summarize callback {what}: {message}"))
    }
}

impl Summarizer for JsSummarizer {
    async fn summarize(&self, request: SummaryRequest) -> Result<SummaryAnswer, SummarizeError> {
        if self.aborted() {
            return Err(SummarizeError::Aborted);
        }
        let request =
            to_js(&request).map_err(|e| self.failed(e, "could not be given its request"))?;
        let returned = match self.callback.call1(&JsValue::NULL, &request) {
            Ok(value) => value,
            Err(error) => return Err(self.failed(error, "threw")),
        };
        // A plain value is accepted as well as a promise.
        let mut settled = Promise::resolve(&returned);
        if let Some(signal) = &self.signal {
            settled = Promise::race(&Array::of2(&settled, &rejects_on_abort(signal)));
        }
        let result = JsFuture::from(settled).await;
        if self.aborted() {
            return Err(SummarizeError::Aborted);
        }
        match result {
            Ok(answer) => parse_answer(answer).map_err(|message| {
                self.failed(
                    js_error(
                        crate::error::ErrorCode::InvalidAnswer.as_str(),
                        &message,
                        None,
                    ),
                    "answered something malformed",
                )
            }),
            Err(error) => Err(self.failed(error, "rejected")),
        }
    }
}

/// A promise that rejects when `signal` aborts (and never settles otherwise).
fn rejects_on_abort(signal: &AbortSignal) -> Promise {
    Promise::new(&mut |_resolve, reject| {
        let listener = Closure::once_into_js(move || {
            let _ = reject.call0(&JsValue::NULL);
        });
        signal.add_event_listener("abort", listener.unchecked_ref());
    })
}

/// `{ text, finishReason?, usage? }` or a plain string.
fn parse_answer(answer: JsValue) -> Result<SummaryAnswer, String> {
    if let Some(text) = answer.as_string() {
        return Ok(SummaryAnswer {
            text,
            ..SummaryAnswer::default()
        });
    }
    if !answer.is_object() {
        return Err(format!(
            "expected {{ text, finishReason?, usage? }} or a string, got {}",
            js_type(&answer)
        ));
    }
    let value = json(answer, "the answer").map_err(|e| thrown_message(&e))?;
    let map: Map<String, Value> = match value {
        Value::Object(map) => map,
        other => return Err(format!("expected an object, got {}", describe(&other))),
    };
    let text = match map.get("text") {
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Err(format!(
                "answer.text must be a string, got {}",
                describe(other)
            ));
        }
        None => return Err("the answer has no text".into()),
    };
    let finish_reason = match map.get("finishReason") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            return Err(format!(
                "answer.finishReason must be a string, got {}",
                describe(other)
            ));
        }
    };
    let usage = match map.get("usage") {
        None | Some(Value::Null) => None,
        Some(v) => Some(Usage::from_value(v).usage),
    };
    Ok(SummaryAnswer {
        text,
        finish_reason,
        usage,
    })
}

/// The result object: the outcome's data, `statusName`, the host's own
/// message objects for the kept tail and the replaced messages, and the
/// host's error as `cause`.
fn result_to_js(
    mut outcome: CompactionOutcome,
    history: &Array,
    host_cause: Option<JsValue>,
) -> Result<JsValue, JsValue> {
    let new_history = outcome.new_history.take();
    outcome.replaced = Vec::new();
    let object = to_js(&outcome)?;
    let set = |key: &str, value: &JsValue| {
        Reflect::set(&object, &JsValue::from_str(key), value).map(|_| ())
    };
    Reflect::delete_property(
        object.unchecked_ref::<Object>(),
        &JsValue::from_str("newHistory"),
    )?;
    set("statusName", &JsValue::from_str(outcome.status.as_str()))?;
    let kept_from = outcome.kept_from as u32;
    match (outcome.status, new_history) {
        (CompactionStatus::Compressed, Some(new_history)) => {
            let tail_len = history.length().saturating_sub(kept_from) as usize;
            let head = &new_history[..new_history.len().saturating_sub(tail_len)];
            let js_history = Array::new();
            for message in head {
                js_history.push(&to_js(message)?);
            }
            for i in kept_from..history.length() {
                js_history.push(&history.get(i));
            }
            set("history", &js_history)?;
            set("replaced", &history.slice(0, kept_from))?;
        }
        _ => {
            set("history", history)?;
            set("replaced", &Array::new())?;
        }
    }
    match (host_cause, &outcome.cause) {
        (Some(cause), _) => set("cause", &cause)?,
        (None, Some(text)) => set(
            "cause",
            &js_error(crate::error::ErrorCode::InvalidAnswer.as_str(), text, None),
        )?,
        (None, None) => {
            Reflect::delete_property(
                object.unchecked_ref::<Object>(),
                &JsValue::from_str("cause"),
            )?;
        }
    }
    Ok(object)
}
