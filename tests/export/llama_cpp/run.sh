#!/usr/bin/env bash
# llama.cpp itself reads what `tinylm export --format gguf` writes: the gpt2-tiny fixture
# exported at F32, F16, BF16 and Q8_0, loaded by llama.cpp through npm node-llama-cpp (its
# prebuilt CPU libraries, @node-llama-cpp/linux-x64):
#   - the 351 texts of tests/fixtures/tiktoken-gpt2.jsonl tokenize to tiktoken's ids, at
#     every type (the tokenizer inside the file);
#   - 24 greedy tokens after the fixture's prompt equal tinylm's (`tinylm generate
#     --greedy`, itself equal to transformers' in reference.json) at F32 and F16. BF16's
#     and Q8_0's continuations are printed, not compared: their weights hold fewer digits
#     than tinylm's float32 ones (8 bits of mantissa; 8-bit blocks, and llama.cpp
#     quantises the activations to 8 bits too), so their argmax may leave tinylm's.
#
#   tests/export/llama_cpp/run.sh [path/to/tinylm]   (default: build/tinylm)
# Exit 77 with "skipped: ..." when node/npm or the npm packages are unavailable (CTest's
# SKIP_RETURN_CODE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/tinylm}
fixture=$root/tests/fixtures/gpt2-tiny
prompt=15496,11,314,716,257,7009,3303,2746,11  # "Hello, I am a tiny language model,"
count=24  # as reference.json's greedy continuation (transformers)

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "skipped: node not found"
  exit 77
fi
[ -x "$bin" ] || { echo "run.sh: no tinylm binary at $bin" >&2; exit 2; }
bin=$(realpath "$bin")
cd "$here"
if [ ! -d node_modules/node-llama-cpp ] || [ ! -d node_modules/@node-llama-cpp/linux-x64 ]; then
  # npm install, not npm ci: the lock file leaves out the optional builds of other
  # platforms (CUDA, Vulkan, macOS, Windows), which --omit=optional skips anyway.
  npm install --omit=optional --ignore-scripts --prefer-offline --no-audit --no-fund \
    >/dev/null 2>&1 ||
    { echo "skipped: could not install npm node-llama-cpp (offline?)"; exit 77; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tinylm-llama-cpp.XXXXXX")
trap 'rm -rf "$work"' EXIT
ours=$("$bin" generate --model "$fixture" --prompt-ids "$prompt" --max-new-tokens "$count" \
  --greedy --print-ids | tail -1)
echo "tinylm greedy: $ours"
status=0
for dtype in f32 f16 bf16 q8_0; do
  file=$work/tiny-$dtype.gguf
  "$bin" export --model "$fixture" --format gguf --dtype "$dtype" --out "$file" >/dev/null
  out=$(node check.mjs "$file" "$root/tests/fixtures/tiktoken-gpt2.jsonl" "$prompt" "$count") ||
    { echo "$dtype: $out"; status=1; continue; }
  theirs=$(sed -n 's/^greedy: //p' <<<"$out")
  echo "$dtype: $(grep '^tokenize:' <<<"$out"); llama.cpp greedy: $theirs"
  if [[ $dtype == f32 || $dtype == f16 ]] && [ "$theirs" != "$ours" ]; then
    echo "$dtype: llama.cpp's greedy continuation differs from tinylm's"
    status=1
  fi
done
exit $status
