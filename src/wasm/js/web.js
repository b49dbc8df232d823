// The web build's entry: the API, plus wasm-bindgen's `init` (async: fetches
// compaction_core_bg.wasm next to this file unless given a source) and
// `initSync`. Call one of them before anything else.
export { default, initSync } from "./wasm.js";
export * from "./api.js";
