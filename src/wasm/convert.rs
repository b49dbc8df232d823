//! Checked conversions of JS arguments into core values.

use serde::{Serialize, de::DeserializeOwned};
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

/// Deeper than this is surely a cycle (or hostile): an error, not a stack overflow.
const MAX_DEPTH: usize = 256;

/// A JS value read as JSON data, the way `JSON.stringify` sees it:
/// `undefined` object fields are dropped, NaN and ±Infinity become null.
///
/// Written by hand rather than with serde-wasm-bindgen's deserializer: this
/// one walk serves every input, and the module does not carry a second
/// deserializer (with core's float formatting in its error messages) beside
/// serde_json's.
pub fn json(value: JsValue, name: &str) -> Result<Value, JsValue> {
    to_json(&value, 0)
        .map_err(|what| invalid_argument(format!("{name} is not plain data: {what}")))
}

fn to_json(value: &JsValue, depth: usize) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err(format!("nested more than {MAX_DEPTH} levels deep (a cycle?)"));
    }
    if value.is_null() || value.is_undefined() {
        return Ok(Value::Null);
    }
    if let Some(b) = value.as_bool() {
        return Ok(Value::Bool(b));
    }
    if let Some(n) = value.as_f64() {
        return Ok(number_value(n));
    }
    if let Some(s) = value.as_string() {
        return Ok(Value::String(s));
    }
    if let Some(array) = value.dyn_ref::<js_sys::Array>() {
        return array
            .iter()
            .map(|item| to_json(&item, depth + 1))
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
            let item = to_json(&item, depth + 1).map_err(|e| format!("{key}: {e}"))?;
            map.insert(key, item);
        }
        return Ok(Value::Object(map));
    }
    Err(format!("{} cannot be read as JSON", js_type(value)))
}

/// A JS number as JSON: integers stay integers, NaN and ±Infinity are null.
fn number_value(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() <= 9_007_199_254_740_991.0 {
        Value::from(n as i64)
    } else {
        serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
    }
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
    serde_json::from_value(json(value, name)?)
        .map_err(|e| invalid_argument(format!("{name}: {e}")))
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
