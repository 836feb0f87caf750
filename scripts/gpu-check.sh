#!/usr/bin/env bash
# Runs on a GPU machine lent through the device tool, after scripts/gpu-bundle.sh here
# (carry: [".gpu"]): every GPU check of docs/cuda.md in one call, logs under $OUT.
#   1. the CUDA device tests and the op table on the GPU (every cuda kernel vs ops::ref)
#   2. the model on the GPU against the CPU (tests/train/device_parity_test.cpp)
#   3. tinylm verify --device cuda on the language-model fixtures
#   4. greedy generation on both devices, the same ids; instruct fine-tuning on both
#   5. a run started on the CPU resumed on the GPU, against the same run on the CPU
#   6. 200 Shakespeare steps with fp32 and with bf16 products: the losses side by side
# (bench/gpu/run.sh times them.) Usage there: bash scripts/gpu-check.sh [quick]
# (quick: parts 1 to 4 only)
set -uo pipefail
quick=${1:-}
OUT=${OUT:-/tmp/gpu-check}
mkdir -p "$OUT"
tar -xJf .gpu/bundle.tar.xz -C /tmp
export LD_LIBRARY_PATH=/tmp/gpu/lib:/usr/local/cuda/lib64
bin=/tmp/gpu/bin
failed=0
step() { echo "== $*"; }
check() {  # check NAME COMMAND...: runs it, logs to $OUT/NAME.log, prints its tail
  local name=$1
  shift
  if "$@" > "$OUT/$name.log" 2>&1; then
    echo "ok    $name"
  else
    echo "FAIL  $name (exit $?)"
    failed=$((failed + 1))
  fi
  grep -E "FAILED|PASSED|Failure|error" "$OUT/$name.log" | head -20
}

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
step "1. device tests, op table"
check test_cuda "$bin/test_cuda"
check op_table "$bin/test_backend" --gtest_filter='*cuda_*:OpTableCases.*:Backend*'

step "2. the model on the GPU against the CPU"
check device_parity "$bin/test_train" --gtest_filter='*OnDevice*'

step "3. verify --device cuda"
for fixture in gpt2-tiny gpt2-micro; do
  check "verify_$fixture" "$bin/tinylm" verify "tests/fixtures/$fixture" --device cuda
  cat "$OUT/verify_$fixture.log"
done

step "4. greedy generation on both devices"
for device in cpu cuda; do
  "$bin/tinylm" generate --model tests/fixtures/gpt2-tiny --prompt "The meaning of life" \
    --max-new-tokens 40 --greedy --print-ids --device $device > "$OUT/generate_$device.log" 2>&1
done
if cmp -s "$OUT/generate_cpu.log" "$OUT/generate_cuda.log"; then
  echo "ok    generate: the same 40 greedy tokens"
else
  echo "FAIL  generate differs"
  failed=$((failed + 1))
  diff "$OUT/generate_cpu.log" "$OUT/generate_cuda.log" | head
fi

step "4b. instruct fine-tuning on the GPU, beside the CPU"
for device in cpu cuda; do
  rm -rf /tmp/ft-$device
  "$bin/tinylm" finetune --task instruct --base tests/fixtures/gpt2-tiny \
    --data data/instruction-data.json --quiet --set finetune.epochs=1 \
    --set finetune.max_new_tokens=8 --set finetune.write_responses=false \
    --set finetune.eval_interval=20 --set finetune.eval_batches=2 \
    --out /tmp/ft-$device --device $device > "$OUT/finetune_$device.log" 2>&1 ||
    { echo "FAIL  finetune on $device"; failed=$((failed + 1)); }
  echo "$device: $(grep val_loss /tmp/ft-$device/log.jsonl | tail -1)"
done

if [ "$quick" = quick ]; then
  echo "gpu-check: $failed failed (parts 1 to 4)"
  exit $((failed > 0))
fi

step "5. CPU run resumed on the GPU"
small=(--config configs/shakespeare-char-cpu.json --quiet --set train.max_steps=40
  --set train.eval_interval=20 --set train.eval_iters=4 --set train.checkpoint_interval=20
  --set sample.max_new_tokens=0)
rm -rf /tmp/run-cpu /tmp/run-mixed
"$bin/tinylm" train "${small[@]}" --out /tmp/run-cpu > "$OUT/run_cpu.log" 2>&1
"$bin/tinylm" train "${small[@]}" --out /tmp/run-mixed --stop-after 20 > "$OUT/run_mixed.log" 2>&1
"$bin/tinylm" train "${small[@]}" --out /tmp/run-mixed --resume --device cuda >> "$OUT/run_mixed.log" 2>&1
tail -n 2 /tmp/run-cpu/log.jsonl /tmp/run-mixed/log.jsonl
cp /tmp/run-cpu/log.jsonl "$OUT/run_cpu.jsonl"
cp /tmp/run-mixed/log.jsonl "$OUT/run_mixed.jsonl"

step "6. bf16 products: a short Shakespeare run, loss beside fp32"
for precision in fp32 bf16; do
  rm -rf /tmp/run-$precision
  "$bin/tinylm" train --config configs/shakespeare-char.json --out /tmp/run-$precision \
    --device cuda --precision $precision --set train.max_steps=200 --set train.eval_interval=100 \
    --set train.eval_iters=20 --set sample.max_new_tokens=0 --quiet > "$OUT/short_$precision.log" 2>&1 ||
    { echo "FAIL  short run $precision"; failed=$((failed + 1)); }
  echo "$precision: $(grep val_loss /tmp/run-$precision/log.jsonl | tail -1)"
done

echo "gpu-check: $failed failed"
exit $((failed > 0))
