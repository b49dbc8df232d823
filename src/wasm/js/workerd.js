// The edge build's entry (Cloudflare workerd, Vercel's edge-light): those
// runtimes take WebAssembly only as a module imported with the code (a
// `.wasm` import gives a compiled `WebAssembly.Module`; compiling bytes after
// start-up is refused), so the wasm is imported here and instantiated
// synchronously when this module is evaluated. The import names the web
// build's .wasm (scripts/build), so the package ships one copy of it.
import { initSync } from "./wasm.js";
import module from "./compaction_core_bg.wasm";

initSync({ module });

export * from "./api.js";
