// The estimator box: text or a JSON message list in any of the library's
// four message formats, the estimate of the whole and of each part out,
// under every estimator the build offers. A list in another shape than the
// chosen format shows the library's own INVALID_CONTENT message, never a number.
import { tokens } from "./format.js";
import { formatLabel, FORMAT_IDS, messageParts, userText } from "./message-formats.js";

const $ = (id) => document.getElementById(id);

/**
 * Reads the box: JSON message lists in the shapes people paste (a list of
 * messages, one message, a request body with `contents` or `messages`),
 * passed to the library as they are, in the chosen format; anything else
 * is one user message of that format holding the text. Returns { contents, how }.
 */
export function parseInput(raw, format = "gemini") {
  const trimmed = raw.trim();
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) {
    let value;
    try {
      value = JSON.parse(trimmed);
    } catch {
      return { contents: [userText(raw, format)], how: "not valid JSON: counted as the text of one user message" };
    }
    if (Array.isArray(value)) return { contents: value, how: `a list of ${value.length} message(s)` };
    if (Array.isArray(value?.contents)) return { contents: value.contents, how: `a request body with ${value.contents.length} message(s) in "contents"` };
    if (Array.isArray(value?.messages)) {
      const system = value.system !== undefined ? " (its \"system\" beside the messages is not counted)" : "";
      return { contents: value.messages, how: `a request body with ${value.messages.length} message(s) in "messages"${system}` };
    }
    if (value && typeof value === "object" && ("role" in value || "parts" in value)) return { contents: [value], how: "one message" };
    return { contents: [userText(raw, format)], how: "JSON, but not a message list: counted as the text of one user message" };
  }
  return { contents: [userText(raw, format)], how: raw ? "plain text: one user message holding it" : "empty" };
}

/**
 * The formats the library's INVALID_CONTENT message suggests (`pass format:
 * "openai"`, or `pass format: "openai", "anthropic" or "ai-sdk"` when the
 * shape fits several), those of the four only.
 */
export function suggestedFormats(message) {
  const at = (message ?? "").indexOf("pass format:");
  if (at < 0) return [];
  return [...message.slice(at).matchAll(/"([^"]+)"/g)].map((m) => m[1]).filter((f) => FORMAT_IDS.includes(f));
}

/**
 * Renders the table for the box's current content, read in `format`.
 * `onSwitch(format)` is called when the user takes a format the
 * library's error message suggests.
 */
export function renderEstimates(cc, available, format = "gemini", onSwitch = () => {}) {
  const table = $("estimator-table");
  const error = $("estimator-error");
  const fix = $("estimator-switch");
  const image = Number($("image-token-estimate").value);
  const { contents, how } = parseInput($("estimator-input").value, format);
  const extra = { format, ...(Number.isFinite(image) && image > 0 ? { imageTokenEstimate: image } : {}) };
  error.hidden = true;
  fix.hidden = true;
  table.replaceChildren();
  table.dataset.format = format;
  $("estimator-note").textContent = `Read as ${how}, in the ${formatLabel(format)} format (format: "${format}").`;

  let totals;
  try {
    totals = available.map((c) => cc.estimateContentTokens(contents, { ...c.options, ...extra }));
  } catch (e) {
    error.textContent = `${e.code ?? e.name}: ${e.message}`;
    error.hidden = false;
    const others = e.code === "INVALID_CONTENT" ? suggestedFormats(e.message).filter((f) => f !== format) : [];
    fix.replaceChildren(...others.map((other) => {
      const button = document.createElement("button");
      button.type = "button";
      button.dataset.format = other;
      button.textContent = `Read it as ${formatLabel(other)}`;
      button.addEventListener("click", () => onSwitch(other));
      return button;
    }));
    fix.hidden = others.length === 0;
    return;
  }

  // The estimates come right after the part, so that they stay in view on
  // a phone; the size closes the row.
  // Two header rows: the estimator over its tokenizer families.
  const thead = table.createTHead();
  const groups = thead.insertRow();
  const families = thead.insertRow();
  for (const name of ["#", "part"]) th(groups, name, "col").rowSpan = 2;
  for (const c of available) {
    const { estimator, tokenizer } = c.options;
    if (!tokenizer) {
      const cell = th(groups, estimator, "col");
      cell.rowSpan = 2;
      cell.dataset.estimator = c.label;
      continue;
    }
    const last = groups.lastElementChild;
    if (last?.dataset.group === estimator) last.colSpan += 1;
    else {
      const cell = th(groups, estimator, "colgroup");
      cell.dataset.group = estimator;
      cell.className = "group";
    }
    th(families, tokenizer, "col").dataset.estimator = c.label;
  }
  th(groups, "chars", "col").rowSpan = 2;

  const parts = contents.map((message) => messageParts(message, format));
  const body = table.createTBody();
  const total = body.insertRow();
  total.className = "total";
  total.dataset.testid = "estimate-total";
  th(total, "all (rounded once)", "row").colSpan = 2;
  available.forEach((c, i) => { td(total, tokens(totals[i])).dataset.estimator = c.label; });
  td(total, tokens(parts.flat().reduce((n, p) => n + p.chars, 0)));

  contents.forEach((message, m) => {
    parts[m].forEach((part, p) => {
      const row = body.insertRow();
      row.dataset.testid = "estimate-part";
      th(row, `${m + 1}.${p + 1}`, "row");
      td(row, `${message?.role ?? ""} · ${part.kind}`);
      for (const c of available) {
        let one;
        try {
          one = tokens(cc.estimateContentTokens([part.alone], { ...c.options, ...extra }));
        } catch {
          // The part alone may not be a message the format allows; the whole was.
          one = "—";
        }
        td(row, one).dataset.estimator = c.label;
      }
      td(row, tokens(part.chars));
    });
  });
}

function th(row, text, scope) {
  const el = document.createElement("th");
  el.scope = scope;
  el.textContent = text;
  row.append(el);
  return el;
}

function td(row, text) {
  const el = row.insertCell();
  el.textContent = text;
  return el;
}
