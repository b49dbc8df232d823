// The page: loads the web build of the package, then wires the window, the
// ladder, the token count, the estimator box and the session simulator.
import init, * as cc from "../pkg/web/compaction_core.js";
import { renderLadder, renderMarker, useLadderConstants } from "./ladder.js";
import { percent, tokens } from "./format.js";
import { ESTIMATOR_CHOICES } from "./estimators.js";
import { renderEstimates } from "./estimator-box.js";
import { renderLanguageSamples } from "./language-samples.js";
import { agentMessages, SAMPLES } from "./samples.js";
import { FORMATS } from "./message-formats.js";
import { PASTE_CHARS, providerNote, RESUME_WINDOWS, Simulator } from "./simulator.js";

const PRESETS = [
  ["32K", 32_000], ["64K", 64_000], ["128K", 128_000], ["200K", 200_000], ["256K", 256_000], ["1M", 1_000_000],
];
const DEFAULT_WINDOW = 200_000;
const DEFAULT_TOKENS = 150_000;
/** The estimators the page compares the agent turn's four formats under. */
const AGREEMENT_ESTIMATORS = ["reference", "calibrated · o200k"];
/** The model whose limits the simulator offers as a preset (read from the library's modelLimits). */
const LIMIT_MODEL = "gpt-4o";

const $ = (id) => document.getElementById(id);
const state = { window: DEFAULT_WINDOW, thresholds: null, tokens: DEFAULT_TOKENS };
let sim = null;

function showError(el, error) {
  el.textContent = error ? `${error.code ?? error.name}: ${error.message}` : "";
  el.hidden = !error;
}

/** Applies a window from a preset or the custom field; a bad one is reported, the last good one kept. */
function setWindow(value) {
  let thresholds;
  try {
    thresholds = cc.computeThresholds(value);
  } catch (error) {
    showError($("window-error"), error);
    return;
  }
  showError($("window-error"), null);
  state.window = value;
  state.thresholds = thresholds;
  if ($("window-input").valueAsNumber !== value) $("window-input").value = String(value);
  for (const radio of document.querySelectorAll('input[name="window-preset"]')) radio.checked = Number(radio.value) === value;
  const range = $("tokens-range");
  range.max = String(value);
  renderLadder(thresholds);
  renderCount();
  document.getElementById("main").dataset.window = String(value);
  if (sim) sim.setWindow(value);
}

function setTokens(value, from) {
  if (!Number.isFinite(value) || value < 0) return;
  state.tokens = value;
  if (from !== "range") $("tokens-range").value = String(value);
  if (from !== "input") $("tokens-input").value = String(value);
  renderCount();
}

function renderCount() {
  const { tokens: count, window: w, thresholds: t } = state;
  const report = cc.contextReport(count, w);
  const tier = $("count-tier");
  tier.textContent = report.tier;
  tier.dataset.tier = report.tier;
  $("count-percent").textContent = w > 0 ? percent(report.percentUsed) : "—";
  $("count-percent").dataset.value = String(report.percentUsed);
  $("count-until-auto").textContent = tokens(report.tokensUntilAuto);
  $("count-until-auto").dataset.value = String(report.tokensUntilAuto);
  $("count-footer").textContent = report.showFooter ? "shown (warn ≤ tokens < auto)" : "hidden";
  $("count-footer").dataset.value = String(report.showFooter);

  const tip = cc.selectTip({ lastPromptTokenCount: count, contextWindowSize: w });
  const box = $("count-tip");
  box.dataset.tipId = tip?.id ?? "";
  box.classList.toggle("empty", !tip);
  box.replaceChildren();
  if (tip) {
    const id = document.createElement("strong");
    id.textContent = tip.id;
    const meta = document.createElement("span");
    meta.className = "tip-meta";
    meta.textContent = ` priority ${tip.priority}, at most every ${tip.cooldownPrompts} prompts`;
    box.append(id, meta, document.createElement("br"), tip.text);
  } else {
    box.textContent = "No tip at this count: the context tips start at warn.";
  }
  $("context-block").textContent = cc.formatContextReport(count, w);
  renderMarker(count, t, report.tier);
}

