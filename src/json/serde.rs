//! Conversions between [`Value`] and `serde_json::Value`, behind the
//! `serde` feature: for a Rust host that keeps its messages as serde values.
//! The web build never turns the feature on.
//!
//! Both ways are lossless for what JSON text holds as `JSON.parse` reads it,
//! with serde_json's own limits: a whole number within `i64` or `u64`
//! becomes one of those (so serde_json writes `1`, not `1.0`, as JavaScript
//! does), any other number an `f64`; a non-finite number (which a [`Value`]
//! built by hand may hold) becomes `null`, as `JSON.stringify` writes it.
//! Objects keep their key order into a [`Value`]; into serde_json they take
//! the order of its `Map` (sorted by key unless the host enables
//! serde_json's `preserve_order`). From serde_json, a number reads as the
//! nearest `f64`, as `JSON.parse` reads it.
//!
//! ```
//! use compaction_core::{Value, json};
//! let ours = json!({ "role": "user", "n": 1, "x": 0.5, "parts": [null, true] });
//! let theirs = serde_json::Value::from(ours.clone());
//! assert_eq!(theirs.to_string(), r#"{"n":1,"parts":[null,true],"role":"user","x":0.5}"#);
//! assert_eq!(Value::from(theirs)["parts"], ours["parts"]);
//! ```

use super::value::{Map, Value};

/// 2^63 and 2^64 as `f64`: the ends of the `i64` and `u64` ranges, exact.
const TWO_63: f64 = 9_223_372_036_854_775_808.0;
const TWO_64: f64 = 18_446_744_073_709_551_616.0;

fn number(x: f64) -> serde_json::Value {
    // A whole number as an integer (serde_json writes `1.0` for the f64);
    // `-0` stays a float, so its sign survives.
    if !(x == 0.0 && x.is_sign_negative()) {
        if (-TWO_63..TWO_63).contains(&x) && (x as i64) as f64 == x {
            return serde_json::Value::from(x as i64);
        }
        if (0.0..TWO_64).contains(&x) && (x as u64) as f64 == x {
            return serde_json::Value::from(x as u64);
        }
    }
    serde_json::Number::from_f64(x).map_or(serde_json::Value::Null, serde_json::Value::Number)
}

impl From<Value> for serde_json::Value {
    fn from(value: Value) -> serde_json::Value {
        match value {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(b),
            Value::Number(x) => number(x),
            Value::String(s) => serde_json::Value::String(s),
            Value::Array(items) => {
                serde_json::Value::Array(items.into_iter().map(serde_json::Value::from).collect())
            }
            Value::Object(map) => serde_json::Value::Object(
                map.into_iter()
                    .map(|(k, v)| (k, serde_json::Value::from(v)))
                    .collect(),
            ),
        }
    }
}

impl From<&Value> for serde_json::Value {
    fn from(value: &Value) -> serde_json::Value {
        serde_json::Value::from(value.clone())
    }
}

impl From<serde_json::Value> for Value {
    fn from(value: serde_json::Value) -> Value {
        match value {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            // Every serde_json number has an f64 reading (the nearest).
            serde_json::Value::Number(n) => n.as_f64().map_or(Value::Null, Value::Number),
            serde_json::Value::String(s) => Value::String(s),
            serde_json::Value::Array(items) => {
                Value::Array(items.into_iter().map(Value::from).collect())
            }
            serde_json::Value::Object(map) => Value::Object(
                map.into_iter()
                    .map(|(k, v)| (k, Value::from(v)))
                    .collect::<Map>(),
            ),
        }
    }
}

impl From<&serde_json::Value> for Value {
    fn from(value: &serde_json::Value) -> Value {
        Value::from(value.clone())
    }
}
