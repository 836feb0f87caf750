#!/usr/bin/env bash
# llama.cpp itself reads what `tinylm export --format gguf` writes (the llama family's
# checks are at the end of the list below): the gpt2-tiny fixture
# exported at F32, F16, BF16 and Q8_0, loaded by llama.cpp through npm node-llama-cpp (its
# prebuilt CPU libraries, @node-llama-cpp/linux-x64):
#   - the 351 texts of tests/fixtures/tiktoken-gpt2.jsonl tokenize to tiktoken's ids, at
#     every type (the tokenizer inside the file);
#   - 24 greedy tokens after the fixture's prompt equal tinylm's (`tinylm generate
#     --greedy`, itself equal to transformers' in reference.json) at every type, unless
#     they part at a token where tinylm's own top-2 margin (`--logprobs 2`) is below that
#     type's logit error (greedy_tolerance below): there either token may come out, and
#     nothing past it is compared. The output says where a comparison stopped and why;
#   - instead, llama.cpp's logits of the F16, BF16 and Q8_0 files at every position of
#     the prompt and tinylm's continuation (33 positions x 50,257) are within a stated
#     tolerance of its logits of the F32 file: max |logit - F32 logit| <= tol x max |F32
#     logit|, tol = 0.005 (F16), 0.03 (BF16), 0.1 (Q8_0), about 3x what this fixture
#     gives (0.0014, 0.010, 0.033). A quantiser that put a scale or a block in the wrong
#     place moves logits by their own size. (llama.cpp's F32 logits are themselves about
#     4e-3 from tinylm's exact ones: its GELU goes through an fp16 table.)
#   - a model trained here (a 500-token BPE vocabulary trained on the-verdict.txt, then
#     800 steps of a 2-layer GPT, about 5 s) exported from its run folder at F32 and F16:
#     llama.cpp tokenizes a third of the fixture's texts as tinylm's trained vocabulary
#     does, and its greedy continuation of "I had always thought" equals tinylm's;
#   - a char model trained here on 300 lines of data/bangla.txt (600 steps, about 3 s),
#     exported at F32 (its characters as byte-level BPE tokens, each Bengali character's
#     3 bytes joined by the file's merges): llama.cpp tokenizes every second of the first
#     80 lines as tinylm's char vocabulary does, and continues greedily as tinylm does
#     (past id 11, which llama.cpp takes as end of text when a file names none);
#   - the llama family: the llama-tiny fixture as llama.cpp's llama (F32, F16), and char
#     models trained here on Shakespeare as its qwen3 and qwen2 (F32): tokenization and
#     greedy continuations as above.
#
#   tests/export/llama_cpp/run.sh [path/to/tinylm]   (default: build/tinylm)
# llama.cpp's prompts go in batches of 16 tokens (llama.mjs: its AMX variant is wrong at
# 32-33), and each check prints which ggml CPU variant it loaded (docs/export.md).
# Exit 77 with "skipped: ..." when node/npm or the npm packages are unavailable (CTest's
# SKIP_RETURN_CODE).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/tinylm}
fixture=$root/tests/fixtures/gpt2-tiny
prompt=15496,11,314,716,257,7009,3303,2746,11  # "Hello, I am a tiny language model,"
count=24  # as reference.json's greedy continuation (transformers)

source "$root/tests/common/node_test.sh"
node_test_start "$bin"
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
status=0

source "$here/lib.sh"

read -r ours margins < <(greedy "$fixture" "$prompt" | paste -sd' ')
[ -n "$margins" ] || { echo "run.sh: tinylm generate --logprobs failed on gpt2-tiny"; exit 1; }
echo "tinylm greedy: $ours"
echo "tinylm top-2 margins: $margins"
for dtype in f32 f16 bf16 q8_0; do
  file=$work/tiny-$dtype.gguf
  "$bin" export --model "$fixture" --format gguf --dtype "$dtype" --out "$file" >/dev/null
  check "$dtype" "$file" "$root/tests/fixtures/tiktoken-gpt2.jsonl" "$prompt" "$ours" \
    "$margins" "$dtype"
