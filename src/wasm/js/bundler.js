// The bundler build's entry: the wasm is imported as an ES module
// (WebAssembly ESM integration) and instantiated when this is imported.
export * from "./api.js";
