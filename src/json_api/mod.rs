//! Every operation of the JS API, over JSON text: what the wasm exports
//! call, one line each, and what native tests and fuzzers drive directly.
//!
//! Each function returns a JSON envelope, `{"ok": <value>}` or
//! `{"error": {"code": "<ErrorCode>", "message": "..."}}`, and never
//! panics, whatever the input. Inputs are JSON text as `JSON.stringify`
//! wrote it, read by the input layer with two tolerances: lone-surrogate
//! escapes read as U+FFFD, and nesting deeper than [`crate::MAX_DEPTH`] is a
//! typed error naming the path. In
//! option-like inputs (options, usage, tip context, settings, saved state,
//! answer) a non-finite number arrives as `{"$nonFinite": "NaN"}` (or
//! `"Infinity"`, `"-Infinity"`), which the readers name in their errors
//! (or, for usage counts, list in `ignored`). An empty string for an
//! optional argument means "not given".
//!
//! The stateful part is [`Chats`], a registry of chats addressed by `u32`
//! handles. A compaction is a conversation of [`Step`]s: `before_send` or
//! `compact` answers `{"done": Result}` or `{"summarize": {"id", "request"}}`;
//! the host runs the request and reports with `answer`, `fail` or `abort`,
//! each answering with the next step. One compaction may ask several times:
//! when the part to summarize is larger than one request can hold, `answer`
//! returns the next `summarize` step (a new id, the summary so far in its
//! request) until the last answer, which returns `done`. While a request is in flight every
//! other `before_send` / `compact` on that chat is `BUSY`; reads, usage and
//! `set_window` keep working.
//!
//! Messages are read in a format: a chat's `format` option (`"gemini"`,
//! the default, `"openai"`, `"anthropic"`, `"ai-sdk"`; see
//! [`crate::format`]) for its histories and messages, and for the stateless
//! functions an `options.format` beside the estimate options. A message
//! that does not have the format's shape is `INVALID_CONTENT`, naming it and
//! the format it seems to be in, never 0 tokens.
//!
//! A `done` result is the outcome's data (`status` as a number and
//! `statusName`, `trigger`, `forced`, `noopReason`, `estimate`, `tier`,
//! `keptFrom`, `originalTokenCount`, `newTokenCount`,
//! `newTokenCountEstimated`, `consecutiveFailures`, `summary`,
//! `summaryCheck`, `summaryCalls`, `method` — `"summarized"`, `"cleared"` or `null` — and
//! with `noopReason: "messageTooLarge"`, `overBy`), plus on COMPRESSED
//! `head`, the messages the new history starts with (summary,
//! acknowledgement, and a bridge when the kept tail starts with a model
//! message; then copies of tail messages that were slimmed to fit; for a
//! cleared run, the cleared copies of the replaced messages), written in
//! the chat's format, and `pinned`, the indices before `keptFrom` of the
//! pinned messages (system / developer), which are never replaced. The
//! caller builds the new history as its own pinned messages
//! (`pinned.map(i => history[i])`), then `head`, then its own
//! `history[keptFrom..]` (then whatever it appended meanwhile); the
//! replaced messages are `history[..keptFrom]` without the pinned ones. On
//! every other status its history stands as it was. In a format other than
//! Gemini, copies in `head` are the host's own messages: verbatim when the
//! engine kept them whole, else with their long strings cut to the size of
//! the engine's slimmed or cleared copy ([`crate::slim::slim_json`]), made
//! while the history was at hand (at `before_send` / `compact`). On a failure, `cause` is
//! `{"code", "message"}` when the library judged the answer unusable
//! (`INVALID_ANSWER`), `{"message"}` for a host failure reported with
//! [`Chats::fail`] (the JS layer attaches the host's own error instead), and
//! absent otherwise.
//!
//! ```
//! use compaction_core::json_api::{Chats, compute_thresholds};
//! assert!(compute_thresholds(200_000.0).starts_with(r#"{"ok":{"window":200000"#));
//! let mut chats = Chats::new();
//! let created = chats.create(r#"{"window":200000}"#);
//! assert_eq!(created, r#"{"ok":{"handle":1,"warnings":[]}}"#);
//! assert!(chats.usage(1).contains(r#""tier":"safe""#));
//! chats.free(1);
//! assert!(chats.usage(1).contains("INVALID_STATE"));
//! ```

