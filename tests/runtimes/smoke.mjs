// The package's smoke suite, the same in every runtime (Node, Deno, Bun,
// workerd, browsers): thresholds, estimates, a typed error, a chat that
// compacts a history through a summarizer, save and restore. It imports
// nothing: the caller passes what its runtime got from
// `import … from "compaction-core"` (cc) and "compaction-core/summarizers"
// (sm), so each runtime is tried through its own resolution of the package.
// Returns plain JSON data; runtimes.test.mjs compares every runtime's answer
// with the one Node's pkg/node gives, and checks what must hold in any.

/** A coding session in the default (Gemini) shape, long enough to pass `auto` at a 32 000 window. */
export function sessionHistory(turns = 40) {
  const history = [];
  for (let i = 0; i < turns; i++) {
    history.push({ role: "user", parts: [{ text: `Step ${i}: refactor src/mod${i}.rs and keep its public API.` }] });
    history.push({ role: "model", parts: [{ functionCall: { id: `c${i}`, name: "read_file", args: { path: `src/mod${i}.rs` } } }] });
    history.push({ role: "user", parts: [{ functionResponse: { id: `c${i}`, name: "read_file", response: { output: `pub fn f${i}(x: u32) -> u32 { x + ${i} }\n`.repeat(40) } } }] });
    history.push({ role: "model", parts: [{ text: `Done with step ${i}: f${i} now takes a u32.` }] });
  }
  return history;
}

export async function smoke(cc, sm, history = sessionHistory()) {
  const out = {};
  out.thresholds = cc.computeThresholds(128_000);
  out.tier = cc.currentTier(100_000, out.thresholds);
  out.report = cc.formatContextReport(100_000, 128_000);
  out.estimateText = cc.estimateTextTokens("The quick brown fox jumps over the lazy dog. ".repeat(20));
  out.estimateHistory = cc.estimateContentTokens(history);
  try {
    cc.computeThresholds(-1);
    out.error = "no error";
  } catch (e) {
    out.error = `${e.name} ${e.code} ${e instanceof Error}`;
  }

  // A chat at a small window whose history is past `auto`: beforeSend
  // compacts it through the summarizer (which renders the request with the
  // summarizers entry's renderTurns, as the ready summarizers do).
  const chat = new cc.ChatCompactor({ window: 32_000 });
  const calls = [];
  const summarize = async (request, { signal }) => {
    const turns = sm.renderTurns(request.contents);
    calls.push({ turns: turns.length, firstRole: turns[0]?.role, signal: typeof signal?.aborted === "boolean", maxOutputTokens: request.config?.maxOutputTokens });
    return { text: `The user is refactoring src/ one module at a time (${turns.length} turns summarized).`, finishReason: "STOP" };
  };
  const user = { role: "user", parts: [{ text: "Go on with the next module." }] };
  const result = await chat.beforeSend(history, user, summarize);
  out.compaction = {
    status: result.statusName,
    compressed: result.status === cc.CompressionStatus.COMPRESSED,
    trigger: result.trigger,
    estimate: result.estimate,
    thresholds: chat.thresholds,
    historyLength: result.history.length,
    replaced: result.replaced.length,
    keptSame: result.history.at(-1) === history.at(-1),
    originalTokenCount: result.originalTokenCount,
    newTokenCount: result.newTokenCount,
    summary: result.history[0]?.parts?.[0]?.text?.includes("refactoring src/") ?? false,
    calls,
  };
  out.usage = chat.usage();

  // save → JSON text → restore: the same state, and the restored chat works.
  const saved = JSON.parse(JSON.stringify(chat.save()));
  const restored = cc.ChatCompactor.restore(saved);
  out.restore = {
    sameState: JSON.stringify(restored.save()) === JSON.stringify(saved),
    window: restored.window,
    lastPromptTokenCount: restored.lastPromptTokenCount,
    usage: restored.usage(),
  };
  const next = await restored.beforeSend(result.history, user, summarize);
  out.restore.next = next.statusName;
  chat.free();
  restored.free();
  return out;
}
