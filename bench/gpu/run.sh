#!/usr/bin/env bash
# The GPU speed table of docs/performance.md in one command, on a GPU machine lent
# through the device tool (after scripts/gpu-bundle.sh here; carry: [".gpu"]):
#   - the Shakespeare recipe's training step (configs/shakespeare-char.json: 10.65M
#     parameters, batch 64 x 256, dropout 0.2), tinylm at fp32 / tf32 / bf16 products,
#     beside nanoGPT's step in PyTorch (torch.compile, bf16 autocast, flash attention,
#     fused AdamW; bench/gpu/shakespeare_step_torch.py) on the same GPU
#   - GPT-2 124M training, batch 16 x 1024 (GPT-2's BPE on Tiny Shakespeare): tokens/s, MFU
#   - GPT-2 124M decoding (random weights, batch 1, a 64-token prompt then 128 greedy
#     tokens with the KV cache): tinylm generate --timings beside PyTorch eager on the GPU
#     (bench/generate_speed_torch.py --device cuda), each timed warm
#   - optionally (recipe): the whole 5,000-step recipe, its wall time and final val loss
# Usage there: bash bench/gpu/run.sh [recipe-precision, e.g. bf16; none: skip the recipe]
set -uo pipefail
recipe=${1:-none}
OUT=${OUT:-/tmp/gpu-bench}
mkdir -p "$OUT"
[ -d /tmp/gpu ] || tar -xJf .gpu/bundle.tar.xz -C /tmp
export LD_LIBRARY_PATH=/tmp/gpu/lib:/usr/local/cuda/lib64
tinylm=/tmp/gpu/bin/tinylm
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)

# ms per step and MFU from the last logged steps of a run folder's log.jsonl
step_stats() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1] + "/log.jsonl")]
steps = [r for r in rows if "tokens_per_s" in r][1:]  # the first window holds the warm-up
tps = sorted(r["tokens_per_s"] for r in steps)[len(steps) // 2]
mfu = sorted(r.get("mfu", 0) for r in steps)[len(steps) // 2]
print(f"{float(sys.argv[2]) / tps * 1000:.2f} ms/iter, {tps:,.0f} tokens/s, MFU {100 * mfu:.1f}% of the fp32 peak")
EOF
}

shakespeare=(--config configs/shakespeare-char.json --device cuda --set train.eval_iters=1
  --set train.eval_interval=100000 --set train.log_interval=10 --set sample.max_new_tokens=0
  --set train.checkpoint_interval=100000)
echo "GPU: $gpu"
echo "== Shakespeare step (10.65M parameters, batch 64 x 256, dropout 0.2)"
for precision in fp32 tf32 bf16; do
  rm -rf /tmp/bench-run
  "$tinylm" train "${shakespeare[@]}" --precision $precision --set train.max_steps=60 \
    --out /tmp/bench-run > "$OUT/step_$precision.log" 2>&1 || { echo "tinylm $precision failed"; tail -5 "$OUT/step_$precision.log"; continue; }
  echo "tinylm  $precision products: $(step_stats /tmp/bench-run 16384)"
done
(cd bench/gpu && PYTHONUNBUFFERED=1 python3 shakespeare_step_torch.py --steps 50 2>&1 |
  grep -v -i warn | tee "$OUT/step_torch.log")

echo "== GPT-2 124M training, batch 16 x 1024 (random init, GPT-2 BPE on Tiny Shakespeare)"
for precision in fp32 bf16; do
  rm -rf /tmp/bench-run
  "$tinylm" train "${shakespeare[@]}" --preset gpt2-124m --set data.tokenizer=gpt2 \
    --set model.dropout=0.0 --set train.batch_size=16 --set train.max_steps=30 \
    --precision $precision --out /tmp/bench-run > "$OUT/gpt2_$precision.log" 2>&1 || { echo "tinylm gpt2 $precision failed"; tail -5 "$OUT/gpt2_$precision.log"; continue; }
  echo "tinylm  $precision products: $(step_stats /tmp/bench-run 16384)"
done

echo "== GPT-2 124M decoding (random weights, batch 1, 64-token prompt, 128 new tokens)"
prompt=$(python3 -c "import random; random.seed(1); print(','.join(str(random.randrange(50257)) for _ in range(64)))")
for round in warm timed; do  # the first run holds the GPU's start-up
  "$tinylm" generate --model gpt2-124m --prompt-ids "$prompt" --max-new-tokens 128 --greedy \
    --timings --device cuda > "$OUT/decode_$round.log" 2>&1 || { echo "tinylm decode failed"; tail -3 "$OUT/decode_$round.log"; }
done
echo "tinylm  $(grep -E '^(prompt|decode):' "$OUT/decode_timed.log" | tr '\n' ' ')"
(cd bench && PYTHONUNBUFFERED=1 python3 generate_speed_torch.py --device cuda 2>&1 | grep -v -i warn)

if [ "$recipe" != none ]; then
  echo "== the whole Shakespeare recipe (5,000 steps, eval every 250 over 200 batches), $recipe"
  rm -rf /tmp/recipe-run
  start=$(date +%s)
  "$tinylm" train --config configs/shakespeare-char.json --device cuda --precision "$recipe" \
    --out /tmp/recipe-run --set sample.max_new_tokens=0 > "$OUT/recipe.log" 2>&1
  echo "exit $?, wall time $(( $(date +%s) - start )) s (start-up, evaluation and checkpoints included)"
  grep "val loss" "$OUT/recipe.log" | tail -3
  cp /tmp/recipe-run/log.jsonl "$OUT/recipe.jsonl"
fi
