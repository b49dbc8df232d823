//! The ledger: what must survive a compaction, read by the library from the
//! messages being replaced rather than hoped for from the summarizing model.
//!
//! Two kinds of facts need no model at all:
//!
//! * **files**: every path a tool call created, wrote, edited, moved or
//!   deleted (see [`files`] for the tool names, argument names and patch
//!   headers recognised), in first-seen order with the last operation;
//! * **the user's own words**: the user's messages that are not tool
//!   results, verbatim, newest first, within a token budget; a long paste
//!   is cut in its middle by slimming's cutter, with its marker
//!   (`[… N characters removed by compaction …]`).
//!
//! [`Ledger::from_messages`] builds it from the head a compaction replaces,
//! including the ledger section of an earlier summary found there, so it
//! carries across compactions. [`Ledger::render`] (`render.rs`) writes the
//! section that follows the model's summary in the summary message:
//! clearly marked as recorded by compaction, listing what the summary does
//! not already contain (and carrying, on marked lines, what it does, for
//! the next compaction), shrunk to a token budget. [`check`](mod@check)
//! reports which of the prompt's required sections the summary has and
//! which files it misses.
//!
//! The module is pure: no state, no I/O; the engine calls it.
//!
//! ```
//! use compaction_core::{Content, EstimateOptions};
//! use compaction_core::ledger::{Ledger, LedgerOptions, check};
//! use compaction_core::json;
//!
//! let head = vec![
//!     Content::text("user", "Rename the config loader. Keep the old name working."),
//!     Content::from_value(json!({ "role": "model", "parts": [{ "functionCall": {
//!         "name": "write_file", "args": { "file_path": "src/config.rs", "content": "…" } } }] }), "m").unwrap(),
//! ];
//! let ledger = Ledger::from_messages(&head, &LedgerOptions::default(), 128_000.0, &EstimateOptions::default());
//! let section = ledger.render("Work on the config loader.", 1_000.0);
//! assert!(section.contains("- src/config.rs (written)"));
//! assert!(section.contains("\"Rename the config loader. Keep the old name working.\""));
//! assert_eq!(check("Work on the config loader.", &ledger).missing_files, ["src/config.rs"]);
//! ```

use crate::prelude::*;

use crate::str_search;

pub mod check;
pub mod files;
mod render;

use crate::json::{Value, json_object};

use crate::content::{Content, PartKind};
use crate::error::{Error, ErrorCode, show_number};
use crate::estimate::{EstimateOptions, estimate_text_tokens};
use crate::read::Fields;
use crate::slim::cut_middle;
use crate::summary_request::{is_compaction_message, is_summary_message};

pub use check::{SummaryCheck, check, check_with_prompt, required_sections};
pub use files::{Operation, ToolKind};
pub use render::section_budget;

/// Share of the context window the user's words may take by default.
pub const USER_WORDS_SHARE: f64 = 0.02;
/// The least default budget for the user's words, in tokens.
///
/// On the 60 dev histories (`scripts/ledger-cost`) the user's own words in
/// the replaced 80% take 13 to 136 tokens (median 44, p90 101, spec's
/// estimator): a few requests and constraints, as in most agent sessions,
/// where tool output is the bulk.
/// 512 keeps all of them, and about ten pasted paragraphs' worth, even on
/// an 8K window, where 2% would be 160.
pub const USER_WORDS_FLOOR: f64 = 512.0;
/// The most default budget for the user's words, in tokens: 2% of a 200K
/// window. On a 1M window 2% would be 20K tokens of old messages repeated
/// in every summary; 4K is already several pages of requirements, and a
/// longer paste is cut anyway.
pub const USER_WORDS_CEILING: f64 = 4_096.0;
/// The fence info string that marks the ledger's machine-readable block.
pub const LEDGER_FENCE: &str = "```compaction-ledger";
/// The heading of the rendered section.
pub const LEDGER_HEADING: &str = "## Recorded by compaction";
/// One user message takes at most this share of the words budget, so one
/// paste cannot crowd out every other request.
const WORD_SHARE_OF_BUDGET: f64 = 0.25;
/// A message is not cut below this many tokens: shorter, its beginning and
/// end would say nothing.
const MIN_WORD_TOKENS: f64 = 32.0;

