//! Turning core errors into real JS `Error` objects with a stable `code`.

use js_sys::{Error as JsError, Reflect};
use wasm_bindgen::JsValue;

use crate::error::{Error, ErrorCode};

/// The `name` of every error this library throws.
pub const ERROR_NAME: &str = "CompactionError";

/// A JS `Error` named `CompactionError` with `.code`, and `.cause` when given.
pub fn js_error(code: &str, message: &str, cause: Option<&JsValue>) -> JsValue {
    let error = JsError::new(message);
    error.set_name(ERROR_NAME);
    // Reflect::set only fails on frozen or proxied objects; a fresh Error is neither.
    let _ = Reflect::set(&error, &JsValue::from_str("code"), &JsValue::from_str(code));
    if let Some(cause) = cause {
        let _ = Reflect::set(&error, &JsValue::from_str("cause"), cause);
    }
    error.into()
}

impl From<Error> for JsValue {
    fn from(error: Error) -> JsValue {
        js_error(error.code().as_str(), error.message(), None)
    }
}

/// An `INVALID_ARGUMENT` error.
pub fn invalid_argument(message: String) -> JsValue {
    Error::new(ErrorCode::InvalidArgument, message).into()
}
