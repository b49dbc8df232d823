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

/// A JS value read as JSON data.
pub fn json(value: JsValue, name: &str) -> Result<Value, JsValue> {
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| invalid_argument(format!("{name} is not plain data: {e}")))
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
    serde_wasm_bindgen::from_value(value).map_err(|e| invalid_argument(format!("{name}: {e}")))
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

/// A Rust value as plain JS data: objects, not `Map`s.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| invalid_argument(format!("cannot convert a result to JS: {e}")))
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
