//! OpenAI Responses API input items (`openai`'s `ResponseInputItem`), and the
//! same items as the OpenAI Agents SDK (`@openai/agents`) keeps them in its
//! sessions (`callId`, `function_call_result`).
//!
//! Each item is one host message, so a tool-using turn is several items in
//! a row (a `reasoning` item, a `function_call` per parallel call, then a
//! `function_call_output` each).
//!
//! | item | becomes |
//! |---|---|
//! | `message` (or `{ role, content }` without a type) `system`, `developer` | a pinned message of text |
//! | `message` `user` (string, or `input_text`, `input_image`, `input_file`, `input_audio`) | a user message; images, files and audio are media |
//! | `message` `assistant` (string, or `output_text`, `refusal`) | a model message of text |
//! | `function_call` (`call_id` / `callId`, `name`, `arguments`) | a model message with one `functionCall` (`arguments` read as [`super::openai`] reads it) |
//! | `function_call_output` / `function_call_result` | a user message with one `functionResponse` answering that id; media in an array output as nested parts |
//! | `reasoning` (`summary`, `content`) | a model message of thought text: counted, never written into a summary request (summarizers skip thoughts); it goes with the turn it belongs to and stays verbatim (with its `encrypted_content`) in a kept tail |
//! | `compaction` (OpenAI's server-side compaction, opaque `encrypted_content`) | a pinned message of one unknown part: counted by its JSON, never summarized again, kept in order before the summary |
//! | other tool calls and outputs (`custom_tool_call`, hosted and built-in tools: `*_call` with a call id, `*_call_output`), `item_reference`, newer items | model (calls) or user (outputs) messages of one unknown part, counted by their JSON and paired by call id when they have one |

use crate::prelude::*;

use crate::json::Quoted;

use crate::json::{Map, Value};

use super::langchain::{blocks, media};
use super::openai::arguments_value;
use super::{
    CallNames, CallRef, Format, Outcome, ReadMessage, Speaker, call_part, foreign_message, invalid,
    join_texts, mismatch, object, opt_string, part_type, response_part, sniff_message, string,
    thought_part, unknown_part,
};
use crate::content::Part;
use crate::error::Error;
use crate::read::describe;

const ROLES: &str = "\"system\", \"developer\", \"user\" or \"assistant\"";

/// Reads one Responses input item (see the module docs).
pub(crate) fn read_message(
    message: &Value,
    path: &str,
    names: &CallNames,
) -> Result<ReadMessage, Error> {
    let map = object(message, path, "a Responses input item { type, ... }")?;
    let kind = match map.get("type") {
        None | Some(Value::Null) => None,
        Some(Value::String(kind)) => Some(kind.as_str()),
        Some(other) => {
            return Err(invalid(format!(
                "{path}.type must be a string, got {}",
                describe(other)
            )));
        }
    };
    match kind {
        None | Some("message") => message_item(map, path),
        Some("function_call") => {
            let id = call_id(map, path)?;
            let name = string(map, "name", path)?;
            let arguments = string(map, "arguments", path)?;
            call(id, name, arguments_value(arguments), path)
        }
        Some("function_call_output" | "function_call_result") => {
            let id = call_id(map, path)?;
            let (texts, nested) = output(map, path)?;
            let name = opt_string(map, "name", path)?.or(names.get(id).map(String::as_str));
            let outcome = Outcome::Output(Value::String(join_texts(&texts)));
            let mut read = ReadMessage::new(
                "user",
                vec![response_part(Some(id), name, outcome, nested)?],
            );
            read.tool_result = true;
            read.answers.push(CallRef::with_id(id, "", path));
            Ok(read)
        }
        Some("reasoning") => reasoning(map, path),
        Some("compaction") => {
            // Opaque: the model reads it, nobody else can. It stays as it
            // is, before the summary, in the order it came.
            let mut read = ReadMessage::new("system", vec![unknown_part(message)]);
            read.pinned = true;
            Ok(read)
        }
        Some(other) => {
            if let Some(format) = sniff_message(map).filter(|f| *f != Format::OpenAiResponses) {
                return Err(mismatch(path, &super::observed_message(map), format));
            }
            // Hosted and built-in tool calls, their outputs, item
            // references, newer items: counted whole, paired by call id.
            let id = match (map.get("call_id"), map.get("callId")) {
                (Some(Value::String(id)), _) | (None, Some(Value::String(id))) => Some(id.as_str()),
                _ => None,
            };
            let output = other.ends_with("_output") || other.ends_with("_result");
            let mut read = ReadMessage::new(
                if output { "user" } else { "model" },
                vec![unknown_part(message)],
            );
            if let Some(id) = id {
                if output {
                    read.tool_result = true;
                    read.answers.push(CallRef::with_id(id, "", path));
                } else {
                    read.calls.push(CallRef::with_id(id, other, path));
                }
            }
            Ok(read)
        }
    }
}

/// `call_id` (the API's) or `callId` (the Agents SDK's).
fn call_id<'a>(map: &'a Map, path: &str) -> Result<&'a str, Error> {
    if map.contains_key("callId") && !map.contains_key("call_id") {
        return string(map, "callId", path);
    }
    string(map, "call_id", path)
}

