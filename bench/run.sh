#!/usr/bin/env bash
# `make bench`: tinylm beside its peers, in one command.
#   1. one training step (forward + backward + AdamW) for the README's two configs,
#      tinylm (2 threads) and PyTorch (Debian's python3-torch) at 1 and at 2 threads, the
#      faster of the two compared; tinylm also prints the machine's sgemm peak and triad
#      bandwidth and the fraction of them it reaches (bench/ceilings.h);
#   2. one fine-tuning step of the course's chapter 6 classifier (GPT-2 124M shape,
#      trainable last:1 and all), tinylm beside PyTorch (1 and 2 threads);
#   3. GPT-2 124M generation (batch 1, greedy, KV cache), tinylm (decode weights f32, f16,
#      bf16, q8_0) and PyTorch (1 and 2 threads), with the memory-bandwidth bound; then
#      what each kind of decode weights costs on a small trained model (bench/decode_quality);
#   4. GPT-2 BPE encoding speed, tinylm and npm tiktoken (bench/bpe.sh); then Llama 3's
#      and Qwen3's tokenizer.json, tinylm and transformers.js (bench/hf_json.sh);
#   5. `tinylm serve` with 1, 2, 4 and 8 concurrent streaming clients (GPT-2 124M shape,
#      64-token prompts, 64 new tokens, 2 threads) beside tinylm's own generate;
#   6. a prompt's products over GPT-2 124M's block matrices (64 rows): oneDNN's sgemm
#      against weights packed once (bench/prompt_products); then the same GGUF files
#      (GPT-2 124M shape at F32, F16, Q8_0) decoded by tinylm and by llama.cpp compiled
#      for this CPU (npm node-llama-cpp, cached outside the clone; bench/gguf.sh);
#   7. data-parallel training: 1 rank x 2 threads against 2 ranks x 1 thread under
#      mpirun, the all-reduce at the GPT-2 124M shape, and the prediction for N machines
#      (bench/distributed.sh).
# Usage: bench/run.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target tinylm train_step finetune_step generate_speed decode_quality serve_speed prompt_products matmul_bf16 -j "$(nproc)" >/dev/null
PY=/usr/bin/python3   # Debian's python3-torch lives here

# Every figure below belongs to this CPU (bench/cpu_line.sh says why it matters).
source bench/cpu_line.sh
cpu_line

ms_per_step() { sed -n 's/.* \([0-9.]*\) ms\/step.*/\1/p' | awk 'NR == 1'; }

compare() {  # title, our program, PyTorch's script, then the flags both take. PyTorch
             # runs with 1 and 2 threads; the faster counts.
  local title=$1 ours_bin=$2 torch_py=$3; shift 3
  echo "== $title"
  local out ours torch1 torch2  # each line printed as it is, then its ms/step kept
  out=$("$BUILD/$ours_bin" "$@"); echo "$out"; ours=$(ms_per_step <<< "$out")
  out=$("$PY" "bench/$torch_py" "$@" --threads 1); echo "$out"; torch1=$(ms_per_step <<< "$out")
  out=$("$PY" "bench/$torch_py" "$@" --threads 2); echo "$out"; torch2=$(ms_per_step <<< "$out")
  awk -v a="$ours" -v b="$torch1" -v c="$torch2" 'BEGIN {
    best = (b < c) ? b : c; t = (b < c) ? 1 : 2;
    printf "ratio   tinylm %.1f ms vs PyTorch at its best (%d threads) %.1f ms: %.2fx\n", a, t, best, best / a }'
}
run() { local name=$1; shift; compare "training step, $name" train_step train_step_torch.py "$@"; }
run "0.8M (4L 4H d128 T64 B12 V65)" --layers 4 --heads 4 --d-model 128 --block 64 --batch 12 --vocab 65 --steps 30 --warmup 3
run "10.65M (6L 6H d384 T256 B64 V65)" --layers 6 --heads 6 --d-model 384 --block 256 --batch 64 --vocab 65 --steps 3 --warmup 1
run "GPT-2 124M shape (12L 12H d768 T64 B4 V50257, llm.c's CPU test)" --layers 12 --heads 12 --d-model 768 --block 64 --batch 4 --vocab 50257 --steps 5 --warmup 1
for set in last:1 all; do
  compare "fine-tuning step, course ch. 6 classifier on the GPT-2 124M shape (B8 T120, trainable $set)" \
    finetune_step finetune_step_torch.py --trainable "$set" --batch 8 --tokens 120 --steps 5 --warmup 1
done
echo "== matrix products, float32 sgemm against bf16 operands (oneDNN's matmul; AMX where it runs)"
"$BUILD/matmul_bf16" --threads 2 --rounds 5
echo "== generation, GPT-2 124M shape, prompt 64 tokens, 128 new tokens (tinylm 2 threads)"
"$BUILD/generate_speed" --preset gpt2-124m --prompt 64 --new 128 --threads 2
"$PY" bench/generate_speed_torch.py --prompt 64 --new 128 --threads 1
"$PY" bench/generate_speed_torch.py --prompt 64 --new 128 --threads 2
echo "== decode weights on a trained model: Tiny Shakespeare, configs/shakespeare-char-cpu.json, 600 steps"
quality_run=$(mktemp -d "${TMPDIR:-/tmp}/tinylm-decode-quality.XXXXXX")
"$BUILD/tinylm" train --quiet --config configs/shakespeare-char-cpu.json --set train.max_steps=600 \
  --set train.lr_decay_steps=600 --out "$quality_run/run" >/dev/null
"$BUILD/decode_quality" --model "$quality_run/run" --text data/tinyshakespeare.txt --tokens 2000 --threads 2
rm -rf "$quality_run"
echo "== GPT-2 BPE encoding"
bash bench/bpe.sh "$BUILD"
echo "== tokenizer.json encoding (Llama 3, Qwen3), one thread"
bash bench/hf_json.sh "$BUILD"
echo "== serving, GPT-2 124M shape, 64-token prompts, 64 new tokens, 2 threads, 8 slots"
"$BUILD/serve_speed" --tinylm "$BUILD/tinylm" --preset gpt2-124m --prompt 64 --new 64 --threads 2 --rounds 2
echo "== a prompt's products, GPT-2 124M's block matrices, 64 rows, 2 threads: sgemm vs packed weights"
"$BUILD/prompt_products" --rows 64 --rounds 9 --threads 2
echo "== GGUF files, tinylm beside llama.cpp (GPT-2 124M shape at F32, F16, Q8_0; prompt 64, 128 new, 2 threads)"
bash bench/gguf.sh "$BUILD"
bash bench/distributed.sh "$BUILD"
