// Where tests/js/ resolves each SDK it imports (tests/sdk-current/versions.test.mjs
// checks that, under tests/sdk-current/hooks.mjs, these are the current majors).
export const SDK_NAMES = ["openai", "@anthropic-ai/sdk", "@google/genai", "ai", "@ai-sdk/openai"];
export const resolved = Object.fromEntries(SDK_NAMES.map((name) => [name, import.meta.resolve(name)]));