function buildPresets() {
  const list = $("window-presets");
  for (const [label, value] of PRESETS) {
    const wrap = document.createElement("label");
    wrap.className = "preset";
    const radio = document.createElement("input");
    radio.type = "radio";
    radio.name = "window-preset";
    radio.value = String(value);
    radio.dataset.testid = `preset-${label}`;
    radio.addEventListener("change", () => setWindow(value));
    const text = document.createElement("span");
    text.textContent = label;
    text.title = `${tokens(value)} tokens`;
    wrap.append(radio, text);
    list.append(wrap);
  }
}

function wireCount() {
  const range = $("tokens-range");
  range.addEventListener("input", () => setTokens(range.valueAsNumber, "range"));
  // Arrow keys move 1,000 tokens and Page Up/Down a tenth of the window,
  // instead of the single token a step of 1 would give.
  range.addEventListener("keydown", (e) => {
    const big = Math.max(1, Math.round(state.window / 10));
    const delta = { ArrowRight: 1000, ArrowUp: 1000, ArrowLeft: -1000, ArrowDown: -1000, PageUp: big, PageDown: -big }[e.key];
    if (delta === undefined) return;
    e.preventDefault();
    setTokens(Math.min(state.window, Math.max(0, state.tokens + delta)));
  });
  const input = $("tokens-input");
  input.addEventListener("input", () => setTokens(input.valueAsNumber, "input"));
}

function wireWindow() {
  const input = $("window-input");
  input.addEventListener("change", () => setWindow(input.value === "" ? Number.NaN : input.valueAsNumber));
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") setWindow(input.valueAsNumber);
  });
}

/** Fills a format select with the library's four formats, Gemini (the default) first. */
function formatOptions(select) {
  for (const f of FORMATS) select.add(new Option(`${f.label}${f.id === "gemini" ? " (default)" : ""} · ${f.type}`, f.id));
}

function wireEstimator() {
  const format = $("estimator-format");
  formatOptions(format);
  const refresh = () => renderEstimates(cc, ESTIMATOR_CHOICES, format.value, (other) => {
    format.value = other;
    refresh();
  });
  $("estimator-input").addEventListener("input", refresh);
  $("image-token-estimate").addEventListener("input", refresh);
  format.addEventListener("change", refresh);
  for (const button of document.querySelectorAll("[data-sample]")) {
    button.addEventListener("click", () => {
      // A format's own sample switches the box to that format; the others are written in the chosen one.
      if (button.dataset.sampleFormat) format.value = button.dataset.sampleFormat;
      $("estimator-input").value = SAMPLES[button.dataset.sample](format.value);
      refresh();
    });
  }
  $("estimator-input").value = SAMPLES.agent(format.value);
  refresh();
  renderLanguageSamples(cc, $("language-table"), (text) => {
    $("estimator-input").value = text;
    refresh();
  });
  // The same turn in the four formats, side by side: the estimates agree.
  const agree = ESTIMATOR_CHOICES.filter((c) => AGREEMENT_ESTIMATORS.includes(c.label)).map((c) => {
    const values = FORMATS.map((f) => `${f.label} ${tokens(cc.estimateContentTokens(agentMessages(f.id), { ...c.options, format: f.id }))}`);
    return `${c.label}: ${values.join(", ")}`;
  });
  $("sample-agreement").textContent = `This turn's estimates in the four formats — ${agree.join("; ")}.`;
}

