//! Checked conversions of JS arguments into core values.

use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;
use wasm_bindgen::JsValue;

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

/// A JS value read into a typed options/data struct; `undefined` and `null`
/// give the default.
pub fn options<T: DeserializeOwned + Default>(value: JsValue, name: &str) -> Result<T, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(T::default());
    }
    typed(value, name)
}

/// A JS value read into a typed struct.
pub fn typed<T: DeserializeOwned>(value: JsValue, name: &str) -> Result<T, JsValue> {
    if !value.is_object() {
        return Err(invalid_argument(format!(
            "{name} must be an object, got {}",
            js_type(&value)
        )));
    }
    from_json(json(value, name)?, name)
}

/// JSON data read into a typed struct. serde's messages do not say which
/// field was wrong, so on an error each field is tried alone to name it.
pub fn from_json<T: DeserializeOwned>(value: Value, name: &str) -> Result<T, JsValue> {
    let error = match T::deserialize(&value) {
        Ok(typed) => return Ok(typed),
        Err(error) => error,
    };
    if let Value::Object(map) = &value {
        for (key, field) in map {
            let alone = Value::Object(std::iter::once((key.clone(), field.clone())).collect());
            if let Err(e) = T::deserialize(&alone)
                && !e.to_string().starts_with("missing field")
            {
                return Err(invalid_argument(format!("{name}.{key}: {e}")));
            }
        }
    }
    Err(invalid_argument(format!("{name}: {error}")))
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
