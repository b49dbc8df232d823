// `node --import ./tests/sdk-current/hooks.mjs --test tests/js/sdk.test.mjs …`
// (Node 24, this folder's .node-version): the SDKs that tests/js/ imports
// ("openai", "@anthropic-ai/sdk", "@google/genai", "ai", "@ai-sdk/*")
// resolve to this folder's current majors instead of the Node 20 pins in
// tests/node_modules; everything else resolves as usual. For tests that run
// the SDKs in child processes (readme-loops.test.mjs) it also sets
// COMPACTION_SDK_MODULES to this folder's node_modules.
import { registerHooks } from "node:module";
import { fileURLToPath } from "node:url";

const modules = new URL("node_modules/", import.meta.url);
const SDK = /^(openai|ai|@anthropic-ai\/sdk|@google\/genai|@ai-sdk\/[^/]+)(\/.*)?$/;
// Resolved as if imported from a file of this folder, so its node_modules is searched first.
const parentURL = new URL("package.json", import.meta.url).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (SDK.test(specifier) && !context.parentURL?.startsWith(modules.href)) {
      return nextResolve(specifier, { ...context, parentURL });
    }
    return nextResolve(specifier, context);
  },
});

process.env.COMPACTION_SDK_MODULES = fileURLToPath(modules);