function wireSimulator() {
  const select = $("sim-estimator");
  // The library's own default first, named by what a fresh compactor saves.
  const fresh = new cc.ChatCompactor({ window: 100_000 });
  const { estimator, tokenizer } = fresh.save().options;
  fresh.free();
  select.add(new Option(`library default: ${estimator} · ${tokenizer}`, "default"));
  for (const [i, choice] of ESTIMATOR_CHOICES.entries()) select.add(new Option(choice.label, String(i)));
  const mode = () => document.querySelector('input[name="summarizer"]:checked').value;
  const format = $("sim-format");
  formatOptions(format);
  sim = new Simulator(cc, {
    format: () => format.value,
    window: () => state.window,
    mode,
    endpoint: () => ({ url: $("endpoint-url").value.trim(), key: $("endpoint-key").value, model: $("endpoint-model").value.trim() }),
    estimatorOptions: () => (select.value === "default" ? {} : ESTIMATOR_CHOICES[Number(select.value)].options),
    // Empty: no limit of the model's. Anything else goes to the library, which says what is wrong with it.
    outputLimit: () => ($("sim-limit").value.trim() === "" ? null : $("sim-limit").valueAsNumber),
    clearToolOutputs: () => $("sim-clear").checked,
    fallback: () => $("sim-fallback").checked,
  });
  const model = cc.modelLimits(LIMIT_MODEL);
  $("sim-model-preset").textContent = `${LIMIT_MODEL}: ${tokens(model.window)} window, ${tokens(model.maxOutputTokens)} output`;
  $("sim-limit").placeholder = `none (${LIMIT_MODEL}: ${model.maxOutputTokens})`;
  $("sim-limit-note").textContent = `The summary call's cap is the smallest of ${tokens(sim.constants.compactMaxOutputTokens)}, this limit and what the window leaves; `
    + "the log shows the cap of every summary call. The ladder does not change.";
  $("sim-scenario-note").textContent = `Resume: the chat is created again, with no usage, over a history ${RESUME_WINDOWS} times the window `
    + `(the scripted session replayed), so the next send compacts it in several summary calls. Paste: ${tokens(PASTE_CHARS)} characters `
    + "in the next request the user types.";
  $("sim-limit").addEventListener("change", () => sim.setOutputLimit());
  $("sim-model-preset").addEventListener("click", () => {
    $("sim-limit").value = String(model.maxOutputTokens);
    if (state.window === model.window) sim.setOutputLimit();
    else setWindow(model.window);
  });
  $("sim-clear").addEventListener("change", () => sim.reset());
  $("sim-fallback").addEventListener("change", () => sim.reset());
  $("sim-resume").addEventListener("click", () => sim.resumeLarge());
  $("sim-paste").addEventListener("click", () => sim.pasteHuge());
  $("sim-slim").addEventListener("click", () => sim.sendSlimmed());
  $("sim-discard").addEventListener("click", () => sim.discardPaste());
  $("sim-provider-note").textContent = providerNote(sim.provider);
  for (const radio of document.querySelectorAll('input[name="summarizer"]')) {
    radio.addEventListener("change", () => { $("endpoint-fields").hidden = mode() !== "endpoint"; });
  }
  select.addEventListener("change", () => sim.reset());
  format.addEventListener("change", () => {
    sim.reset();
    $("sim-provider-note").textContent = providerNote(sim.provider);
  });
  $("sim-step").addEventListener("click", () => sim.step());
  $("sim-run").addEventListener("click", () => sim.runToCompaction());
  $("sim-compact").addEventListener("click", () => sim.compactNow());
  $("sim-cancel").addEventListener("click", () => sim.cancel());
  $("sim-reset").addEventListener("click", () => sim.reset());
  $("sim-download").addEventListener("click", () => sim.download());
  sim.reset();
}

async function main() {
  try {
    await init();
  } catch (error) {
    showError($("load-error"), new Error(`could not load the package from ../pkg/web/ (run scripts/build): ${error.message}`));
    return;
  }
  const constants = cc.ladderConstants();
  useLadderConstants(constants);
  $("sim-breaker-limit").textContent = String(constants.maxConsecutiveFailures);
  $("image-token-estimate").value = String(constants.defaultImageTokenEstimate);
  buildPresets();
  wireWindow();
  wireCount();
  setWindow(DEFAULT_WINDOW);
  setTokens(DEFAULT_TOKENS);
  wireEstimator();
  wireSimulator();
  $("main").dataset.ready = "true";
}

main();
