#!/usr/bin/env bash
# The README's main job: train nanoGPT's CPU-sized character-level model on Tiny
# Shakespeare (about 0.8M parameters, 2,000 steps: a few minutes on 2 cores), then sample
# from it. A finished run in runs/shakespeare-demo is reused, never overwritten.
set -euo pipefail
cd "$(dirname "$0")/.."
TINYLM=${1:-build/tinylm}
RUN=runs/shakespeare-demo
CONFIG=configs/shakespeare-char-cpu.json

echo "== the model (tinylm info)"
"$TINYLM" info --config "$CONFIG" --batch 12 | sed -n '1,20p'

if [[ -f "$RUN/last.safetensors" ]] && grep -q '"step":2000' "$RUN/log.jsonl" 2>/dev/null; then
  echo "== $RUN is already trained (delete it to train again)"
elif [[ -f "$RUN/last.safetensors" ]]; then
  echo "== resuming the unfinished run in $RUN"
  "$TINYLM" train --config "$CONFIG" --out "$RUN" --resume
else
  echo "== training (tinylm train --config $CONFIG --out $RUN)"
  "$TINYLM" train --config "$CONFIG" --out "$RUN"
fi

echo
echo "== validation loss over the whole held-out split (tinylm eval)"
"$TINYLM" eval --run "$RUN"
echo
echo "== two samples (tinylm sample --run $RUN --prompt ROMEO: ...)"
"$TINYLM" sample --run "$RUN" --prompt "ROMEO:" --max-new-tokens 250 --temperature 0.8 --top-k 200 --seed 1
echo
"$TINYLM" sample --run "$RUN" --prompt "JULIET:" --max-new-tokens 250 --temperature 0.8 --top-k 200 --seed 2
echo
[[ -f "$RUN/report.html" ]] || "$TINYLM" report --run "$RUN" >/dev/null
echo "== the run's report (loss curves, samples, attention maps, tables): $RUN/report.html"
