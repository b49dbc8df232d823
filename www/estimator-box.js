// The estimator box: text or a JSON message list in, the estimate of the
// whole and of each part out, under every estimator the build offers.
import { tokens } from "./format.js";

const $ = (id) => document.getElementById(id);

/**
 * Reads the box: JSON message lists in the shapes people paste (Gemini
 * contents, one message, a request body, OpenAI-style messages), anything
 * else as one text part. Returns { contents, how }.
 */
export function parseInput(raw) {
  const trimmed = raw.trim();
  if (trimmed.startsWith("[") || trimmed.startsWith("{")) {
    let value;
    try {
      value = JSON.parse(trimmed);
    } catch {
      return { contents: asText(raw), how: "not valid JSON: counted as one text part" };
    }
    if (Array.isArray(value)) return { contents: value.map(fromOpenAi), how: `a list of ${value.length} message(s)` };
    if (Array.isArray(value?.contents)) return { contents: value.contents, how: `a request body with ${value.contents.length} message(s)` };
    if (Array.isArray(value?.messages)) return { contents: value.messages.map(fromOpenAi), how: `${value.messages.length} OpenAI-style message(s)` };
    if (value && typeof value === "object" && "parts" in value) return { contents: [value], how: "one message" };
    return { contents: asText(raw), how: "JSON, but not a message list: counted as one text part" };
  }
  return { contents: asText(raw), how: raw ? "plain text: one user message with one text part" : "empty" };
}

function asText(text) {
  return [{ role: "user", parts: [{ text }] }];
}

/** OpenAI `{ role, content: string }` → Gemini `{ role, parts: [{ text }] }`; others as they are. */
function fromOpenAi(m) {
  if (m && typeof m === "object" && !("parts" in m) && typeof m.content === "string") {
    return { role: m.role === "assistant" ? "model" : "user", parts: [{ text: m.content }] };
  }
  return m;
}

export function partKind(p) {
  if (!p || typeof p !== "object") return typeof p;
  if (typeof p.text === "string") return p.thought ? "thought" : "text";
  if (p.functionCall) return `functionCall ${p.functionCall.name ?? ""}`.trim();
  if (p.functionResponse) return `functionResponse ${p.functionResponse.name ?? ""}`.trim();
  if (p.inlineData) return `inlineData ${p.inlineData.mimeType ?? ""}`.trim();
  if (p.fileData) return `fileData ${p.fileData.mimeType ?? ""}`.trim();
  return Object.keys(p).join(", ") || "empty part";
}

function partSize(p) {
  if (typeof p?.text === "string") return p.text.length;
  if (p?.inlineData?.data) return p.inlineData.data.length;
  return JSON.stringify(p)?.length ?? 0;
}

/** Renders the table for the box's current content. */
export function renderEstimates(cc, available) {
  const table = $("estimator-table");
  const error = $("estimator-error");
  const image = Number($("image-token-estimate").value);
  const { contents, how } = parseInput($("estimator-input").value);
  const extra = Number.isFinite(image) && image > 0 ? { imageTokenEstimate: image } : {};
  error.hidden = true;
  table.replaceChildren();
  $("estimator-note").textContent = `Read as ${how}.`;

  let totals;
  try {
    totals = available.map((c) => cc.estimateContentTokens(contents, { ...c.options, ...extra }));
  } catch (e) {
    error.textContent = `${e.code ?? e.name}: ${e.message}`;
    error.hidden = false;
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

  const body = table.createTBody();
  const total = body.insertRow();
  total.className = "total";
  total.dataset.testid = "estimate-total";
  th(total, "all (rounded once)", "row").colSpan = 2;
  available.forEach((c, i) => { td(total, tokens(totals[i])).dataset.estimator = c.label; });
  td(total, tokens(contents.reduce((n, m) => n + (m.parts ?? []).reduce((k, p) => k + partSize(p), 0), 0)));

  contents.forEach((message, m) => {
    (message.parts ?? []).forEach((part, p) => {
      const row = body.insertRow();
      row.dataset.testid = "estimate-part";
      th(row, `${m + 1}.${p + 1}`, "row");
      td(row, `${message.role ?? ""} · ${partKind(part)}`);
      for (const c of available) {
        const one = cc.estimateContentTokens([{ role: message.role, parts: [part] }], { ...c.options, ...extra });
        td(row, tokens(one)).dataset.estimator = c.label;
      }
      td(row, tokens(partSize(part)));
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
