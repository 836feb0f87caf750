#!/usr/bin/env bash
# Where a Shakespeare training step's GPU time goes: Nsight Compute times every kernel of
# a short run (3 steps, one evaluation batch, clocks as found), and the kernels of the
# last step are summed by name. Their total beside the step's wall time (bench/gpu/run.sh)
# says whether the GPU or the host is the bottleneck. On a GPU machine, after
# scripts/gpu-bundle.sh here (carry: [".gpu"]).
# Usage there: bash bench/gpu/profile.sh [fp32|bf16]
set -uo pipefail
precision=${1:-bf16}
OUT=${OUT:-/tmp/gpu-profile}
mkdir -p "$OUT"
[ -d /tmp/gpu ] || tar -xJf .gpu/bundle.tar.xz -C /tmp
export LD_LIBRARY_PATH=/tmp/gpu/lib:/usr/local/cuda/lib64
rm -rf /tmp/profile-run
ncu --clock-control none --metrics gpu__time_duration.sum --csv --log-file "$OUT/ncu.csv" \
  /tmp/gpu/bin/tinylm train --config configs/shakespeare-char.json --device cuda \
  --precision "$precision" --out /tmp/profile-run --set train.max_steps=3 --set train.eval_iters=1 \
  --set train.eval_interval=100000 --set sample.max_new_tokens=0 --quiet > "$OUT/train.log" 2>&1
python3 - "$OUT/ncu.csv" <<'EOF'
import csv, collections, sys
rows = [r for r in csv.DictReader(l for l in open(sys.argv[1]) if l.startswith('"'))
        if r.get("Metric Name") == "gpu__time_duration.sum"]
# the last step: the kernels after the step before's AdamW, up to its own
names = [r["Kernel Name"].split("(")[0] for r in rows]
to_us = {"ns": 1e-3, "nsecond": 1e-3, "us": 1.0, "usecond": 1.0, "ms": 1e3, "msecond": 1e3}
times = [float(r["Metric Value"].replace(",", "")) * to_us[r["Metric Unit"]] for r in rows]
adam = [i for i, n in enumerate(names) if "adamw" in n.lower()]
# AdamW ends each step (one launch for every tensor; one per tensor before 2026-11-27):
# find the last two runs of AdamW launches
runs, cur = [], [adam[0]]
for i in adam[1:]:
    if i == cur[-1] + 1 or i - cur[-1] < 3:
        cur.append(i)
    else:
        runs.append(cur); cur = [i]
runs.append(cur)
start, end = runs[-2][-1] + 1, runs[-1][-1] + 1
total = collections.Counter(); count = collections.Counter()
for n, t in zip(names[start:end], times[start:end]):
    total[n] += t; count[n] += 1
print(f"one training step: {end - start} kernels, {sum(total.values()) / 1000:.2f} ms of GPU time")
for n, t in total.most_common(25):
    print(f"{t / 1000:8.3f} ms  {count[n]:4d} x  {n[:90]}")
EOF
