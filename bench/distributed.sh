#!/usr/bin/env bash
# Data-parallel training on this machine (docs/distributed.md), part of `make bench`:
#   1. a training step of the 0.8M and 10.65M Tiny Shakespeare configs at one global
#      batch: 1 rank x 2 threads against 2 ranks x 1 thread (mpirun, one core each), the
#      milliseconds per step (median of the logged steps after the first) and, for the
#      ranks, the milliseconds each step spends in the gradient all-reduce;
#   2. the all-reduce alone at the GPT-2 124M shape (bench/allreduce.cpp);
#   3. what N machines would give at 10 and 100 Gbit/s (tinylm info --device cpu);
#   4. the cross-check: PyTorch's DDP (gloo, 2 processes) on the same model, weights, data
#      and optimizer gives the same losses as mpirun -np 2 tinylm (bench/ddp_torch.py).
# Skipped (exit 0, with a line saying so) without mpirun.
# Usage: bench/distributed.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
if ! command -v mpirun > /dev/null; then
  echo "== data parallel: skipped (no mpirun; scripts/install-deps.sh installs openmpi-bin)"
  exit 0
fi
cmake --build "$BUILD" --target tinylm allreduce -j "$(nproc)" > /dev/null
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
PY=/usr/bin/python3   # Debian's python3-torch lives here
work=$(mktemp -d "${TMPDIR:-/tmp}/tinylm-dist-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Median ms/step and all-reduce ms of a run's logged steps, the first left out.
step_figures() {  # run folder, sequences x tokens per step
  "$PY" - "$1/log.jsonl" "$2" <<'EOF'
import json, statistics, sys
steps = [json.loads(l) for l in open(sys.argv[1])]
steps = [s for s in steps if "tokens_per_s" in s][1:]
ms = statistics.median(float(sys.argv[2]) / s["tokens_per_s"] * 1e3 for s in steps)
ar = [s["allreduce_ms"] for s in steps if "allreduce_ms" in s]
print(f"{ms:.1f} {statistics.median(ar) if ar else 0:.1f}")
EOF
}

compare() {  # title, config, global batch, block size, steps
  local title=$1 config=$2 batch=$3 block=$4 steps=$5
  local common=(--quiet --config "$config" --set train.max_steps="$steps"
    --set train.eval_interval=100000 --set train.checkpoint_interval=100000
    --set train.log_interval=1 --set train.eval_iters=1 --set sample.max_new_tokens=0)
  echo "== data parallel, $title, global batch $batch x $block tokens"
  "$BUILD/tinylm" train "${common[@]}" --out "$work/one-$steps" --set train.threads=2 \
    --set train.batch_size="$batch" --set train.global_batch="$batch"
  mpirun -np 2 --bind-to core "$BUILD/tinylm" train "${common[@]}" --out "$work/two-$steps" \
    --set train.threads=1 --set train.batch_size=$((batch / 2)) --set train.global_batch="$batch"
  read -r one _ <<< "$(step_figures "$work/one-$steps" $((batch * block)))"
  read -r two allreduce <<< "$(step_figures "$work/two-$steps" $((batch * block)))"
  awk -v a="$one" -v b="$two" -v r="$allreduce" 'BEGIN {
    printf "1 rank x 2 threads %.1f ms/step; 2 ranks x 1 thread %.1f ms/step (%.2fx), of which all-reduce %.1f ms (%.0f %%)\n",
      a, b, a / b, r, 100 * r / b }'
}
compare "0.8M (configs/shakespeare-char-cpu.json)" configs/shakespeare-char-cpu.json 12 64 40
compare "10.65M (configs/shakespeare-char.json)" configs/shakespeare-char.json 64 256 6

echo "== the all-reduce alone, GPT-2 124M shape, 2 ranks"
mpirun -np 2 --bind-to core "$BUILD/allreduce" --preset gpt2-124m --reps 5
echo "== predicted: GPT-2 124M, B16 T1024, on N machines like this one (tinylm info)"
"$BUILD/tinylm" info --preset gpt2-124m --batch 16 --seq 1024 --device cpu | sed -n '/^data parallel/,$p'
echo "== cross-check: PyTorch DDP (gloo, 2 processes) beside mpirun -np 2 tinylm, same model, weights, data"
"$PY" bench/ddp_torch.py --tinylm "$BUILD/tinylm"