fn call(id: &str, name: &str, args: Value, path: &str) -> Result<ReadMessage, Error> {
    let mut read = ReadMessage::new("model", vec![call_part(Some(id), name, args)?]);
    read.calls.push(CallRef::with_id(id, name, path));
    Ok(read)
}

fn message_item(map: &Map, path: &str) -> Result<ReadMessage, Error> {
    let role = match map.get("role") {
        Some(Value::String(role)) => role.as_str(),
        other => {
            let fallback = match other {
                None => format!("{path}.role is missing (expected {ROLES})"),
                Some(other) => format!("{path}.role must be {ROLES}, got {}", describe(other)),
            };
            return Err(foreign_message(
                map,
                path,
                Format::OpenAiResponses,
                fallback,
            ));
        }
    };
    // (`developer` is a Responses role too, not only a chat one.)
    let foreign = sniff_message(map).filter(|f| *f != Format::OpenAiResponses);
    if let Some(format) = foreign.filter(|_| role != "developer") {
        // `{ role: "user", content: "hi" }` reads in several formats; a
        // telltale of another (tool_calls, parts, tool-call parts) does not.
        return Err(mismatch(path, &super::observed_message(map), format));
    }
    let (core_role, pinned) = match role {
        "system" | "developer" => (role, true),
        "user" => ("user", false),
        "assistant" => ("model", false),
        other => {
            return Err(foreign_message(
                map,
                path,
                Format::OpenAiResponses,
                format!("{path}.role must be {ROLES}, got {}", Quoted(other)),
            ));
        }
    };
    let content = map
        .get("content")
        .ok_or_else(|| invalid(format!("{path}.content is missing")))?;
    let mut read = ReadMessage::new(core_role, blocks(content, path, &[], Some(role))?);
    read.pinned = pinned;
    Ok(read)
}

/// A tool output: a string, an Agents SDK `{ type: "text" | "image" |
/// "file" }` object, or an array of input parts.
fn output(map: &Map, path: &str) -> Result<(Vec<String>, Vec<Part>), Error> {
    let output_path = format!("{path}.output");
    let mut texts = Vec::new();
    let mut nested = Vec::new();
    let mut one = |item: &Map, item_path: &str| -> Result<(), Error> {
        match part_type(item, item_path)? {
            "input_text" | "text" | "output_text" => {
                texts.push(string(item, "text", item_path)?.to_string());
            }
            kind @ ("input_image" | "input_file" | "image" | "file") => {
                nested.push(media(item, kind)?);
            }
            // Newer parts: counted by their JSON.
            _ => texts.push(Value::Object(item.clone()).to_string()),
        }
        Ok(())
    };
    match map.get("output") {
        Some(Value::String(text)) => texts.push(text.clone()),
        Some(Value::Object(item)) => one(item, &output_path)?,
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let item_path = format!("{output_path}[{i}]");
                one(
                    object(item, &item_path, "an output part { type, ... }")?,
                    &item_path,
                )?;
            }
        }
        Some(other) => {
            return Err(invalid(format!(
                "{output_path} must be a string or an array of output parts, got {}",
                describe(other)
            )));
        }
        None => return Err(invalid(format!("{output_path} is missing"))),
    }
    Ok((texts, nested))
}

/// A `reasoning` item: its readable summary and content as thought text.
fn reasoning(map: &Map, path: &str) -> Result<ReadMessage, Error> {
    let mut parts = Vec::new();
    for key in ["summary", "content", "rawContent"] {
        if let Some(Value::Array(items)) = map.get(key) {
            for (i, item) in items.iter().enumerate() {
                let item_path = format!("{path}.{key}[{i}]");
                let item = object(item, &item_path, "a reasoning text { type, text }")?;
                parts.push(thought_part(string(item, "text", &item_path)?)?);
            }
        }
    }
    Ok(ReadMessage::new("model", parts))
}

/// `{ type: "message", role: "user", content: [{ type: "input_text", text }] }`
/// or the assistant's `output_text` message (with the `status` the Agents
/// SDK requires of an assistant item).
pub(crate) fn write(role: Speaker, text: &str) -> Value {
    let (head, kind) = match role {
        Speaker::User => (r#"{"type":"message","role":"user","#, "input_text"),
        Speaker::Model => (
            r#"{"type":"message","role":"assistant","status":"completed","#,
            "output_text",
        ),
    };
    super::template(
        &[head, r#""content":[{"type":""#, kind, r#"","text":"#],
        text,
        "}]}",
    )
}

/// Whether `kind` is a Responses item type, for telling a Responses item
/// from another format's message: the message, reasoning and compaction
/// items, and every tool call and its output (`*_call`, `*_call_output`,
/// the Agents SDK's `function_call_result`, MCP's items).
pub(crate) fn is_item_type(kind: &str) -> bool {
    matches!(
        kind,
        "message" | "reasoning" | "compaction" | "item_reference" | "function_call_result"
    ) || kind.ends_with("_call")
        || kind.ends_with("_call_output")
        || kind.starts_with("mcp_")
}