use crate::prelude::*;

use crate::json;
use crate::json::{ObjectWriter, ToJson, Value};

use crate::content::Content;
use crate::context_report::context_report as build_context_report;
use crate::engine::judge::SummaryAnswer;
use crate::engine::outcome::{CompactionOutcome, CompactionStatus};
use crate::engine::{Answer, Compactor, HistoryRef, Next, SendDecision};
use crate::error::{Error, ErrorCode, show_number};
use crate::estimate::{self, EstimateOptions, message_tokens};
use crate::format::{Format, History};
use crate::ladder::{self, Thresholds};
use crate::options::CompactorConfig;
use crate::read::{COUNT, Fields, TOKEN_BUDGET, check_count, describe, parse_json};
use crate::settings;
use crate::summary_request::{
    ACKNOWLEDGEMENT, BRIDGE, SUMMARY_CLOSE_TAG, SUMMARY_OPEN_TAG, SummaryRequest,
};
use crate::tips::{self, TipContext};

mod functions;
mod step;

pub use functions::*;
pub use step::Step;
use step::{done_value, host_copies};

/// The envelope for a result, written straight to text (a summary request
/// holds the whole summarized history: no intermediate value).
fn envelope<T: ToJson>(result: Result<T, Error>) -> String {
    write_envelope(
        result
            .as_ref()
            .map(|value| value as &dyn crate::json::WriteJson),
    )
}

/// `{"ok": value}` or `{"error": {"code", "message"}}`.
fn write_envelope(result: Result<&dyn crate::json::WriteJson, &Error>) -> String {
    let mut out = String::new();
    let mut o = ObjectWriter::new(&mut out);
    match result {
        Ok(value) => {
            o.field("ok", value);
        }
        Err(error) => {
            let mut e = ObjectWriter::new(o.key("error"));
            e.field("code", &error.code().as_str())
                .field("message", &error.message());
            e.end();
        }
    }
    o.end();
    out
}

/// An optional JSON argument: `""` is "not given" (JSON `null`).
fn optional(text: &str, name: &str, code: ErrorCode) -> Result<Value, Error> {
    if text.is_empty() {
        Ok(Value::Null)
    } else {
        parse_json(text, name, code)
    }
}

/// The estimate options and the messages' `format` (`"gemini"` when
/// absent): the format says how to read the messages, the rest how to count
/// them, so [`EstimateOptions`] stays format-free.
fn estimate_options(options: &str) -> Result<(EstimateOptions, Format), Error> {
    let value = optional(options, "options", ErrorCode::InvalidArgument)?;
    let fields = Fields::of(&value, "options", ErrorCode::InvalidArgument)?;
    let mut known = EstimateOptions::FIELDS.to_vec();
    known.push("format");
    fields.only(&known)?;
    let format = fields
        .choice("format", &Format::ALL, Format::name)?
        .unwrap_or_default();
    Ok((
        EstimateOptions::read_fields(&fields, EstimateOptions::default())?,
        format,
    ))
}

/// A message list in `format`; a message of another shape is
/// `INVALID_CONTENT` naming it and the format it seems to be in.
fn messages(text: &str, name: &str, format: Format) -> Result<History, Error> {
    let value = parse_json(text, name, ErrorCode::InvalidContent)?;
    format.read(value, name)
}

/// What a model call sends after what the last usage covered: one message,
/// or an array of them (every tool result of a step).
fn pending_messages(text: &str, name: &str, format: Format) -> Result<Vec<Content>, Error> {
    let value = parse_json(text, name, ErrorCode::InvalidContent)?;
    match value {
        Value::Array(_) => Ok(format.read(value, name)?.contents),
        value => Ok(vec![format.read_message(value, name)?.0]),
    }
}

