//! The Vercel AI SDK's `ModelMessage` (`ai` v5 and v6, from
//! `@ai-sdk/provider-utils`), as `JSON.stringify` writes it.
//!
//! | message / part | becomes |
//! |---|---|
//! | `system` (string) | a pinned message of text |
//! | `user` (string, or parts `text`, `image`, `file`) | a user message; images and files are media |
//! | `assistant` (string, or parts `text`, `reasoning`, `file`, `tool-call`, `tool-result`, `tool-approval-request`) | a model message: text, thought text, media, `functionCall { id: toolCallId, name: toolName, args: input }`, and for provider-executed tools their result |
//! | `tool` (parts `tool-result`, `tool-approval-response`) | a user message with one `functionResponse` per result |
//!
//! A `tool-result`'s `output` becomes the response: `text` and `json` as
//! `{ output: value }`, `error-text` and `error-json` as `{ error: value }`,
//! `execution-denied` as `{ error: reason }`, `content` as its texts joined
//! with its media as nested parts. An approval request and its response
//! pair by `approvalId`, as calls and results do by `toolCallId`.
//!
//! Binary data stringified from a `Uint8Array` (an object of numbers) or a
//! `URL` (its `href`) is media like a base64 string; its bytes are never
//! read. A UI message (`UIMessage`, with `parts`) is not a `ModelMessage`:
//! `convertToModelMessages` turns one into the other.

use crate::prelude::*;

use crate::json::Quoted;

use crate::json;
use crate::json::{Map, Value};

use super::{
    CallRef, Format, Outcome, ReadMessage, Speaker, call_part, check_foreign, data_url_mime,
    file_media, foreign_message, inline_media, invalid, join_texts, mismatch, missing_role, object,
    observed_part, opt_string, part_type, response_part, role, sniff_part, string, text_part,
    thought_part, unknown_part,
};
use crate::content::Part;
use crate::error::Error;
use crate::read::describe;

const ROLES: &str = "\"system\", \"user\", \"assistant\" or \"tool\"";

/// Reads one AI SDK model message (see the module docs).
pub(crate) fn read_message(message: &Value, path: &str) -> Result<ReadMessage, Error> {
    let map = object(message, path, "a model message object { role, content }")?;
    if let Some(Value::Array(parts)) = map.get("parts")
        && !map.contains_key("content")
    {
        if parts
            .iter()
            .any(|p| p.get("type").is_some_and(Value::is_string))
        {
            return Err(invalid(format!(
                "{path} has \"parts\" of type {}: an AI SDK UI message? convert it with \
                 convertToModelMessages first",
                Quoted(
                    parts
                        .iter()
                        .find_map(|p| p.get("type").and_then(Value::as_str))
                        .unwrap_or_default()
                )
            )));
        }
        return Err(mismatch(path, "has \"parts\"", Format::Gemini));
    }
    check_foreign(map, path, Format::AiSdk)?;
    let role = role(map, path, ROLES)?.ok_or_else(|| invalid(missing_role(path, ROLES)))?;
    match role {
        "system" => match map.get("content") {
            Some(Value::String(text)) => {
                let mut read = ReadMessage::new("system", vec![text_part(text)]);
                read.pinned = true;
                Ok(read)
            }
            Some(other) => Err(invalid(format!(
                "{path}.content must be a string (a system message holds text), got {}",
                describe(other)
            ))),
            None => Err(invalid(format!("{path}.content is missing"))),
        },
        "user" | "assistant" | "tool" => {
            let core_role = if role == "assistant" { "model" } else { "user" };
            let mut read = ReadMessage::new(core_role, Vec::new());
            match map.get("content") {
                Some(Value::String(text)) if role != "tool" => {
                    read.content.parts.push(text_part(text));
                }
                Some(Value::Array(items)) => {
                    for (i, item) in items.iter().enumerate() {
                        read_part(item, &format!("{path}.content[{i}]"), role, &mut read)?;
                    }
                }
                Some(other) => {
                    let expected = if role == "tool" {
                        "an array of tool-result parts"
                    } else {
                        "a string or an array of parts"
                    };
                    return Err(invalid(format!(
                        "{path}.content must be {expected}, got {}",
                        describe(other)
                    )));
                }
                None => return Err(invalid(format!("{path}.content is missing"))),
            }
            read.tool_result = role == "tool";
            Ok(read)
        }
        "model" | "developer" => Err(foreign_message(
            map,
            path,
            Format::AiSdk,
            format!(
                "{path}.role must be {ROLES}, got {role}",
                role = Quoted(role)
            ),
        )),
        other => Err(invalid(format!(
            "{path}.role must be {ROLES}, got {other}",
            other = Quoted(other)
        ))),
    }
}

/// Which part types each role may hold.
fn allowed(role: &str, kind: &str) -> bool {
    match role {
        "user" => matches!(kind, "text" | "image" | "file"),
        "assistant" => matches!(
            kind,
            "text" | "file" | "reasoning" | "tool-call" | "tool-result" | "tool-approval-request"
        ),
        _ => matches!(kind, "tool-result" | "tool-approval-response"),
    }
}

