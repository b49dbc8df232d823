//! Making messages smaller without a model (every send fits, docs/behaviour.md).
//!
//! * [`slim_message`]: one message cut to a token budget. Its long strings
//!   (text parts, tool outputs, call arguments) keep their head and their
//!   end, and the middle becomes a marker that says how much was removed:
//!   `[… 48,210 characters removed by compaction …]`. The longest strings
//!   are cut first and to the same length, so short ones stay whole.
//! * [`fit_messages`]: several messages cut together to one budget, the
//!   largest first.
//! * [`clear_tool_outputs`]: a message whose tool outputs became one-line
//!   markers (`clearToolOutputs`).
//!
//! Everything here works on copies: the host's messages are never touched.

use crate::prelude::*;

use crate::json::Value;

use crate::content::{Content, Part, PartKind};
use crate::context_report::group_digits;
use crate::estimate::{EstimateOptions, message_tokens};

/// Strings up to this many characters are never cut: the marker would cost
/// about as much as it saves.
const MIN_CUT: usize = 160;

/// Passes of measuring and cutting before [`slim_message`] settles: the
/// estimator is not linear in characters (JSON, scripts), so each pass
/// corrects the last one's guess.
const PASSES: usize = 8;

/// The marker that replaces the middle of a cut string.
pub fn removed_marker(removed_chars: usize) -> String {
    format!(
        "[… {} characters removed by compaction …]",
        group_digits(removed_chars as f64)
    )
}

/// The marker that replaces a cleared tool output.
pub fn cleared_marker(chars: usize) -> String {
    format!(
        "[tool output of {} characters cleared by compaction]",
        group_digits(chars as f64)
    )
}

/// A copy of `message` whose estimated tokens are at most `budget_tokens`
/// when cutting its long strings can get there (a message of many short
/// strings, or a budget below what its structure costs, stays above it:
/// the copy is then as small as cutting makes it). The role, the parts, their
/// order and every field but the cut strings stay as they were; images and
/// documents are kept (they are counted at `imageTokenEstimate` each).
///
/// ```
/// use compaction_core::{Content, EstimateOptions, ToJson};
/// use compaction_core::slim::slim_message;
/// let options = EstimateOptions::default();
/// let message = Content::text("user", "x".repeat(400_000));
/// let slim = slim_message(&message, 1_000.0, &options);
/// assert!(compaction_core::message_tokens(&slim, &options) <= 1_000.0);
/// let text = slim.to_json_string();
/// assert!(text.contains("characters removed by compaction"));
/// ```
pub fn slim_message(message: &Content, budget_tokens: f64, options: &EstimateOptions) -> Content {
    let mut tokens = message_tokens(message, options);
    if tokens <= budget_tokens {
        return message.clone();
    }
    let original = Strings::of(message);
    let total = original.total();
    if total == 0 {
        return message.clone();
    }
    // Start from the share of characters the budget allows, then correct.
    let mut keep = (total as f64 * (budget_tokens / tokens)).floor().max(0.0) as usize;
    let mut best = message.clone();
    for _ in 0..PASSES {
        let candidate = original.cut_to(message, keep);
        tokens = message_tokens(&candidate, options);
        best = candidate;
        if tokens <= budget_tokens || keep == 0 {
            break;
        }
        let over = tokens - budget_tokens;
        // Each kept character costs about tokens / kept; step down by the
        // excess, at least a tenth, so the loop converges.
        let per_char = (tokens / keep.max(1) as f64).max(1e-6);
        let step = ((over / per_char).ceil() as usize).max(keep / 10).max(1);
        keep = keep.saturating_sub(step);
    }
    best
}

/// Cuts `messages` (copies) so that together they cost at most
/// `budget_tokens`: every message above a common size `c` is slimmed to
/// `c`, the others stay whole, `c` as large as the budget allows.
pub fn fit_messages(
    messages: &[Content],
    budget_tokens: f64,
    options: &EstimateOptions,
) -> Vec<Content> {
    let sizes: Vec<f64> = messages
        .iter()
        .map(|m| message_tokens(m, options))
        .collect();
    if sizes.iter().sum::<f64>() <= budget_tokens {
        return messages.to_vec();
    }
    let c = water_level(&sizes, budget_tokens.max(0.0));
    messages
        .iter()
        .zip(&sizes)
        .map(|(m, &size)| {
            if size > c {
                slim_message(m, c, options)
            } else {
                m.clone()
            }
        })
        .collect()
}