/// What the ledger recognises and how much it may hold.
///
/// The name lists are **added to** the defaults ([`files::DEFAULT_TOOLS`],
/// [`files::DEFAULT_PATH_ARGUMENTS`], …), and checked before them, so a
/// host names its own tools without restating the usual ones (and may
/// reclassify one). Names compare loosely: case, `_` and `-` ignored.
///
/// Written in camelCase ([`crate::json::ToJson`]), empty lists left out (for a saved state; read
/// options from a host with [`LedgerOptions::from_json`], whose errors name
/// the field).
#[derive(Clone, Debug, PartialEq)]
pub struct LedgerOptions {
    /// Whether compaction adds a ledger at all (default true).
    pub enabled: bool,
    /// Tools that create the files in their path arguments.
    pub created: Vec<String>,
    /// Tools that write whole files.
    pub written: Vec<String>,
    /// Tools that edit files.
    pub edited: Vec<String>,
    /// Tools that move a source to a destination.
    pub moved: Vec<String>,
    /// Tools that delete files.
    pub deleted: Vec<String>,
    /// Tools whose `command` argument says the operation.
    pub command_tools: Vec<String>,
    /// Tools whose arguments hold a patch (`*** Update File:`, `+++ b/x`).
    pub patch_tools: Vec<String>,
    /// Arguments that name the file a tool changes.
    pub path_arguments: Vec<String>,
    /// Arguments that name where a move starts.
    pub source_arguments: Vec<String>,
    /// Arguments that name where a move ends.
    pub destination_arguments: Vec<String>,
    /// Tokens the user's words may take; `None`: [`USER_WORDS_SHARE`] of the
    /// window, between [`USER_WORDS_FLOOR`] and [`USER_WORDS_CEILING`].
    pub user_words_budget: Option<f64>,
}

json_object! {
    /// In camelCase, empty lists and an unset budget left out; the keys
    /// ([`LedgerOptions::FIELDS`]) are those [`LedgerOptions::from_json`] reads.
    LedgerOptions {
        enabled: "enabled",
        created?(Vec::is_empty): "created",
        written?(Vec::is_empty): "written",
        edited?(Vec::is_empty): "edited",
        moved?(Vec::is_empty): "moved",
        deleted?(Vec::is_empty): "deleted",
        command_tools?(Vec::is_empty): "commandTools",
        patch_tools?(Vec::is_empty): "patchTools",
        path_arguments?(Vec::is_empty): "pathArguments",
        source_arguments?(Vec::is_empty): "sourceArguments",
        destination_arguments?(Vec::is_empty): "destinationArguments",
        user_words_budget?: "userWordsBudget",
    }
    pub const FIELDS;
}

impl Default for LedgerOptions {
    fn default() -> Self {
        LedgerOptions {
            enabled: true,
            created: Vec::new(),
            written: Vec::new(),
            edited: Vec::new(),
            moved: Vec::new(),
            deleted: Vec::new(),
            command_tools: Vec::new(),
            patch_tools: Vec::new(),
            path_arguments: Vec::new(),
            source_arguments: Vec::new(),
            destination_arguments: Vec::new(),
            user_words_budget: None,
        }
    }
}

