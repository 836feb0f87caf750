#!/usr/bin/env bash
# Differential test: tinylm's GPT-2 tokenizer against OpenAI's tiktoken (npm, WASM).
# Generates random texts (gen_cases.mjs, fixed seed), encodes them with tiktoken, and
# checks every one with `tinylm tokenize --check` (exit 0 only if all match).
#
#   tests/tokenizer/tiktoken_diff/run.sh [path/to/tinylm]   (default: build/tinylm)
#   env: COUNT (default 10000), SEED (default 1), SWEEP=1 to add one probe per code point
#
# Exit 77 with "skipped: ..." when node/npm or the tiktoken package are unavailable
# (CTest: set the test's SKIP_RETURN_CODE to 77).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/tinylm}

source "$root/tests/common/node_test.sh"
node_test_start "$bin"
cd "$here"
if [ ! -d node_modules/tiktoken ]; then
  npm ci --prefer-offline --no-audit --no-fund >/dev/null 2>&1 ||
    { echo "skipped: could not install npm tiktoken (offline?)"; exit 77; }
fi

cases=$(mktemp "${TMPDIR:-/tmp}/tinylm-tiktoken-diff.XXXXXX")
trap 'rm -f "$cases" "$cases.sweep"' EXIT
node gen_cases.mjs --count "${COUNT:-10000}" --seed "${SEED:-1}" >"$cases"
echo "tiktoken $(node -p 'require("./node_modules/tiktoken/package.json").version'):" \
  "$(wc -l <"$cases") random texts (seed ${SEED:-1})"
status=0
"$bin" tokenize --check "$cases" || status=$?
if [ "${SWEEP:-0}" = 1 ]; then
  node gen_cases.mjs --sweep >"$cases.sweep"
  echo "sweep: $(wc -l <"$cases.sweep") probe texts, one per code point"
  "$bin" tokenize --check "$cases.sweep" || status=$?
fi
exit $status
