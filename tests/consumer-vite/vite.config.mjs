import { defineConfig } from "vite";
import wasm from "vite-plugin-wasm";

// The bundler build imports its .wasm as an ES module (WebAssembly ESM
// integration), which Vite supports through vite-plugin-wasm.
export default defineConfig({
  plugins: [wasm()],
  build: { target: "esnext", outDir: "dist", emptyOutDir: true },
  logLevel: "warn",
});
