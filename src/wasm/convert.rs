//! Checked conversions of JS arguments into core values.

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::{JsCast, JsValue};

use super::error::invalid_argument;
use crate::content::Content;
use crate::error::{Error, ErrorCode};

/// A JS number argument: a real `number`, not a string, `null` or `undefined`
/// that JS would coerce silently.
pub fn number(value: &JsValue, name: &str) -> Result<f64, JsValue> {
    value
        .as_f64()
        .ok_or_else(|| invalid_argument(format!("{name} must be a number, got {}", js_type(value))))
}

/// A JS value read as JSON data, exactly as `JSON.stringify` sees it
/// (`undefined` fields dropped, NaN and ±Infinity as null, `toJSON`
/// honoured). The engine's own JSON text is parsed by serde_json: one
/// deserializer serves every input, which keeps the module small, and the
/// browser's native stringify is the fastest way across the boundary.
pub fn json(value: JsValue, name: &str) -> Result<Value, JsValue> {
    if value.is_undefined() {
        return Ok(Value::Null);
    }
    let text = js_sys::JSON::stringify(&value).map_err(|e| {
        invalid_argument(format!("{name} is not plain data: {}", thrown_message(&e)))
    })?;
    let text = String::from(text);
    serde_json::from_str(&text)
        .map_err(|e| invalid_argument(format!("{name} is not plain data: {e}")))
}

/// The message of a thrown JS value.
pub fn thrown_message(error: &JsValue) -> String {
    js_sys::Reflect::get(error, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| error.as_string())
        .unwrap_or_else(|| js_type(error))
}

/// Like [`json`], for small option objects: read field by field (no JSON
/// text round trip, which costs more than the work on a short call), and a
/// number that is NaN or infinite is an error naming its field, not a
/// silent null (the default).
pub fn json_strict(value: JsValue, name: &str) -> Result<Value, JsValue> {
    strict_value(&value, name, 0)
}

fn strict_value(value: &JsValue, path: &str, depth: usize) -> Result<Value, JsValue> {
    if depth > 32 {
        return Err(invalid_argument(format!(
            "{path} is nested too deeply for options"
        )));
    }
    if value.is_undefined() || value.is_null() {
        return Ok(Value::Null);
    }
    if let Some(b) = value.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Some(n) = value.as_f64() {
        return if !n.is_finite() {
            Err(invalid_argument(format!(
                "{path} must be a finite number, got {}",
                crate::error::show_number(n)
            )))
        } else if n.fract() == 0.0 && n.abs() <= crate::read::Fields::MAX_SAFE {
            // Whole numbers as integers, as JSON.stringify writes them.
            Ok(Value::from(n as i64))
        } else {
            Ok(serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number))
        };
    }
    if let Some(s) = value.as_string() {
        return Ok(Value::String(s));
    }
    if let Some(array) = value.dyn_ref::<js_sys::Array>() {
        return array
            .iter()
            .enumerate()
            .map(|(i, item)| strict_value(&item, &format!("{path}[{i}]"), depth + 1))
            .collect::<Result<Vec<_>, _>>()
            .map(Value::Array);
    }
    if value.is_object() && !value.is_function() {
        let mut map = serde_json::Map::new();
        for entry in js_sys::Object::entries(value.unchecked_ref()).iter() {
            let entry: js_sys::Array = entry.unchecked_into();
            let item = entry.get(1);
            if item.is_undefined() {
                continue;
            }
            let key = entry.get(0).as_string().unwrap_or_default();
            let item = strict_value(&item, &format!("{path}.{key}"), depth + 1)?;
            map.insert(key, item);
        }
        return Ok(Value::Object(map));
    }
    Err(invalid_argument(format!(
        "{path} cannot be {}",
        js_type(value)
    )))
}

/// A message list.
pub fn contents(value: JsValue, name: &str) -> Result<Vec<Content>, JsValue> {
    if !js_sys::Array::is_array(&value) {
        return Err(Error::new(
            ErrorCode::InvalidContent,
            format!(
                "{name} must be an array of messages, got {}",
                js_type(&value)
            ),
        )
        .into());
    }
    Content::list_from_value(json(value, name)?, name).map_err(Into::into)
}

/// One message.
pub fn content(value: JsValue, name: &str) -> Result<Content, JsValue> {
    Content::from_value(json(value, name)?, name).map_err(Into::into)
}

/// A Rust value as plain JS data, through JSON text and `JSON.parse`: the
/// one serializer the module already has (serde_json), rather than a second
/// one instantiated for every type.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    let text = serde_json::to_string(value)
        .map_err(|e| invalid_argument(format!("cannot convert a result to JS: {e}")))?;
    js_sys::JSON::parse(&text)
}

/// `typeof`-style description of a JS value for error messages.
pub fn js_type(value: &JsValue) -> String {
    if value.is_null() {
        "null".into()
    } else if js_sys::Array::is_array(value) {
        "an array".into()
    } else if let Some(s) = value.as_string() {
        if s.chars().count() > 40 {
            "a string".into()
        } else {
            format!("the string {s:?}")
        }
    } else if let Some(n) = value.as_f64() {
        format!("the number {}", crate::error::show_number(n))
    } else {
        format!(
            "a value of type {}",
            value.js_typeof().as_string().unwrap_or_default()
        )
    }
}