fn message(text: &str, name: &str, format: Format) -> Result<Content, Error> {
    let value = parse_json(text, name, ErrorCode::InvalidContent)?;
    Ok(format.read_message(value, name)?.0)
}

/// The chats of one host, addressed by `u32` handles that are never reused
/// (0 is never a handle), so that a freed handle is recognised.
#[derive(Debug, Default)]
pub struct Chats {
    chats: Slots<Compactor>,
    next: u32,
    /// For a run in flight on a chat in another format than Gemini whose
    /// head will end with copies of the host's messages: those copies, in
    /// the host's format, made while the history was at hand.
    copies: Slots<Vec<Value>>,
}

/// Values by handle, in a `Vec` sorted by handle: a `BTreeMap` per value
/// type cost the wasm more (size, docs/performance.md). Handles only grow, so a new chat is
/// pushed at the end; a lookup is a binary search.
#[derive(Debug)]
struct Slots<T>(Vec<(u32, T)>);

impl<T> Default for Slots<T> {
    fn default() -> Slots<T> {
        Slots(Vec::new())
    }
}

impl<T> Slots<T> {
    fn find(&self, handle: u32) -> Result<usize, usize> {
        self.0.binary_search_by_key(&handle, |(h, _)| *h)
    }

    fn get(&self, handle: u32) -> Option<&T> {
        let i = self.find(handle).ok()?;
        Some(&self.0[i].1)
    }

    fn get_mut(&mut self, handle: u32) -> Option<&mut T> {
        let i = self.find(handle).ok()?;
        Some(&mut self.0[i].1)
    }

    fn insert(&mut self, handle: u32, value: T) {
        match self.find(handle) {
            Ok(i) => self.0[i].1 = value,
            Err(i) => self.0.insert(i, (handle, value)),
        }
    }

    fn remove(&mut self, handle: u32) -> Option<T> {
        let i = self.find(handle).ok()?;
        Some(self.0.remove(i).1)
    }
}

/// What [`Chats::state`] returns.
struct ChatState<'a> {
    window: f64,
    thresholds: &'a Thresholds,
    last_prompt_token_count: u64,
    consecutive_failures: u32,
    busy: bool,
}

impl ToJson for ChatState<'_> {
    fn write_json(&self, out: &mut String) {
        let mut o = ObjectWriter::new(out);
        o.field("window", &self.window)
            .field("thresholds", self.thresholds)
            .field("lastPromptTokenCount", &self.last_prompt_token_count)
            .field("consecutiveFailures", &self.consecutive_failures)
            .field("busy", &self.busy);
        o.end();
    }
}

impl Chats {
    /// An empty registry.
    pub const fn new() -> Chats {
        Chats {
            chats: Slots(Vec::new()),
            next: 1,
            copies: Slots(Vec::new()),
        }
    }