impl LedgerOptions {
    /// Reads options from plain JSON (`null`: the defaults); unknown fields
    /// and values of the wrong type are `INVALID_ARGUMENT` errors that name
    /// the field.
    ///
    /// ```
    /// use compaction_core::ledger::LedgerOptions;
    /// let o = LedgerOptions::from_json(&compaction_core::json!({ "edited": ["patch_source"] }), "ledger").unwrap();
    /// assert_eq!(o.edited, ["patch_source"]);
    /// let e = LedgerOptions::from_json(&compaction_core::json!({ "edited": "patch_source" }), "ledger").unwrap_err();
    /// assert!(e.message().contains("ledger.edited must be an array of strings"));
    /// ```
    pub fn from_json(value: &Value, path: &str) -> Result<LedgerOptions, Error> {
        LedgerOptions::read(value, path, ErrorCode::InvalidArgument)
    }

    /// [`LedgerOptions::from_json`] reporting errors with `code` (inside a
    /// saved state, `INVALID_STATE`).
    pub(crate) fn read(value: &Value, path: &str, code: ErrorCode) -> Result<LedgerOptions, Error> {
        let fields = Fields::of(value, path, code)?;
        fields.only(&Self::FIELDS)?;
        let names = |key: &str| -> Result<Vec<String>, Error> {
            match fields.get(key) {
                None => Ok(Vec::new()),
                Some(Value::Array(items)) => {
                    let mut names = Vec::with_capacity(items.len());
                    for item in items {
                        match item {
                            Value::String(s) => names.push(s.clone()),
                            other => return Err(fields.bad(key, other, "an array of strings")),
                        }
                    }
                    Ok(names)
                }
                Some(other) => Err(fields.bad(key, other, "an array of strings")),
            }
        };
        let enabled = match fields.get("enabled") {
            None => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(fields.bad("enabled", other, "true or false")),
        };
        Ok(LedgerOptions {
            enabled,
            created: names("created")?,
            written: names("written")?,
            edited: names("edited")?,
            moved: names("moved")?,
            deleted: names("deleted")?,
            command_tools: names("commandTools")?,
            patch_tools: names("patchTools")?,
            path_arguments: names("pathArguments")?,
            source_arguments: names("sourceArguments")?,
            destination_arguments: names("destinationArguments")?,
            user_words_budget: fields.number(
                "userWordsBudget",
                "a finite number of tokens >= 0",
                |n| n.is_finite() && n >= 0.0,
            )?,
        })
    }

