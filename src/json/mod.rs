//! The library's own JSON: a [`Value`] whose objects keep their key order
//! ([`Map`]), a reader ([`from_str`]) and a writer ([`to_string`],
//! [`ToJson`]) that read and write text as `JSON.parse` and
//! `JSON.stringify` do, and the [`json!`](crate::json!) macro to build
//! values in code.
//!
//! Written for the wasm module's size: serde and serde_json bring their
//! map, hash table and float printer there, generic code many times the
//! size of what the library does with JSON — read text the JS layer wrote
//! with `JSON.stringify`, look fields up, write results back (figures:
//! docs/performance.md). Internal to the crate: hosts get [`Value`],
//! [`Map`] and [`ToJson`] at the crate root, and with the `serde` feature
//! conversions to and from `serde_json::Value` (`serde.rs`).
//!
//! * `value.rs`: [`Value`] and [`Map`];
//! * `parse.rs`: the reader (RFC 8259; lone-surrogate escapes read as
//!   U+FFFD; a nesting limit, never a stack overflow);
//! * `write.rs`: the writer, [`ToJson`] and [`ObjectWriter`];
//! * `object.rs`: [`json_object!`], a struct's JSON object declared once
//!   (its writer and its key list);
//! * `number.rs`: numbers read and written exactly (the shortest digits
//!   that round-trip, as JavaScript writes them), without core's float
//!   parser and printer.
//!
//! ```
//! use compaction_core::Value;
//! let v: Value = r#"{"b": 1.5, "a": [true, null, "x\n"]}"#.parse().unwrap();
//! assert_eq!(v["b"], 1.5);
//! assert_eq!(v.to_string(), r#"{"b":1.5,"a":[true,null,"x\n"]}"#);
//! let built = compaction_core::json!({ "b": 1.5, "a": [true, null, "x\n"] });
//! assert_eq!(built, v);
//! ```

use crate::prelude::*;

mod number;
mod object;
mod parse;
#[cfg(feature = "serde")]
mod serde;
mod value;
mod write;

pub use number::number_to_string;
pub(crate) use object::json_object;
pub use parse::{ParseError, from_str, from_str_nested};
pub use value::{Map, Value};
pub(crate) use write::Quoted;
pub use write::{ObjectWriter, ToJson, WriteJson, write_str};

/// A value as compact JSON text.
pub fn to_string<T: ToJson + ?Sized>(value: &T) -> String {
    let mut out = String::new();
    value.write_json(&mut out);
    out
}

/// A value as a [`Value`] (given by value or by reference).
pub fn to_value<T: ToJson>(value: T) -> Value {
    value.to_json()
}

/// Builds a [`Value`] from JSON-like syntax: `null`, arrays, objects with
/// keys that are string literals, identifiers or parenthesized
/// expressions, and any expression of a type that is [`ToJson`].
///
/// ```
/// use compaction_core::json;
/// let name = "read";
/// let v = json!({ "name": name, "args": [1, 2.5, null, { "deep": true }], (name.len().to_string()): -1 });
/// assert_eq!(v.to_string(), r#"{"name":"read","args":[1,2.5,null,{"deep":true}],"4":-1}"#);
/// ```
#[macro_export]
macro_rules! json {
    ($($json:tt)+) => {
        $crate::json_internal!($($json)+)
    };
}

/// The workings of [`json!`](crate::json!).
#[macro_export]
#[doc(hidden)]
macro_rules! json_internal {
    (@array [$($elems:expr,)*]) => { $crate::__private::vec![$($elems,)*] };
    (@array [$($elems:expr),*]) => { $crate::__private::vec![$($elems),*] };
    (@array [$($elems:expr,)*] null $($rest:tt)*) => {
        $crate::json_internal!(@array [$($elems,)* $crate::__private::Value::Null] $($rest)*)
    };
    (@array [$($elems:expr,)*] [$($array:tt)*] $($rest:tt)*) => {
        $crate::json_internal!(@array [$($elems,)* $crate::json_internal!([$($array)*])] $($rest)*)
    };
    (@array [$($elems:expr,)*] {$($map:tt)*} $($rest:tt)*) => {
        $crate::json_internal!(@array [$($elems,)* $crate::json_internal!({$($map)*})] $($rest)*)
    };
    (@array [$($elems:expr,)*] $next:expr, $($rest:tt)*) => {
        $crate::json_internal!(@array [$($elems,)* $crate::__private::to_value(&$next),] $($rest)*)
    };
    (@array [$($elems:expr,)*] $last:expr) => {
        $crate::json_internal!(@array [$($elems,)* $crate::__private::to_value(&$last)])
    };
    (@array [$($elems:expr),*] , $($rest:tt)*) => {
        $crate::json_internal!(@array [$($elems,)*] $($rest)*)
    };

    (@object $map:ident) => {};
    (@object $map:ident $key:tt : null $(, $($rest:tt)*)?) => {
        $crate::__private::Map::insert_key(&mut $map, &$key, $crate::__private::Value::Null);
        $( $crate::json_internal!(@object $map $($rest)*); )?
    };
    (@object $map:ident $key:tt : [$($array:tt)*] $(, $($rest:tt)*)?) => {
        $crate::__private::Map::insert_key(&mut $map, &$key, $crate::json_internal!([$($array)*]));
        $( $crate::json_internal!(@object $map $($rest)*); )?
    };
    (@object $map:ident $key:tt : {$($inner:tt)*} $(, $($rest:tt)*)?) => {
        $crate::__private::Map::insert_key(&mut $map, &$key, $crate::json_internal!({$($inner)*}));
        $( $crate::json_internal!(@object $map $($rest)*); )?
    };
    (@object $map:ident $key:tt : $value:expr , $($rest:tt)*) => {
        $crate::__private::Map::insert_key(&mut $map, &$key, $crate::__private::to_value(&$value));
        $crate::json_internal!(@object $map $($rest)*);
    };
    (@object $map:ident $key:tt : $value:expr) => {
        $crate::__private::Map::insert_key(&mut $map, &$key, $crate::__private::to_value(&$value));
    };

    (null) => { $crate::__private::Value::Null };
    ([]) => { $crate::__private::Value::Array($crate::__private::Vec::new()) };
    ([ $($tt:tt)+ ]) => { $crate::__private::Value::Array($crate::json_internal!(@array [] $($tt)+)) };
    ({}) => { $crate::__private::Value::Object($crate::__private::Map::new()) };
    ({ $($tt:tt)+ }) => {{
        let mut map = $crate::__private::Map::new();
        $crate::json_internal!(@object map $($tt)+);
        $crate::__private::Value::Object(map)
    }};
    ($other:expr) => { $crate::__private::to_value(&$other) };
}

#[cfg(test)]
mod tests;