/// The largest `c` with `Σ min(size, c) ≤ budget`.
pub(crate) fn water_level(sizes: &[f64], budget: f64) -> f64 {
    let mut sorted: Vec<f64> = sizes.to_vec();
    crate::sort::heapsort_by(&mut sorted, &|a, b| a.total_cmp(b).is_lt());
    let mut below = 0.0;
    let n = sorted.len();
    for (i, &size) in sorted.iter().enumerate() {
        let rest = (n - i) as f64;
        // Every remaining message (this one and the larger) gets `c`.
        let c = (budget - below) / rest;
        if c <= size {
            return c.max(0.0);
        }
        below += size;
    }
    f64::INFINITY
}

/// A copy of `message` whose tool outputs (function responses) larger than
/// their marker became it: `{"output": "[tool output of N characters cleared
/// by compaction]"}`, with the call's name and id kept so that each call
/// still has its response.
pub fn clear_tool_outputs(message: &Content) -> Content {
    Content {
        role: message.role.clone(),
        parts: message.parts.iter().map(clear_part).collect(),
    }
}

fn clear_part(part: &Part) -> Part {
    let PartKind::FunctionResponse(response) = part.kind() else {
        return part.clone();
    };
    let chars = crate::json::to_string(response.get("response").unwrap_or(&Value::Null))
        .chars()
        .count();
    let marker = cleared_marker(chars);
    if chars <= marker.chars().count() && !response.contains_key("parts") {
        return part.clone();
    }
    let mut response = response.clone();
    response.remove("parts");
    response.insert("response".into(), crate::json!({ "output": marker }));
    let mut map = part.as_map().clone();
    map.insert("functionResponse".into(), Value::Object(response));
    // Only a payload object was replaced by another: still a valid part.
    Part::from_value(Value::Object(map), "").unwrap_or_else(|_| part.clone())
}

/// The lengths (in characters) of the cuttable strings of a message, in the
/// order [`Strings::cut_to`] walks them.
struct Strings {
    lengths: Vec<usize>,
}

impl Strings {
    fn of(message: &Content) -> Strings {
        let mut lengths = Vec::new();
        for part in &message.parts {
            let mut map = part.as_map().clone();
            for_each_cuttable(&mut map, &mut |s: &mut String| {
                lengths.push(s.chars().count())
            });
        }
        Strings { lengths }
    }

    fn total(&self) -> usize {
        self.lengths.iter().filter(|&&n| n > MIN_CUT).sum()
    }

    /// A copy of `message` whose cuttable strings keep `keep` characters in
    /// all, the longest cut first to a common length.
    fn cut_to(&self, message: &Content, keep: usize) -> Content {
        let long: Vec<f64> = self
            .lengths
            .iter()
            .filter(|&&n| n > MIN_CUT)
            .map(|&n| n as f64)
            .collect();
        let level = water_level(&long, keep as f64).floor();
        let level = if level.is_finite() {
            level as usize
        } else {
            usize::MAX
        };
        let parts = message
            .parts
            .iter()
            .map(|part| {
                let mut map = part.as_map().clone();
                let mut changed = false;
                for_each_cuttable(&mut map, &mut |s: &mut String| {
                    let n = s.chars().count();
                    if n > MIN_CUT && n > level {
                        *s = cut(s, n, level);
                        changed = true;
                    }
                });
                if changed {
                    // Strings were replaced by strings: still a valid part.
                    Part::from_value(Value::Object(map), "").unwrap_or_else(|_| part.clone())
                } else {
                    part.clone()
                }
            })
            .collect();
        Content {
            role: message.role.clone(),
            parts,
        }
    }
}

/// `s` (of `n` characters) cut to its first `keep / 2` characters and its
/// last `keep - keep / 2`, at exactly those counts (a cut may fall inside a
/// line or a word), the marker on a line of its own between them.
fn cut(s: &str, n: usize, keep: usize) -> String {
    let head_end = s.char_indices().nth(keep / 2).map_or(s.len(), |(i, _)| i);
    // The end is found from the end: a short tail costs its own length only.
    let tail_start = match (keep - keep / 2).checked_sub(1) {
        None => s.len(),
        Some(last) => s.char_indices().nth_back(last).map_or(0, |(i, _)| i),
    };
    cut_middle(s, head_end, tail_start, n.saturating_sub(keep), '\n')
}

