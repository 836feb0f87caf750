#!/usr/bin/env bash
# Hugging Face's tokenizers library itself reads the tokenizer.json that `tinylm export
# --format hf` and `tinylm bpe-train` write: npm tokenizers (the library's Node binding, its Rust code prebuilt)
# loads it with Tokenizer.fromFile and
#   - for the gpt2-tiny fixture (GPT-2's vocabulary): encodes the 351 texts of
#     tests/fixtures/tiktoken-gpt2.jsonl to tiktoken's ids and decodes them back;
#   - for a run trained on a BPE vocabulary trained here (bpe-train, 500 tokens, on
#     the-verdict.txt; 2 steps of a small model): encodes every third text of the fixture
#     to tinylm's ids for that vocabulary and decodes them back;
#   - for the tokenizer.json that bpe-train writes with the letters-marks pre-tokeniser
#     (500 tokens on 100 kB of bangla.txt): the same for every third of 60 Bengali lines
#     and the fixture's texts.
#
#   tests/export/hf_tokenizers/run.sh [path/to/tinylm]   (default: build/tinylm)
# Exit 77 with "skipped: ..." when node/npm or the npm package are unavailable (CTest's
# SKIP_RETURN_CODE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/tinylm}
cases=$root/tests/fixtures/tiktoken-gpt2.jsonl

source "$root/tests/common/node_test.sh"
node_test_start "$bin"
cd "$here"
if [ ! -d node_modules/tokenizers ]; then
  npm ci --ignore-scripts --prefer-offline --no-audit --no-fund >/dev/null 2>&1 ||
    { echo "skipped: could not install npm tokenizers (offline?)"; exit 77; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tinylm-hf-tokenizers.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
# check LABEL TOKENIZER_JSON CASES: prints check.mjs's verdict; a failure sets status 1
check() {
  local out
  out=$(node check.mjs "$2" "$3") || status=1
  echo "$1: $out"
}

"$bin" export --model "$root/tests/fixtures/gpt2-tiny" --format hf --out "$work/gpt2" >/dev/null
check "GPT-2 vocabulary" "$work/gpt2/tokenizer.json" "$cases"

"$bin" bpe-train --corpus "$root/data/the-verdict.txt" --vocab-size 500 --out "$work/bpe" \
  >/dev/null
cat >"$work/config.json" <<JSON
{
  "model": {"block_size": 16, "n_layer": 1, "n_head": 2, "d_model": 16},
  "data": {"path": "$root/data/the-verdict.txt", "tokenizer": "$work/bpe"},
  "train": {"batch_size": 2, "max_steps": 2, "eval_interval": 2, "eval_iters": 1,
            "log_interval": 1, "checkpoint_interval": 2},
  "sample": {"max_new_tokens": 0}
}
JSON
"$bin" train --quiet --config "$work/config.json" --out "$work/run" >/dev/null
"$bin" export --run "$work/run" --format hf --out "$work/trained" >/dev/null
node ../encode_cases.mjs "$bin" "$cases" 3 --tokenizer bpe --vocab-dir "$work/bpe" --ordinary \
  >"$work/trained-cases.jsonl"
check "trained vocabulary" "$work/trained/tokenizer.json" "$work/trained-cases.jsonl"

# bpe-train's own tokenizer.json for the letters-marks pre-tokeniser (a Split with its
# pattern before ByteLevel): 60 lines of Bengali and every third fixture text, tinylm's ids.
head -c 100000 "$root/data/bangla.txt" | sed '$d' >"$work/bangla.txt"
"$bin" bpe-train --corpus "$work/bangla.txt" --vocab-size 500 --pretokenizer letters-marks \
  --out "$work/marks" >/dev/null
{
  head -n 60 "$root/data/bangla.txt" |
    node -e 'for (const text of require("fs").readFileSync(0, "utf8").split("\n").slice(0, -1))
      console.log(JSON.stringify({ text }))'
  cat "$cases"
} >"$work/marks-texts.jsonl"
node ../encode_cases.mjs "$bin" "$work/marks-texts.jsonl" 3 --tokenizer bpe \
  --vocab-dir "$work/marks" --ordinary >"$work/marks-cases.jsonl"
check "bpe-train letters-marks" "$work/marks/tokenizer.json" "$work/marks-cases.jsonl"
exit $status
