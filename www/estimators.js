// The estimators and tokenizer families the page offers: one list.

const TOKENIZERS = ["universal", "o200k", "cl100k", "claude", "qwen", "gemini", "llama3", "deepseek"];

export const ESTIMATOR_CHOICES = [
  { label: "reference", options: { estimator: "reference" } },
  ...["calibrated", "conservative"].flatMap((estimator) =>
    TOKENIZERS.map((tokenizer) => ({ label: `${estimator} · ${tokenizer}`, options: { estimator, tokenizer } }))),
];