/// The library's one cutter, for slimming and the ledger alike: `s` with
/// its middle, the bytes `head_end..tail_start` (char boundaries), replaced
/// by [`removed_marker`] saying `removed` characters are gone, set off by
/// `sep` on both sides (a newline puts it on a line of its own; a space
/// keeps a one-line quote on one line). Where to cut is the caller's, and
/// so is the count, which it knows without walking the middle again:
/// slimming keeps as many characters of the head as of the end, the ledger
/// twice as much beginning as end.
pub(crate) fn cut_middle(
    s: &str,
    head_end: usize,
    tail_start: usize,
    removed: usize,
    sep: char,
) -> String {
    format!(
        "{}{sep}{}{sep}{}",
        s.get(..head_end).unwrap_or_default(),
        removed_marker(removed),
        s.get(tail_start.max(head_end)..).unwrap_or_default()
    )
}

/// Calls `f` on each string a slimming may cut in a part's JSON: a text
/// part's text, a function response's `response` and a function call's
/// `args` (every string inside them, keys excepted).
fn for_each_cuttable(map: &mut crate::json::Map, f: &mut impl FnMut(&mut String)) {
    if let Some(Value::String(text)) = map.get_mut("text") {
        f(text);
        return;
    }
    for (key, inner) in [("functionCall", "args"), ("functionResponse", "response")] {
        if let Some(Value::Object(payload)) = map.get_mut(key) {
            if let Some(value) = payload.get_mut(inner) {
                each_string(value, f);
            }
            return;
        }
    }
}

fn each_string(value: &mut Value, f: &mut impl FnMut(&mut String)) {
    match value {
        Value::String(s) => f(s),
        Value::Array(items) => items.iter_mut().for_each(|v| each_string(v, f)),
        Value::Object(map) => map.values_mut().for_each(|v| each_string(v, f)),
        _ => {}
    }
}

/// Keys whose strings are never cut in a host's own message: ids, names,
/// types and roles (the message would no longer pair or parse), media data
/// and references (cut, they would be corrupt, and they are counted as
/// media anyway), signed thinking (a provider checks its signature) and
/// encrypted reasoning and compaction items (opaque to anyone but the provider).
const UNCUT_KEYS: [&str; 26] = [
    "id",
    "call_id",
    "callId",
    "encrypted_content",
    "status",
    "type",
    "role",
    "name",
    "signature",
    "thinking",
    "data",
    "image",
    "url",
    "uri",
    "file_data",
    "file_id",
    "fileUri",
    "mediaType",
    "media_type",
    "mimeType",
    "mime_type",
    "toolCallId",
    "tool_call_id",
    "tool_use_id",
    "approvalId",
    "toolName",
];

/// A copy of a host's message JSON in any format, its long strings cut
/// (head and end kept around the marker, as [`slim_message`] cuts) to a
/// common length, the largest at which `measure` (the message's estimated
/// tokens, read in its format) is at most `budget_tokens`. Ids, names,
/// roles, media and signed thinking are never cut. Used
/// to give a host in another format the same slimmed copies the engine
/// made of the core's model of its messages.
pub fn slim_json(
    value: &Value,
    budget_tokens: f64,
    measure: impl Fn(&Value) -> Option<f64>,
) -> Value {
    if measure(value).is_none_or(|n| n <= budget_tokens) {
        return value.clone();
    }
    let mut longest = 0;
    json_strings(&mut value.clone(), None, &mut |s: &mut String| {
        longest = longest.max(s.chars().count());
    });
    let at = |level: usize| -> Value {
        let mut copy = value.clone();
        json_strings(&mut copy, None, &mut |s: &mut String| {
            let n = s.chars().count();
            if n > MIN_CUT && n > level {
                *s = cut(s, n, level);
            }
        });
        copy
    };
    // The largest common length that fits: the estimate grows with it.
    let (mut low, mut high) = (0usize, longest);
    while low < high {
        let mid = low + (high - low).div_ceil(2);
        if measure(&at(mid)).is_some_and(|n| n <= budget_tokens) {
            low = mid;
        } else {
            high = mid - 1;
        }
    }
    at(low)
}

/// Calls `f` on every string value of a host's message JSON that a
/// slimming may cut (keys, and values under [`UNCUT_KEYS`], excepted).
fn json_strings(value: &mut Value, key: Option<&str>, f: &mut dyn FnMut(&mut String)) {
    if key.is_some_and(|k| UNCUT_KEYS.contains(&k)) {
        return;
    }
    match value {
        Value::String(s) if !s.starts_with("data:") => f(s),
        Value::Array(items) => items.iter_mut().for_each(|v| json_strings(v, None, f)),
        Value::Object(map) => map
            .iter_mut()
            .for_each(|(k, v)| json_strings(v, Some(k.as_str()), f)),
        _ => {}
    }
}
