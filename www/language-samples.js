// The estimator box's language samples: a held-out sample per language with
// the real counts of seven tokenizers (precomputed by
// scripts/tokenizers/page_samples.mjs, not downloaded) beside this build's
// calibrated estimate for the same family, and the ratio.
import { LANGUAGE_SAMPLES } from "./language-samples-data.js";

const FAMILIES = ["o200k", "cl100k", "claude", "qwen", "gemini", "llama3", "deepseek"];

/** Fills `table` with one row per language; a click on a language puts its text in the box (`onPick(text)`). */
export function renderLanguageSamples(cc, table, onPick = () => {}) {
  table.replaceChildren();
  const head = table.createTHead().insertRow();
  for (const name of ["language", ...FAMILIES.map((f) => `${f}: real / ours`)]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = name;
    head.append(th);
  }
  const body = table.createTBody();
  for (const s of LANGUAGE_SAMPLES) {
    const row = body.insertRow();
    row.dataset.testid = "language-sample";
    const th = document.createElement("th");
    th.scope = "row";
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = s.language;
    button.title = s.source;
    button.addEventListener("click", () => onPick(s.text));
    th.append(button);
    row.append(th);
    for (const family of FAMILIES) {
      const ours = cc.estimateTextTokens(s.text, { estimator: "calibrated", tokenizer: family });
      const real = s.tokens[family];
      row.insertCell().textContent = `${real} / ${ours} (×${(ours / real).toFixed(2)})`;
    }
  }
}
