// The single-file build for webviews: the web build with the wasm embedded
// (./wasm_bytes.js, written by scripts/inline.mjs), instantiated
// synchronously when the module is evaluated, so a page opened from file://
// (where fetching a .wasm fails) works without an init() call. init and
// initSync stay exported (calling them again is harmless) so code written
// for ./web works.
import { initSync } from "./wasm.js";
import { wasmBase64 } from "./wasm_bytes.js";

function decode(base64) {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
initSync({ module: decode(wasmBase64) });

export { default, initSync } from "./wasm.js";
export * from "./api.js";