    fn add(&mut self, core: Compactor) -> Result<u32, Error> {
        let handle = self.next.max(1);
        self.next = handle.checked_add(1).ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidState,
                "no chat handles are left (2^32 - 1 were made)",
            )
        })?;
        self.chats.insert(handle, core);
        Ok(handle)
    }

    fn chat(&self, handle: u32) -> Result<&Compactor, Error> {
        self.chats
            .get(handle)
            .ok_or_else(|| missing(handle, self.next))
    }

    fn chat_mut(&mut self, handle: u32) -> Result<&mut Compactor, Error> {
        let next = self.next;
        self.chats
            .get_mut(handle)
            .ok_or_else(|| missing(handle, next))
    }

    /// A new chat from options (`ChatCompactorOptions` as JSON):
    /// `{ handle, warnings }`. The deprecated `hasFailedCompressionAttempt`
    /// is mapped here and its warning returned (the host prints it once).
    pub fn create(&mut self, options: &str) -> String {
        envelope((|| {
            let value = optional(options, "options", ErrorCode::InvalidArgument)?;
            let read = CompactorConfig::from_json(&value)?;
            let handle = self.add(Compactor::new(read.config)?)?;
            Ok(json!({ "handle": handle, "warnings": read.warnings }))
        })())
    }

    /// A chat restored from what [`Chats::save`] wrote: `{ handle }`.
    /// Anything malformed is `INVALID_STATE`.
    pub fn restore(&mut self, state: &str) -> String {
        envelope((|| {
            let value = parse_json(state, "saved state", ErrorCode::InvalidState)?;
            let handle = self.add(Compactor::restore_json(&value)?)?;
            Ok(json!({ "handle": handle }))
        })())
    }

    /// Frees a chat; any later call with its handle is `INVALID_STATE`
    /// ("this chat was freed"). A request in flight is dropped with it.
    pub fn free(&mut self, handle: u32) -> String {
        let next = self.next;
        self.copies.remove(handle);
        envelope(
            self.chats
                .remove(handle)
                .map(|_| Value::Null)
                .ok_or_else(|| missing(handle, next)),
        )
    }

    /// The state to keep across a reload (a `SavedState`); a request in
    /// flight is not part of it.
    pub fn save(&self, handle: u32) -> String {
        envelope(self.chat(handle).map(|chat| chat.save()))
    }

    /// `{ window, thresholds, lastPromptTokenCount, consecutiveFailures, busy }`.
    pub fn state(&self, handle: u32) -> String {
        envelope(self.chat(handle).map(|chat| ChatState {
            window: chat.window(),
            thresholds: chat.thresholds(),
            last_prompt_token_count: chat.last_prompt_token_count(),
            consecutive_failures: chat.consecutive_failures(),
            busy: chat.pending_request().is_some(),
        }))
    }

    /// Changes the window (the user switched models): `null`.
    pub fn set_window(&mut self, handle: u32, window: f64) -> String {
        envelope(
            self.chat_mut(handle)
                .and_then(|chat| chat.set_window(window)),
        )
    }

    /// Changes the window and the model's output limit together (JS
    /// `setWindow(window, maxOutputTokens)` when the second argument is
    /// given): `null`. NaN for `max_output_tokens` clears the limit (JS
    /// passes `null` as NaN); any other value must be a whole number ≥ 1.
    /// Nothing changes on an error.
    pub fn set_model_limits(&mut self, handle: u32, window: f64, max_output_tokens: f64) -> String {
        envelope(self.chat_mut(handle).and_then(|chat| {
            let limit = (!max_output_tokens.is_nan()).then_some(max_output_tokens);
            chat.set_model_limits(window, limit)
        }))
    }

    /// Declares the fixed part of every prompt besides the messages
    /// (`overheadTokens`): `tokens`, or when `text` is not empty (the
    /// call's system prompt and tool schemas, as the JS layer writes them)
    /// its estimate with the chat's estimator; NaN and `""` declare none.
    /// Returns the tokens declared (or `null`).
    pub fn set_overhead(&mut self, handle: u32, tokens: f64, text: &str) -> String {
        envelope((|| {
            let chat = self.chat_mut(handle)?;
            let declared = if !text.is_empty() {
                Some(estimate::estimate_text_tokens(
                    text,
                    &chat.options().estimate,
                ))
            } else if tokens.is_nan() {
                None
            } else {
                Some(COUNT.check("overhead", tokens)? as u64)
            };
            chat.set_overhead_tokens(declared);
            Ok(declared.map_or(Value::Null, Value::from))
        })())
    }

    /// Takes the prompt size from a response's usage (a `UsageUpdate`).
    pub fn report_usage(&mut self, handle: u32, usage: &str) -> String {
        envelope((|| {
            let chat = self.chat_mut(handle)?;
            let value = optional(usage, "usage", ErrorCode::InvalidArgument)?;
            Ok(chat.handle_usage(&value))
        })())
    }

    /// The context-usage indicator for the last prompt size (a `ContextReport`).
    pub fn usage(&self, handle: u32) -> String {
        envelope(self.chat(handle).and_then(|chat| {
            build_context_report(chat.last_prompt_token_count() as f64, chat.window())
        }))
    }

    /// Whether [`Chats::before_send`] will read the history for this
    /// message; when not, the host may pass `"[]"` and skip writing it.
    pub fn needs_history(&self, handle: u32, user_message: &str) -> String {
        envelope((|| {
            let chat = self.chat(handle)?;
            let pending = pending_messages(user_message, "userMessage", chat.options().format)?;
            Ok(chat.needs_history(&pending))
        })())
    }

    /// The check before sending `user_message`: a [`Step`]. The history is
    /// only parsed when the check needs it. `history` `""` means "not
    /// serialized yet": when the check needs it the answer is
    /// [`Step::NeedHistory`] and the caller sends it again with the history (the
    /// JS layer's ordinary turn is then one call that reads only the new
    /// message).
    ///
    /// `user_message` is everything the call sends after what the last
    /// usage covered: one message, or an array of them (a user message, or
    /// every tool result of a step), each counted.
    pub fn before_send(&mut self, handle: u32, history: &str, user_message: &str) -> String {
        envelope((|| {
            let chat = self.chat_mut(handle)?;
            let format = chat.options().format;
            let pending = pending_messages(user_message, "userMessage", format)?;
            let needed = chat.needs_history(&pending);
            if history.is_empty() && needed {
                return Ok(Step::NeedHistory);
            }
            if !history.is_empty() {
                check_array(history, "history")?;
            }
            let read = if needed {
                messages(history, "history", format)?
            } else {
                History::default()
            };
            let lent = if needed {
                HistoryRef::Read(&read)
            } else {
                HistoryRef::Absent
            };
            let decision = chat.poll_before_send(lent, &pending)?;
            let history = if history.is_empty() { "[]" } else { history };
            self.step(handle, decision, history, &read)
        })())
    }

    /// A manual compaction (`/compact`), forced; `focus` (`""`: none) is
    /// appended to the prompt. A [`Step`].
    pub fn compact(&mut self, handle: u32, history: &str, focus: &str) -> String {
        envelope((|| {
            let chat = self.chat_mut(handle)?;
            let read = messages(history, "history", chat.options().format)?;
            let focus = (!focus.is_empty()).then_some(focus);
            let decision = chat.poll_manual(HistoryRef::Read(&read), focus)?;
            self.step(handle, decision, history, &read)
        })())
    }

    /// The step for a decision; for a chat in another format than Gemini,
    /// the host's copies its head will need are made now, while the
    /// history is at hand.
    fn step(
        &mut self,
        handle: u32,
        decision: SendDecision,
        history_text: &str,
        history: &History,
    ) -> Result<Step, Error> {
        let chat = self.chat(handle)?;
        let format = chat.options().format;
        let options = chat.options().estimate;
        match decision {
            SendDecision::Proceed {
                estimate,
                tier,
                reason,
            } => Ok(Step::Done(done_value(
                &chat.noop_outcome::<()>(estimate, tier, reason),
                format,
                None,
            )?)),
            SendDecision::Cleared(outcome) => {
                let copies = if format == Format::Gemini || outcome.copied_from().is_empty() {
                    None
                } else {
                    let copied = outcome.copied_from().len();
                    let head = outcome.head().unwrap_or_default();
                    let copies = &head[head.len().saturating_sub(copied)..];
                    Some(host_copies(
                        format,
                        history_text,
                        history,
                        copies,
                        outcome.copied_from(),
                        &options,
                    )?)
                };
                Ok(Step::Done(done_value(&outcome, format, copies)?))
            }
            SendDecision::NeedHistory => Ok(Step::NeedHistory),
            SendDecision::Summarize { id, request, .. } => {
                let (copies, sources) = chat.pending_copies();
                if format != Format::Gemini && !copies.is_empty() {
                    let made =
                        host_copies(format, history_text, history, copies, sources, &options);
                    match made {
                        Ok(made) => {
                            self.copies.insert(handle, made);
                        }
                        Err(error) => {
                            // The run cannot end well without them: it is
                            // dropped, and the chat is idle again.
                            let _ = self
                                .chat_mut(handle)?
                                .handle_answer(id, Answer::<()>::Aborted);
                            return Err(error);
                        }
                    }
                } else {
                    self.copies.remove(handle);
                }
                Ok(Step::Summarize {
                    id: id.number(),
                    request,
                })
            }
        }
    }

    /// The `done` step for a run's outcome, with the copies made for it.
    fn done<C>(&mut self, handle: u32, outcome: &CompactionOutcome<C>) -> Result<Step, Error> {
        let copies = self.copies.remove(handle);
        let format = self.chat(handle)?.options().format;
        Ok(Step::Done(done_value(outcome, format, copies)?))
    }

    /// The step after an answer, a failure or an abort.
    fn next(&mut self, handle: u32, next: Next<()>) -> Result<Step, Error> {
        match next {
            Next::Summarize { id, request } => Ok(Step::Summarize {
                id: id.number(),
                request,
            }),
            Next::Done(outcome) => self.done(handle, &outcome),
        }
    }

    /// The host's answer to request `id` (`{ text, finishReason?, usage? }`
    /// or a string, as JSON): the next [`Step`]. A malformed answer is a
    /// SUMMARIZER_FAILED result whose cause is `INVALID_ANSWER`.
    pub fn answer(&mut self, handle: u32, id: f64, answer: &str) -> String {
        envelope((|| {
            let chat = self.chat_mut(handle)?;
            let id = chat.request_id(request_number(id)?);
            let answer = read_answer(answer).and_then(|value| SummaryAnswer::from_json(&value));
            let answer = match answer {
                Ok(answer) => Answer::Summary(answer),
                Err(error) => Answer::Invalid(error),
            };
            let next = chat.handle_answer(id, answer)?;
            self.next(handle, next)
        })())
    }

    /// The host's summarizer failed for request `id` (it threw or
    /// rejected; `message` says how): a SUMMARIZER_FAILED result whose
    /// cause is `{ message }` (the JS layer attaches the host's own error).
    pub fn fail(&mut self, handle: u32, id: f64, message: &str) -> String {
        envelope((|| {
            let chat = self.chat_mut(handle)?;
            let id = chat.request_id(request_number(id)?);
            let failed = Answer::Failed {
                message: message.into(),
                cause: (),
            };
            let next = chat.handle_answer(id, failed)?;
            self.next(handle, next)
        })())
    }

    /// The host cancelled request `id`: an ABORTED result.
    pub fn abort(&mut self, handle: u32, id: f64) -> String {
        envelope((|| {
            let chat = self.chat_mut(handle)?;
            let id = chat.request_id(request_number(id)?);
            let next = chat.handle_answer(id, Answer::<()>::Aborted)?;
            self.next(handle, next)
        })())
    }
}

