//! The JavaScript API: the only module that knows about JS.
//!
//! Every shape crossing the boundary is declared once, by hand, in
//! `types.d.ts` and referenced from the bindings with
//! `unchecked_param_type` / `unchecked_return_type`. Bad input from JS
//! becomes a `CompactionError` with a stable `code`; nothing from outside
//! can trap the module.

mod chat;
mod convert;
mod error;
mod functions;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = include_str!("types.d.ts");

/// Installs the panic hook, so that a bug (never bad input) shows its
/// message in the console instead of a bare "unreachable" trap.
#[wasm_bindgen(start, skip_typescript)]
fn start() {
    console_error_panic_hook::set_once();
}
