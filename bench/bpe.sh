#!/usr/bin/env bash
# GPT-2 BPE encoding speed, tinylm beside tiktoken (npm, WASM), as a table.
# Usage: bench/bpe.sh [build-dir]   (tiktoken: npm ci in tests/tokenizer/tiktoken_diff)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target bpe_bench -j "$(nproc)" >/dev/null
results=$("$BUILD/bpe_bench" | grep '^RESULT')
if command -v node >/dev/null 2>&1; then
  [ -d tests/tokenizer/tiktoken_diff/node_modules/tiktoken ] ||
    (cd tests/tokenizer/tiktoken_diff && npm ci --prefer-offline --no-audit --no-fund >/dev/null)
  results+=$'\n'$(node bench/bpe_tiktoken.mjs | grep '^RESULT')
else
  echo "(node not found: no tiktoken column)"
fi
echo "$results" | awk '
  { mbps[$2 " " $3] = $4; tokens[$2] = $5; if (!($3 in seen)) { seen[$3] = 1; modes[++m] = $3 } }
  END {
    printf "%-16s %10s", "text (MB/s)", "tokens"
    for (i = 1; i <= m; ++i) printf " %12s", modes[i]
    printf " %14s\n", "1-thread/tikt"
    split("tinyshakespeare bangla", texts, " ")
    for (t = 1; t <= 2; ++t) {
      printf "%-16s %10s", texts[t], tokens[texts[t]]
      for (i = 1; i <= m; ++i) printf " %12s", mbps[texts[t] " " modes[i]]
      tk = mbps[texts[t] " tiktoken"]
      printf " %14s\n", tk ? sprintf("%.1fx", mbps[texts[t] " 1-thread"] / tk) : "-"
    }
  }'
