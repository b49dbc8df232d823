// The estimators and tokenizer families the page asks the library about: one
// list. Each entry is tried once against the loaded build; the ones that
// build does not offer (it throws) are left out, with the library's reason.

const TOKENIZERS = ["universal", "o200k", "cl100k", "claude", "qwen"];

export const ESTIMATOR_CHOICES = [
  { label: "reference", options: { estimator: "reference" } },
  ...["calibrated", "conservative"].flatMap((estimator) =>
    TOKENIZERS.map((tokenizer) => ({ label: `${estimator} · ${tokenizer}`, options: { estimator, tokenizer } }))),
];

const PROBE = [{ role: "user", parts: [{ text: "probe" }] }];

/** Splits ESTIMATOR_CHOICES into those `cc` accepts and those it rejects. */
export function probeEstimators(cc) {
  const available = [];
  const missing = [];
  for (const choice of ESTIMATOR_CHOICES) {
    try {
      cc.estimateContentTokens(PROBE, choice.options);
      available.push(choice);
    } catch (error) {
      missing.push({ ...choice, reason: error.message });
    }
  }
  return { available, missing };
}
