//! What `std` gives a wasm module and the web build, with no `std`,
//! supplies itself (size, docs/performance.md): the allocator and the panic handler.
//!
//! Only `scripts/build` turns this on (`--features web-runtime`). The wasm
//! tests link `std` through wasm-bindgen-test, which brings its own.
//!
//! The panic handler traps at once, as `panic = "abort"` did with `std`,
//! without formatting the message: std's panic path (its hook, the
//! message's formatting and printing, to nowhere on wasm32-unknown-unknown)
//! is not linked. With `thread_local!` gone too, the no-std step made the
//! web build smaller (docs/performance.md); the panic sites' messages
//! and locations stay in the data, since core's prebuilt panics take them.
//! No input reaches a panic (the crate returns typed errors;
//! `scripts/fuzz` checks it), so nothing a user sees changes.

/// The allocator `std` uses on wasm32-unknown-unknown, as a crate.
#[global_allocator]
static ALLOCATOR: dlmalloc::GlobalDlmalloc = dlmalloc::GlobalDlmalloc;

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}