/// The answer's JSON text; `""` (what the JS layer passes when the answer
/// could not be written as JSON, e.g. `undefined`) is an `INVALID_ANSWER`.
fn read_answer(text: &str) -> Result<Value, Error> {
    if text.is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidAnswer,
            "expected { text, finishReason?, usage? } or a string, got undefined",
        ));
    }
    parse_json(text, "the answer", ErrorCode::InvalidAnswer)
}

/// A history argument must be an array, also when the check will not read it.
fn check_array(text: &str, name: &str) -> Result<(), Error> {
    if text.trim_start().starts_with('[') {
        return Ok(());
    }
    let value = parse_json(text, name, ErrorCode::InvalidContent)?;
    Err(Error::new(
        ErrorCode::InvalidContent,
        format!(
            "{name} must be an array of messages, got {}",
            describe(&value)
        ),
    ))
}

/// A request's number from a JS number.
fn request_number(id: f64) -> Result<u64, Error> {
    if (COUNT.ok)(id) {
        Ok(id as u64)
    } else {
        Err(Error::new(
            ErrorCode::InvalidArgument,
            format!(
                "id must be the id of a summary request (a whole number), got {}",
                show_number(id)
            ),
        ))
    }
}

fn missing(handle: u32, next: u32) -> Error {
    if handle > 0 && handle < next {
        Error::new(ErrorCode::InvalidState, "this chat was freed")
    } else {
        Error::new(
            ErrorCode::InvalidState,
            format!("{handle} is not the handle of a chat"),
        )
    }
}
