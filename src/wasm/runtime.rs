//! What `std` gives a wasm module and the web build, with no `std`,
//! supplies itself (issue 13): the allocator and the panic handler.
//!
//! Only `scripts/build` turns this on (`--features web-runtime`). The wasm
//! tests link `std` through wasm-bindgen-test, which brings its own.
//!
//! The panic handler traps at once, as `panic = "abort"` did with `std`,
//! but without formatting the message first: with `std`, every panic site
//! kept its message, its file and line, and the formatting code that
//! prints them (to nowhere, on wasm32-unknown-unknown), about 10 KB. No
//! input reaches a panic (the crate returns typed errors; `scripts/fuzz`
//! checks it), so nothing a user sees changes.

/// The allocator `std` uses on wasm32-unknown-unknown, as a crate.
#[global_allocator]
static ALLOCATOR: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}
