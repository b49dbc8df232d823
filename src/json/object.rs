//! [`json_object!`]: a struct's JSON object declared once — each field's
//! Rust name and JSON key, in the order written, and whether it is left
//! out when absent — yielding its [`ToJson`](super::ToJson) writer and,
//! on request, its key list (`FIELDS`), which the readers of shapes that
//! come back (a saved state, options) pass to
//! [`Fields::only`](crate::read::Fields::only). With `fields` before the
//! type, it yields `write_fields` instead of the writer: the fields written
//! into an object being written, for the parts the options hold flat.
//!
//! ```text
//! json_object! {
//!     /// The ladder as the JS API returns it.
//!     Thresholds {
//!         window: "window",                    // always written
//!         max_output_tokens?: "maxOutputTokens", // an Option, left out when None
//!         created?(Vec::is_empty): "created",  // left out when the test holds
//!     }
//!     pub const FIELDS;                        // optional: the keys, in order
//! }
//! json_object! {
//!     /// Writes the two fields into an object being written.
//!     pub(crate) fields RetentionSettings { … }  // `write_fields`, no writer
//!     pub(crate) const FIELDS;
//! }
//! ```
//!
//! The writer is what a hand-written one was: an [`ObjectWriter`](super::ObjectWriter)
//! and one `field` call per key, so the text and the wasm are unchanged. `tests/types_dts.rs`
//! holds what these write to `src/wasm/types.d.ts`.
//!
//! Written by hand, and why:
//!
//! * enums written as a string or a number (`Tier`, `ThresholdRule`,
//!   `CompactionStatus`, `Trigger`, `NoopReason`, `Method`, `Format`,
//!   `Operation`, `RetentionRule`, `Estimator`, `TokenizerFamily`): a name,
//!   not an object;
//! * `Content` and `Part`: Gemini's wire shapes, written from what was read,
//!   unknown fields included;
//! * `CompactionOptions` (flat: its parts' fields in one object through
//!   their `write_fields`, `format` only when not Gemini), `FitOptions`
//!   (`fallback` is a flag written as the string `"ledger"`,
//!   `clearToolOutputs` only when true) and `EstimateOptions`' fields
//!   (src/estimate, flattened the same way); `RetentionSettings`' writer
//!   is its declared `write_fields` in an object;
//! * `CompactionOutcome`: generic over the message type, its values read
//!   through methods, `overBy`, `head`, `pinned` and `cause` written
//!   depending on the status;
//! * the JSON API's own: `Step` (an enum), `ChatState` (borrows the
//!   ladder), the functions' `Writer` (a list written by a function).

/// Declares a struct's JSON object once: its [`ToJson`](crate::json::ToJson)
/// writer and, with `pub const FIELDS;` (any visibility, any name) after
/// the fields, its keys in order. See the [module](self).
macro_rules! json_object {
    (
        $(#[$meta:meta])*
        $ty:ident $body:tt
        $($vis:vis const $keys:ident;)?
    ) => {
        $(#[$meta])*
        impl $crate::json::ToJson for $ty {
            fn write_json(&self, out: &mut $crate::prelude::String) {
                let mut o = $crate::json::ObjectWriter::new(out);
                $crate::json::json_object!(@write o self $body);
                o.end();
            }
        }
        $(
            impl $ty {
                /// The JSON keys, in the order written.
                $vis const $keys: [&'static str; $crate::json::json_object!(@count $body)] =
                    $crate::json::json_object!(@keys [] $body);
            }
        )?
    };

    (
        $(#[$meta:meta])*
        $fvis:vis fields $ty:ident $body:tt
        $($vis:vis const $keys:ident;)?
    ) => {
        impl $ty {
            $(#[$meta])*
            $fvis fn write_fields(&self, o: &mut $crate::json::ObjectWriter<'_>) {
                $crate::json::json_object!(@write o self $body);
            }
            $(
                /// The JSON keys, in the order written.
                $vis const $keys: [&'static str; $crate::json::json_object!(@count $body)] =
                    $crate::json::json_object!(@keys [] $body);
            )?
        }
    };

    // The writer, one field at a time.
    (@write $o:ident $s:ident { $($fields:tt)* }) => {
        $crate::json::json_object!(@write $o $s $($fields)*);
    };
    (@write $o:ident $s:ident) => {};
    (@write $o:ident $s:ident $f:ident : $key:literal $(, $($rest:tt)*)?) => {
        $o.field($key, &$s.$f);
        $crate::json::json_object!(@write $o $s $($($rest)*)?);
    };
    (@write $o:ident $s:ident $f:ident ? : $key:literal $(, $($rest:tt)*)?) => {
        if let Some(value) = &$s.$f {
            $o.field($key, value);
        }
        $crate::json::json_object!(@write $o $s $($($rest)*)?);
    };
    (@write $o:ident $s:ident $f:ident ? ($skip:expr) : $key:literal $(, $($rest:tt)*)?) => {
        if !($skip)(&$s.$f) {
            $o.field($key, &$s.$f);
        }
        $crate::json::json_object!(@write $o $s $($($rest)*)?);
    };

    // The keys, as an array.
    (@keys [] { $($fields:tt)* }) => { $crate::json::json_object!(@keys [] $($fields)*) };
    (@keys [$($k:literal)*]) => { [$($k),*] };
    (@keys [$($k:literal)*] $f:ident $(? $(($skip:expr))?)? : $key:literal $(, $($rest:tt)*)?) => {
        $crate::json::json_object!(@keys [$($k)* $key] $($($rest)*)?)
    };

    // How many keys.
    (@count { $($fields:tt)* }) => { $crate::json::json_object!(@count $($fields)*) };
    (@count) => { 0 };
    (@count $f:ident $(? $(($skip:expr))?)? : $key:literal $(, $($rest:tt)*)?) => {
        1 + $crate::json::json_object!(@count $($($rest)*)?)
    };
}

pub(crate) use json_object;

#[cfg(test)]
mod tests {
    use crate::prelude::*;

    use crate::json::to_string;

    struct Sample {
        count: u64,
        name: Option<&'static str>,
        names: Vec<String>,
    }

    json_object! {
        Sample {
            count: "count",
            name?: "theName",
            names?(Vec::is_empty): "names",
        }
        pub(crate) const KEYS;
    }

    struct Part {
        a: bool,
        b: Option<u32>,
    }

    json_object! {
        fields Part {
            a: "a",
            b?: "b",
        }
        const KEYS;
    }

    #[test]
    fn writes_fields_into_an_object_being_written() {
        let mut out = String::new();
        let mut o = crate::json::ObjectWriter::new(&mut out);
        o.field("first", &1);
        Part {
            a: true,
            b: Some(3),
        }
        .write_fields(&mut o);
        Part { a: false, b: None }.write_fields(&mut o);
        o.end();
        assert_eq!(out, r#"{"first":1,"a":true,"b":3,"a":false}"#);
        assert_eq!(Part::KEYS, ["a", "b"]);
    }

    #[test]
    fn writes_the_declared_fields_in_order_and_lists_their_keys() {
        let full = Sample {
            count: 2,
            name: Some("a"),
            names: vec!["x".into()],
        };
        assert_eq!(
            to_string(&full),
            r#"{"count":2,"theName":"a","names":["x"]}"#
        );
        let bare = Sample {
            count: 0,
            name: None,
            names: Vec::new(),
        };
        assert_eq!(to_string(&bare), r#"{"count":0}"#);
        assert_eq!(Sample::KEYS, ["count", "theName", "names"]);
    }
}
