// The Node build's entry (bundled to CommonJS): the wasm is read and
// instantiated synchronously when the module is loaded.
export * from "./api.js";