done

# A model trained here, with its own trained BPE vocabulary.
trained=$work/trained
"$bin" bpe-train --corpus "$root/data/the-verdict.txt" --vocab-size 500 --out "$trained/bpe" \
  >/dev/null
train_small "$trained" "$root/data/the-verdict.txt" "$trained/bpe" 800
node ../encode_cases.mjs "$bin" "$root/tests/fixtures/tiktoken-gpt2.jsonl" 3 \
  --tokenizer bpe --vocab-dir "$trained/bpe" --ordinary >"$trained/cases.jsonl"
trained_prompt=$(printf 'I had always thought' |
  "$bin" tokenize --tokenizer bpe --vocab-dir "$trained/bpe" --ordinary | tr ' ' ',')
read -r trained_ours trained_margins < <(greedy "$trained/run" "$trained_prompt" | paste -sd' ')
[ -n "$trained_margins" ] || { echo "run.sh: tinylm generate --logprobs failed on the trained model"; exit 1; }
echo "trained model, tinylm greedy: $trained_ours"
for dtype in f32 f16; do
  "$bin" export --run "$trained/run" --format gguf --dtype "$dtype" \
    --out "$trained/$dtype.gguf" >/dev/null
  check "trained $dtype" "$trained/$dtype.gguf" "$trained/cases.jsonl" "$trained_prompt" \
    "$trained_ours" "$trained_margins" "$dtype"
done

# A char model trained here on Bengali (each character 3 bytes: merged back by the file's
# merges), exported at F32.
chars=$work/char
mkdir -p "$chars"
head -n 300 "$root/data/bangla.txt" >"$chars/corpus.txt"
train_small "$chars" "$chars/corpus.txt" char 600
node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n").slice(0, 80))
           if (l.trim()) console.log(JSON.stringify({ text: l }));' "$chars/corpus.txt" \
  >"$chars/texts.jsonl"
node ../encode_cases.mjs "$bin" "$chars/texts.jsonl" 2 --tokenizer char \
  --vocab-from "$chars/corpus.txt" >"$chars/cases.jsonl"
char_prompt=$(printf 'পাষাণে ঘটনা' |
  "$bin" tokenize --tokenizer char --vocab-from "$chars/corpus.txt" 2>/dev/null | tr ' ' ',')
read -r char_ours char_margins < <(greedy "$chars/run" "$char_prompt" | paste -sd' ')
[ -n "$char_margins" ] || { echo "run.sh: tinylm generate --logprobs failed on the char model"; exit 1; }
echo "char model, tinylm greedy: $char_ours"
"$bin" export --run "$chars/run" --format gguf --dtype f32 --out "$chars/f32.gguf" >/dev/null
check "char f32" "$chars/f32.gguf" "$chars/cases.jsonl" "$char_prompt" "$char_ours" \
  "$char_margins" f32

# The llama family. llama-tiny (Llama 3 rope scaling, 4 query heads over 1 kv head, GPT-2's
# tokenizer) as llama.cpp's llama architecture (q and k rows permuted to its adjacent
# pairs, rope_freqs for the scaling) at F32 and F16; then char models trained here as its
# qwen3 (q/k norms, a head width of 32 where d_model / n_head is 16) and qwen2 (q/k/v
# biases, untied head) architectures, at F32.
llama_fixture=$root/tests/fixtures/llama-tiny
read -r llama_ours llama_margins < <(greedy "$llama_fixture" "$prompt" | paste -sd' ')
[ -n "$llama_margins" ] || { echo "run.sh: tinylm generate --logprobs failed on llama-tiny"; exit 1; }
echo "llama-tiny, tinylm greedy: $llama_ours"
for dtype in f32 f16; do
  "$bin" export --model "$llama_fixture" --format gguf --dtype "$dtype" \
    --out "$work/llama-$dtype.gguf" >/dev/null
  check "llama-tiny $dtype" "$work/llama-$dtype.gguf" "$root/tests/fixtures/tiktoken-gpt2.jsonl" \
    "$prompt" "$llama_ours" "$llama_margins" "$dtype"
