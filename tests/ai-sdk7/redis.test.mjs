// State that outlives one process (issue 21): two Node processes serve
// alternate model calls of one conversation, each through its own wrapped
// model, sharing a real Redis (Debian's redis-server, started here on
// 127.0.0.1 with a port of its own, no persistence; the npm `redis`
// client). A compaction made by one is re-applied by the other from the
// stored state: no step overflows the mock's 32,000-token window and no
// compaction is summarized twice (every summary request is one run's).
import assert from "node:assert/strict";
import { fork, spawn } from "node:child_process";
import { once } from "node:events";
import net from "node:net";
import { test } from "node:test";
import * as ai from "ai";
import { checkRun, mockProvider, tools } from "../js/ai-sdk-loop.mjs";
import { createOpenAI } from "@ai-sdk/openai";

const TURNS = Number(process.env.AI_SDK_TURNS ?? 30);
const stop = ai.isStepCount ?? ai.stepCountIs;

/** A free TCP port on 127.0.0.1. */
async function freePort() {
  const server = net.createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  server.close();
  await once(server, "close");
  return port;
}

async function startRedis() {
  const port = await freePort();
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  const deadline = Date.now() + 15_000;
  while (!/Ready to accept connections/.test(out)) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`redis-server did not start: ${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => child.kill("SIGTERM") };
}

function worker(baseURL, redisUrl, name) {
  const child = fork(new URL("./redis-worker.mjs", import.meta.url), [baseURL, redisUrl, name], { serialization: "advanced" });
  const waiting = new Map();
  let next = 0;
  const ready = new Promise((resolve) => child.once("message", resolve));
  child.on("message", (m) => {
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.error) w.reject(new Error(m.error));
    else w.resolve(m);
  });
  const ask = (message) =>
    new Promise((resolve, reject) => {
      const id = next++;
      waiting.set(id, { resolve, reject });
      child.send({ id, ...message });
    });
  return { ready, ask, child };
}

test(`two processes, one conversation, state in Redis (Node ${process.versions.node})`, async () => {
  const redis = await startRedis();
  const { mock } = await mockProvider(createOpenAI);
  const workers = [worker(mock.baseURL, redis.url, "A"), worker(mock.baseURL, redis.url, "B")];
  try {
    await Promise.all(workers.map((w) => w.ready));
    let calls = 0;
    const served = [0, 0];
    // The app's model: each call goes to the next process, as a load balancer would send it.
    const model = {
      specificationVersion: "v4", provider: "openai.chat", modelId: "gpt-4o-mini", supportedUrls: {},
      async doGenerate(params) {
        const i = calls++ % 2;
        served[i] += 1;
        const { abortSignal, ...plain } = params;
        const { result } = await workers[i].ask({ type: "generate", params: plain });
        return { ...result, request: {}, response: { id: `r${calls}`, timestamp: new Date(0), modelId: "gpt-4o-mini" } };
      },
      async doStream() {
        throw new Error("not used");
      },
    };
    const messages = [];
    const toolSet = tools(ai);
    for (let turn = 0; turn < TURNS; turn++) {
      messages.push({ role: "user", content: `Turn ${turn}: read the files and make the change.` });
      const result = await ai.generateText({ model, instructions: "You are a coding agent.", messages, tools: toolSet, stopWhen: stop(4) });
      messages.push(...result.responseMessages);
    }
    const closed = await Promise.all(workers.map((w) => w.ask({ type: "close" })));
    const runs = closed.flatMap((c) => c.runs);
    assert.ok(served[0] > 10 && served[1] > 10, `both processes served calls: ${served}`);
    assert.ok(closed.every((c) => c.runs.some((r) => r.statusName === "COMPRESSED")), "each process compacted at least once");
    const figures = checkRun(mock, runs, messages);
    console.log(`redis: ${JSON.stringify({ ...figures, served })}`);
  } finally {
    for (const w of workers) if (w.child.connected) w.child.kill();
    await mock.close();
    redis.stop();
  }
});
