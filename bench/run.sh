#!/usr/bin/env bash
# `make bench`: tinylm beside its peers, in one command.
#   1. one training step (forward + backward + AdamW) for the README's two configs,
#      tinylm and PyTorch (Debian's python3-torch), same shapes, 2 threads each;
#   2. GPT-2 124M generation (batch 1, greedy, KV cache), tinylm and PyTorch;
#   3. GPT-2 BPE encoding speed, tinylm and npm tiktoken (bench/bpe.sh).
# Usage: bench/run.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$BUILD" --target train_step generate_speed -j "$(nproc)" >/dev/null
PY=/usr/bin/python3   # Debian's python3-torch lives here

run() {  # name, then the shape flags
  local name=$1; shift
  echo "== training step, $name"
  "$BUILD/train_step" "$@"
  "$PY" bench/train_step_torch.py "$@"
}
run "0.8M (4L 4H d128 T64 B12 V65)" --layers 4 --heads 4 --d-model 128 --block 64 --batch 12 --vocab 65 --steps 30 --warmup 3
run "10.65M (6L 6H d384 T256 B64 V65)" --layers 6 --heads 6 --d-model 384 --block 256 --batch 64 --vocab 65 --steps 3 --warmup 1
echo "== generation, GPT-2 124M shape, prompt 64 tokens, 128 new tokens, 2 threads"
"$BUILD/generate_speed" --preset gpt2-124m --prompt 64 --new 128 --threads 2
"$PY" bench/generate_speed_torch.py --prompt 64 --new 128 --threads 2
echo "== GPT-2 BPE encoding"
bash bench/bpe.sh "$BUILD"
