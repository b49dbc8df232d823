//! The readers' shared helpers: fields and roles with their errors, and
//! telling which format a message that does not match seems to be in.

use super::*;

pub(super) fn invalid(message: String) -> Error {
    Error::new(ErrorCode::InvalidContent, message)
}

/// A message's `role`: `None` when it is absent (each reader says what
/// that means), an error listing `roles` when it is not a string.
pub(super) fn role<'a>(map: &'a Map, path: &str, roles: &str) -> Result<Option<&'a str>, Error> {
    match map.get("role") {
        Some(Value::String(role)) => Ok(Some(role)),
        Some(other) => Err(invalid(format!(
            "{path}.role must be {roles}, got {}",
            describe(other)
        ))),
        None => Ok(None),
    }
}

/// What is said of a message without a `role`.
pub(super) fn missing_role(path: &str, roles: &str) -> String {
    format!("{path}.role is missing (expected {roles})")
}

/// The object of a message, or an error naming what it is instead.
pub(super) fn object<'a>(value: &'a Value, path: &str, expected: &str) -> Result<&'a Map, Error> {
    value.as_object().ok_or_else(|| {
        invalid(format!(
            "{path} must be {expected}, got {}",
            describe(value)
        ))
    })
}

/// A required string field.
pub(super) fn string<'a>(map: &'a Map, key: &str, path: &str) -> Result<&'a str, Error> {
    match map.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(invalid(format!(
            "{path}.{key} must be a string, got {}",
            describe(other)
        ))),
        None => Err(invalid(format!("{path}.{key} is missing"))),
    }
}

/// An optional string field (`null` counts as absent).
pub(super) fn opt_string<'a>(
    map: &'a Map,
    key: &str,
    path: &str,
) -> Result<Option<&'a str>, Error> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(invalid(format!(
            "{path}.{key} must be a string, got {}",
            describe(other)
        ))),
    }
}

/// The `type` of a content part, required.
pub(super) fn part_type<'a>(map: &'a Map, path: &str) -> Result<&'a str, Error> {
    match map.get("type") {
        Some(Value::String(s)) => Ok(s),
        Some(other) => Err(invalid(format!(
            "{path}.type must be a string, got {}",
            describe(other)
        ))),
        None => Err(invalid(format!(
            "{path}.type is missing (a content part is {{ type, ... }})"
        ))),
    }
}

/// `history[3] has "parts": a Gemini message? pass format: "gemini"`.
pub(super) fn mismatch(path: &str, observed: &str, guess: Format) -> Error {
    invalid(format!(
        "{path} {observed}: {} message? pass format: {}",
        guess.label(),
        Quoted(guess.name())
    ))
}

/// What a part looks like, for a mismatch error.
pub(super) fn observed_part(map: &Map) -> String {
    match map.get("type").and_then(Value::as_str) {
        Some(t) => format!("has type {t}", t = Quoted(t)),
        None => {
            let keys: Vec<String> = map.keys().take(3).map(|k| Quoted(k).to_string()).collect();
            let keys = crate::read::join(&keys, ", ");
            format!("has {keys} and no \"type\"")
        }
    }
}

/// The format a content part seems to be in, from its telltale fields.
pub(super) fn sniff_part(map: &Map) -> Option<Format> {
    match map.get("type").and_then(Value::as_str) {
        Some("image_url" | "input_audio" | "refusal") => Some(Format::OpenAi),
        Some("file") if map.get("file").is_some_and(Value::is_object) => Some(Format::OpenAi),
        Some(
            "tool_use"
            | "tool_result"
            | "thinking"
            | "redacted_thinking"
            | "document"
            | "server_tool_use"
            | "search_result"
            | "web_search_tool_result"
            | "container_upload",
        ) => Some(Format::Anthropic),
        Some("image") if map.contains_key("source") => Some(Format::Anthropic),
        Some(
            "tool-call"
            | "tool-result"
            | "reasoning"
            | "tool-approval-request"
            | "tool-approval-response",
        ) => Some(Format::AiSdk),
        Some("input_text" | "output_text" | "input_image" | "input_file" | "summary_text") => {
            Some(Format::OpenAiResponses)
        }
        Some("image") if map.contains_key("image") => Some(Format::AiSdk),
        Some("file") if map.contains_key("mediaType") || map.contains_key("data") => {
            Some(Format::AiSdk)
        }
        Some(_) => None,
        None => [
            "text",
            "functionCall",
            "functionResponse",
            "inlineData",
            "fileData",
        ]
        .iter()
        .any(|k| map.contains_key(k))
        .then_some(Format::Gemini),
    }
}