done
family=$work/family
mkdir -p "$family"
head -n 400 "$root/data/tinyshakespeare.txt" >"$family/corpus.txt"
node -e 'for (const l of require("fs").readFileSync(process.argv[1], "utf8").split("\n").slice(0, 60))
           if (l.trim()) console.log(JSON.stringify({ text: l }));' "$family/corpus.txt" \
  >"$family/texts.jsonl"
node ../encode_cases.mjs "$bin" "$family/texts.jsonl" 2 --tokenizer char \
  --vocab-from "$family/corpus.txt" >"$family/cases.jsonl"
family_prompt=$(printf 'ROMEO:' |
  "$bin" tokenize --tokenizer char --vocab-from "$family/corpus.txt" 2>/dev/null | tr ' ' ',')
declare -A family_models=(
  [qwen3]='{"arch": "llama", "block_size": 64, "n_layer": 2, "n_head": 4, "n_kv_head": 2, "d_model": 64, "head_dim": 32, "d_ff": 160, "qk_norm": true, "tie_head": true}'
  [qwen2]='{"arch": "llama", "block_size": 64, "n_layer": 2, "n_head": 4, "n_kv_head": 1, "d_model": 64, "d_ff": 160, "attention_bias": true}')
for arch in qwen3 qwen2; do
  mkdir -p "$family/$arch"
  train_small "$family/$arch" "$family/corpus.txt" char 300 "${family_models[$arch]}"
  read -r family_ours family_margins < <(greedy "$family/$arch/run" "$family_prompt" | paste -sd' ')
  [ -n "$family_margins" ] || { echo "run.sh: tinylm generate --logprobs failed on the $arch model"; exit 1; }
  echo "$arch model, tinylm greedy: $family_ours"
  "$bin" export --run "$family/$arch/run" --format gguf --dtype f32 --out "$family/$arch-f32.gguf" >/dev/null
  [ "$arch" != qwen3 ] || qwen3_continuation=$family_ours
  check "$arch f32" "$family/$arch-f32.gguf" "$family/cases.jsonl" "$family_prompt" "$family_ours" \
    "$family_margins" f32
done

# relative tolerance of each narrower type's logits against the F32 file's (see above),
# for gpt2-tiny (llama.cpp's gpt2) and the trained qwen3 model (the llama family; its
# F16, BF16 and Q8_0 files exported here). (Not llama-tiny: its weights are drawn with
# std 0.3, and llama.cpp's F16 logits of it move by 0.7% of their size where gpt2-tiny's
# move by 0.14%; its F32 and F16 greedy tokens above are equal to tinylm's.)
declare -A tolerance=([f16]=0.005 [bf16]=0.03 [q8_0]=0.1)
for dtype in f16 bf16 q8_0; do
  "$bin" export --run "$family/qwen3/run" --format gguf --dtype "$dtype" \
    --out "$family/qwen3-$dtype.gguf" >/dev/null
done
for model in "$work/tiny:$prompt,$ours" "$family/qwen3:$family_prompt,$qwen3_continuation"; do
  base=${model%%:*} ids=${model#*:}
  for dtype in f16 bf16 q8_0; do
    out=$(node logits.mjs "$base-f32.gguf" "$base-$dtype.gguf" "$ids") ||
      { echo "$(basename "$base") $dtype logits: $out"; status=1; continue; }
    out=$(grep '^logits:' <<<"$out" || true)  # after the variant line, shown with the checks above
    echo "$(basename "$base") $dtype against f32, $out"
    read -r diff ref < <(sed -n 's/.*max |diff| \([^,]*\), max |reference| \([^,]*\),.*/\1 \2/p' <<<"$out")
    if ! awk -v d="$diff" -v r="$ref" -v t="${tolerance[$dtype]}" 'BEGIN { exit !(r > 0 && d <= t * r) }'; then
      echo "$(basename "$base") $dtype: llama.cpp's logits differ from the F32 file's by $diff, more than ${tolerance[$dtype]} x $ref"
      status=1
    fi
  done
done
exit $status