fn read_part(item: &Value, path: &str, role: &str, read: &mut ReadMessage) -> Result<(), Error> {
    let map = object(item, path, "a content part { type, ... }")?;
    let kind = part_type(map, path)?;
    if !allowed(role, kind) {
        return Err(match sniff_part(map) {
            Some(format) if format != Format::AiSdk => mismatch(path, &observed_part(map), format),
            _ => invalid(format!(
                "{path} has type {kind}, which a {role} message does not hold",
                kind = Quoted(kind)
            )),
        });
    }
    let parts = &mut read.content.parts;
    match kind {
        "text" => parts.push(text_part(string(map, "text", path)?)),
        "reasoning" => parts.push(thought_part(string(map, "text", path)?)?),
        "image" => {
            let mime = opt_string(map, "mediaType", path)?;
            parts.push(data_media(
                map.get("image"),
                mime.unwrap_or("image/unknown"),
            )?);
        }
        "file" => {
            let mime = string(map, "mediaType", path)?;
            parts.push(data_media(map.get("data"), mime)?);
        }
        "tool-call" => {
            let id = string(map, "toolCallId", path)?;
            let name = string(map, "toolName", path)?;
            let input = map.get("input").cloned().unwrap_or(Value::Null);
            parts.push(call_part(Some(id), name, input)?);
            read.calls.push(CallRef::with_id(id, name, path));
        }
        "tool-result" => {
            let id = string(map, "toolCallId", path)?;
            let name = opt_string(map, "toolName", path)?;
            let (outcome, nested) = output(map, path)?;
            parts.push(response_part(Some(id), name, outcome, nested)?);
            read.answers
                .push(CallRef::with_id(id, name.unwrap_or_default(), path));
        }
        "tool-approval-request" => {
            let approval = string(map, "approvalId", path)?;
            parts.push(unknown_part(item));
            read.calls.push(CallRef::with_id(approval, "", path));
        }
        _ => {
            // tool-approval-response
            let approval = string(map, "approvalId", path)?;
            parts.push(unknown_part(item));
            read.answers.push(CallRef::with_id(approval, "", path));
        }
    }
    Ok(())
}

/// Media from `DataContent | URL` as stringified: a `data:` URL or base64
/// string or byte object is inline, an `http(s):` URL a reference.
fn data_media(data: Option<&Value>, mime: &str) -> Result<Part, Error> {
    match data {
        Some(Value::String(s)) if s.starts_with("http://") || s.starts_with("https://") => {
            file_media(mime, s)
        }
        Some(Value::String(s)) => inline_media(data_url_mime(s).unwrap_or(mime)),
        _ => inline_media(mime),
    }
}

/// A `tool-result`'s `output` (`ToolResultOutput`).
fn output(map: &Map, path: &str) -> Result<(Outcome, Vec<Part>), Error> {
    let output_path = format!("{path}.output");
    let output = match map.get("output") {
        Some(Value::Object(output)) => output,
        Some(other) => {
            return Err(invalid(format!(
                "{output_path} must be a tool result output {{ type, value }}, got {}",
                describe(other)
            )));
        }
        None => {
            let hint = if map.contains_key("result") {
                " (\"result\" is the AI SDK v4 shape; v5 and v6 use output: { type, value })"
            } else {
                ""
            };
            return Err(invalid(format!("{output_path} is missing{hint}")));
        }
    };
    let value = || output.get("value").cloned().unwrap_or(Value::Null);
    Ok(match part_type(output, &output_path)? {
        "text" | "json" => (Outcome::Output(value()), Vec::new()),
        "error-text" | "error-json" => (Outcome::Error(value()), Vec::new()),
        "execution-denied" => {
            let reason = opt_string(output, "reason", &output_path)?.unwrap_or("execution denied");
            (Outcome::Error(Value::String(reason.into())), Vec::new())
        }
        "content" => {
            let Some(Value::Array(items)) = output.get("value") else {
                return Err(invalid(format!(
                    "{output_path}.value must be an array of content parts"
                )));
            };
            let mut texts = Vec::new();
            let mut nested = Vec::new();
            for (i, item) in items.iter().enumerate() {
                let item_path = format!("{output_path}.value[{i}]");
                let part = object(item, &item_path, "a content part { type, ... }")?;
                match part_type(part, &item_path)? {
                    "text" => texts.push(string(part, "text", &item_path)?.to_string()),
                    "media" | "file-data" | "image-data" => nested.push(inline_media(
                        opt_string(part, "mediaType", &item_path)?.unwrap_or("image/unknown"),
                    )?),
                    "file-url" | "image-url" => nested.push(file_media(
                        opt_string(part, "mediaType", &item_path)?.unwrap_or("image/unknown"),
                        string(part, "url", &item_path)?,
                    )?),
                    "file-id" | "image-file-id" => nested.push(file_media(
                        opt_string(part, "mediaType", &item_path)?
                            .unwrap_or("application/octet-stream"),
                        "file-id",
                    )?),
                    // custom and newer parts: counted by their JSON.
                    _ => texts.push(item.to_string()),
                }
            }
            (Outcome::Output(Value::String(join_texts(&texts))), nested)
        }
        other => {
            return Err(invalid(format!(
                "{output_path}.type must be \"text\", \"json\", \"error-text\", \"error-json\", \
                 \"execution-denied\" or \"content\", got {other}",
                other = Quoted(other)
            )));
        }
    })
}

/// `{ role: "user" | "assistant", content: text }`.
pub(crate) fn write(role: Speaker, text: &str) -> Value {
    let role = match role {
        Speaker::User => "user",
        Speaker::Model => "assistant",
    };
    json!({ "role": role, "content": text })
}