/// The format a whole message seems to be in, from its telltale fields;
/// `None` when nothing tells (`{ role: "user", content: "hi" }` is valid
/// OpenAI, Anthropic and AI SDK alike).
pub(super) fn sniff_message(map: &Map) -> Option<Format> {
    if map.contains_key("lc") && map.contains_key("kwargs") {
        return Some(Format::LangChain);
    }
    if let Some(kind) = map.get("type").and_then(Value::as_str) {
        if langchain::is_kind(kind) {
            return Some(Format::LangChain);
        }
        if openai_responses::is_item_type(kind) {
            return Some(Format::OpenAiResponses);
        }
    }
    if let Some(Value::Array(parts)) = map.get("parts")
        && parts
            .iter()
            .any(|p| p.get("type").is_some_and(Value::is_string))
    {
        // An AI SDK UI message (`UIMessage`), not a model message.
        return Some(Format::AiSdk);
    }
    if map.contains_key("parts") || map.get("role").and_then(Value::as_str) == Some("model") {
        return Some(Format::Gemini);
    }
    if let Some(Value::Array(calls)) = map.get("tool_calls")
        && calls.iter().any(|c| c.get("args").is_some())
    {
        // LangChain's `{ id, name, args }`, not OpenAI's `{ id, function }`.
        return Some(Format::LangChain);
    }
    if ["tool_calls", "tool_call_id", "refusal", "function_call"]
        .iter()
        .any(|k| map.contains_key(k))
    {
        return Some(Format::OpenAi);
    }
    match map.get("role").and_then(Value::as_str) {
        Some("developer" | "function") => return Some(Format::OpenAi),
        Some("tool") if map.get("content").is_some_and(Value::is_string) => {
            return Some(Format::OpenAi);
        }
        _ => {}
    }
    if let Some(Value::Array(items)) = map.get("content")
        && let Some(format) = items
            .iter()
            .filter_map(Value::as_object)
            .filter_map(sniff_part)
            // A typeless part inside `content` is a malformed part, not a
            // Gemini message.
            .find(|f| *f != Format::Gemini)
    {
        return Some(format);
    }
    if map.get("role").and_then(Value::as_str) == Some("tool") {
        return Some(Format::AiSdk);
    }
    None
}

/// Fails on a message that shows another format's telltales, before the
/// reader would misread it.
pub(super) fn check_foreign(map: &Map, path: &str, this: Format) -> Result<(), Error> {
    match sniff_message(map) {
        Some(format) if format != this => Err(mismatch(path, &observed_message(map), format)),
        _ => Ok(()),
    }
}

/// The error for a message this reader cannot read: a mismatch with the
/// format it seems to be in when something tells, else `fallback`.
pub(super) fn foreign_message(map: &Map, path: &str, this: Format, fallback: String) -> Error {
    match sniff_message(map) {
        Some(format) if format != this => mismatch(path, &observed_message(map), format),
        _ => invalid(fallback),
    }
}

/// What a message looks like, for a mismatch error.
pub(crate) fn observed_message(map: &Map) -> String {
    if map.contains_key("lc") && map.contains_key("kwargs") {
        return "has \"lc\" and \"kwargs\"".into();
    }
    if let Some(kind) = map.get("type").and_then(Value::as_str)
        && (langchain::is_kind(kind) || openai_responses::is_item_type(kind))
    {
        return format!("has type {kind}", kind = Quoted(kind));
    }
    for key in [
        "parts",
        "tool_calls",
        "tool_call_id",
        "refusal",
        "function_call",
    ] {
        if map.contains_key(key) {
            return format!("has {key}", key = Quoted(key));
        }
    }
    if let Some(role) = map.get("role").and_then(Value::as_str)
        && matches!(role, "model" | "developer" | "function" | "tool")
    {
        if let Some(Value::Array(items)) = map.get("content")
            && let Some(t) = items
                .iter()
                .filter_map(|i| i.get("type").and_then(Value::as_str))
                .next()
        {
            return format!(
                "has the role {role} and a content part of type {t}",
                role = Quoted(role),
                t = Quoted(t)
            );
        }
        return format!("has the role {role}", role = Quoted(role));
    }
    if let Some(Value::Array(items)) = map.get("content")
        && let Some((i, t)) = items
            .iter()
            .enumerate()
            .find(|(_, item)| {
                item.as_object()
                    .and_then(sniff_part)
                    .is_some_and(|f| f != Format::Gemini)
            })
            .and_then(|(i, item)| item.get("type").and_then(Value::as_str).map(|t| (i, t)))
    {
        return format!("has content[{i}] of type {t}", t = Quoted(t));
    }
    "does not have this format's shape".into()
}
