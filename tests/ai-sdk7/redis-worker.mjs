// One server process of tests/ai-sdk7/redis.test.mjs: a model wrapped with
// compaction whose conversation state lives in Redis (the store of the
// docs: get/set of JSON), serving the model calls the parent sends it.
import { createOpenAI } from "@ai-sdk/openai";
import { createClient } from "redis";
import { withCompaction } from "../../pkg/ai-sdk/index.mjs";

const [baseURL, redisUrl, name] = process.argv.slice(2);
const redis = createClient({ url: redisUrl });
await redis.connect();
const store = {
  get: async (key) => JSON.parse((await redis.get(key)) ?? "null"),
  set: async (key, value) => redis.set(key, JSON.stringify(value)),
};
const runs = [];
const provider = createOpenAI({ baseURL, apiKey: "test-key" });
const model = withCompaction(provider.chat("gpt-4o-mini"), { window: 32_000, store, onCompaction: (r) => runs.push({ statusName: r.statusName, estimate: r.estimate, newTokenCount: r.newTokenCount, summaryCalls: r.summaryCalls }) });

process.on("message", async ({ id, type, params }) => {
  if (type === "close") {
    await redis.quit();
    process.send({ id, runs, name });
    process.disconnect();
    return;
  }
  try {
    const result = await model.doGenerate(params);
    process.send({ id, result: { content: result.content, finishReason: result.finishReason, usage: result.usage, warnings: result.warnings ?? [], providerMetadata: result.providerMetadata } });
  } catch (error) {
    process.send({ id, error: String(error?.message ?? error) });
  }
});
process.send({ ready: name });