    /// Checks values set from Rust.
    pub fn validate(&self) -> Result<(), Error> {
        match self.user_words_budget {
            Some(b) if !(b.is_finite() && b >= 0.0) => Err(Error::new(
                ErrorCode::InvalidArgument,
                format!(
                    "ledger.userWordsBudget must be a finite number of tokens >= 0, got {}",
                    show_number(b)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// The tokens the user's words may take on a `window`-token context.
    ///
    /// ```
    /// use compaction_core::ledger::LedgerOptions;
    /// let o = LedgerOptions::default();
    /// assert_eq!(o.user_words_budget_for(128_000.0), 2_560.0);
    /// assert_eq!(o.user_words_budget_for(8_000.0), 512.0);
    /// assert_eq!(o.user_words_budget_for(1_000_000.0), 4_096.0);
    /// ```
    pub fn user_words_budget_for(&self, window: f64) -> f64 {
        match self.user_words_budget {
            Some(b) if b.is_finite() && b >= 0.0 => b,
            _ => {
                let share = if window.is_finite() && window > 0.0 {
                    window * USER_WORDS_SHARE
                } else {
                    0.0
                };
                share.clamp(USER_WORDS_FLOOR, USER_WORDS_CEILING).floor()
            }
        }
    }
}

/// One file the replaced messages changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileEntry {
    /// The path as the tool call gave it.
    pub path: String,
    /// The last thing done to it.
    pub last_operation: Operation,
}

json_object! {
    FileEntry {
        path: "path",
        last_operation: "lastOperation",
    }
}

/// The facts a program can read from the messages a compaction replaces.
#[derive(Clone, Debug, PartialEq)]
pub struct Ledger {
    /// Files in first-seen order, each with its last operation.
    pub files: Vec<FileEntry>,
    /// The user's own messages, verbatim (long ones cut with a marker),
    /// newest first.
    pub user_words: Vec<String>,
    /// How [`Ledger::render`] counts tokens: as the ledger was built.
    estimate: EstimateOptions,
}

json_object! {
    Ledger {
        files: "files",
        user_words: "userWords",
    }
}

impl Ledger {
    /// An empty ledger that counts tokens with `estimate`.
    pub fn empty(estimate: &EstimateOptions) -> Ledger {
        Ledger {
            files: Vec::new(),
            user_words: Vec::new(),
            estimate: *estimate,
        }
    }

    /// Whether there is nothing recorded.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.user_words.is_empty()
    }

    /// Builds the ledger of `messages`, the head a compaction replaces.
    ///
    /// Files: every function call's file operations (see [`files`]), and
    /// the files of an earlier ledger section inside a summary message
    /// there, in first-seen order; a later operation replaces the earlier
    /// one. Calls are recorded as the model made them: the ledger does not
    /// read tool results to learn whether one failed.
    ///
    /// Words: the text of messages with role `user` that are neither tool
    /// results nor messages compaction wrote (summary, bridge), plus the
    /// words of an earlier ledger at the summary's place; newest first,
    /// repeats kept once, each cut to a quarter of the budget, until
    /// [`LedgerOptions::user_words_budget_for`] `window` is spent (a message
    /// that does not fit is cut to the room left, or skipped for older,
    /// shorter ones).
    ///
    /// Disabled options give an empty ledger.
    pub fn from_messages(
        messages: &[Content],
        options: &LedgerOptions,
        window: f64,
        estimate: &EstimateOptions,
    ) -> Ledger {
        let mut ledger = Ledger::empty(estimate);
        if !options.enabled {
            return ledger;
        }
        let recogniser = files::Recogniser::new(options);
        // Oldest first while reading; reversed for the budget below.
        let mut words: Vec<String> = Vec::new();
        for message in messages {
            if is_summary_message(message) {
                for text in texts(message) {
                    let (earlier_files, earlier_words) = parse_sections(text);
                    for (path, op) in earlier_files {
                        ledger.record(path, op);
                    }
                    words.extend(earlier_words.into_iter().rev());
                }
                continue;
            }
            for part in &message.parts {
                if let PartKind::FunctionCall(call) = part.kind() {
                    for (path, op) in recogniser.operations(call) {
                        ledger.record(path, op);
                    }
                }
            }
            if let Some(text) = user_words(message) {
                words.push(text);
            }
        }
        let budget = options.user_words_budget_for(window);
        let cap = (budget * WORD_SHARE_OF_BUDGET)
            .max(MIN_WORD_TOKENS)
            .min(budget);
        let mut used = 0.0;
        // Compared uncut: a repeat of a long message is cut the same way.
        // (A list, not a hash set: it stays short, and the wasm module
        // carries no hasher.)
        let mut seen: Vec<&str> = Vec::new();
        for word in words.iter().rev() {
            if seen.contains(&word.as_str()) {
                continue;
            }
            seen.push(word);
            let room = budget - used;
            if room < MIN_WORD_TOKENS.min(cap) {
                break;
            }
            let Some(kept) = fit_text(word, cap.min(room), estimate) else {
                continue;
            };
            used += estimate_text_tokens(&kept, estimate) as f64;
            ledger.user_words.push(kept);
        }
        ledger
    }

    fn record(&mut self, path: String, op: Operation) {
        match self.files.iter_mut().find(|f| f.path == path) {
            Some(entry) => entry.last_operation = op,
            None => self.files.push(FileEntry {
                path,
                last_operation: op,
            }),
        }
    }
}

/// Whether `summary` names `path` (as given, or without a leading `./`).
fn names_path(summary: &str, path: &str) -> bool {
    str_search::contains(summary, path)
        || path
            .strip_prefix("./")
            .is_some_and(|p| str_search::contains(summary, p))
}

fn texts(message: &Content) -> impl Iterator<Item = &str> {
    message.parts.iter().filter_map(|part| match part.kind() {
        PartKind::Text {
            text,
            thought: false,
        } => Some(text),
        _ => None,
    })
}

/// The user's own words in `message`, or `None` when it is not a user
/// message, is a tool result or compaction's own, or holds no text.
fn user_words(message: &Content) -> Option<String> {
    if message.role != "user" || message.is_tool_result() || is_compaction_message(message) {
        return None;
    }
    let text = crate::read::join(&texts(message).collect::<Vec<_>>(), "\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_string())
}

/// `text`, or its beginning (two thirds: what was asked comes first) and
/// end (one third) around slimming's marker (`[… N characters removed by
/// compaction …]`, inline: a quoted line stays one line), cut by
/// [`cut_middle`] to at most `limit` tokens; `None` when not even a short
/// cut fits.
fn fit_text(text: &str, limit: f64, estimate: &EstimateOptions) -> Option<String> {
    let tokens = |s: &str| estimate_text_tokens(s, estimate) as f64;
    if tokens(text) <= limit {
        return Some(text.to_string());
    }
    if limit < 1.0 {
        return None;
    }
    let bounds = |kept: usize| -> (usize, usize) {
        let head = floor_boundary(text, kept * 2 / 3);
        let tail = ceil_boundary(text, text.len() - (kept - kept * 2 / 3)).max(head);
        (head, tail)
    };
    // Binary search on the bytes kept. While it searches, the marker counts
    // the bytes cut, which has at least as many digits as the characters
    // cut, so the text returned is never longer than the one measured.
    let probe = |kept: usize| {
        let (head, tail) = bounds(kept);
        tokens(&cut_middle(text, head, tail, tail - head, ' ')) <= limit
    };
    let (mut lo, mut hi) = (0usize, text.len());
    let mut found = false;
    while lo < hi {
        let mid = lo + (hi - lo).div_ceil(2);
        if probe(mid) {
            (lo, found) = (mid, true);
        } else {
            hi = mid - 1;
        }
    }
    if !found && !probe(0) {
        return None;
    }
    let (head, tail) = bounds(lo);
    let cut = text.get(head..tail).unwrap_or_default().chars().count();
    Some(cut_middle(text, head, tail, cut, ' '))
}

fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn ceil_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// The files and words of every ledger block in `text` (a summary
/// message's text), in the order written (words newest first).
pub fn parse_sections(text: &str) -> (Vec<(String, Operation)>, Vec<String>) {
    let mut files = Vec::new();
    let mut words = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        let line = line.trim_end();
        if !inside {
            inside = line.trim_start() == LEDGER_FENCE;
            continue;
        }
        if line.trim_start() == "```" {
            inside = false;
            continue;
        }
        let Some(item) = line.strip_prefix("- ").or_else(|| line.strip_prefix("= ")) else {
            continue;
        };
        if item.starts_with('"') {
            if let Ok(Value::String(word)) = crate::json::from_str(item) {
                words.push(word);
            }
        } else if let Some(entry) = parse_file_line(item) {
            files.push(entry);
        }
    }
    (files, words)
}

/// `path (operation)`; the path may itself hold ` (`, so every split is
/// tried from the right until the tail reads as an operation. (Only a
/// destination path that itself contains ` (moved to ` or ` (created)`
/// and the like reads back wrong: no real path does.)
fn parse_file_line(item: &str) -> Option<(String, Operation)> {
    let inner = item.strip_suffix(')')?;
    let mut end = inner.len();
    while let Some(i) = str_search::rfind(inner.get(..end)?, " (") {
        if let Some(op) = Operation::parse(inner.get(i + 2..)?)
            && let Some(path) = files::clean_path(inner.get(..i)?)
        {
            return Some((path, op));
        }
        end = i;
    }
    None
}
