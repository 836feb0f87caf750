#!/usr/bin/env bash
# Browser test of the run report and figures: trains a tiny run (tinylm writes
# report.html at each evaluation), draws attention maps for 1, 2, 3, 13, 32 and 256
# tokens (at 1 and 2 the maps are narrower than their titles), the loss curves, an
# embedding similarity matrix and the activation demo's line chart (a long legend
# entry), then opens them in headless Chromium
# (check.mjs): no console errors, the figures present, no overlapping or cut-off labels,
# and a screenshot of the report saved to OUT_DIR/report.png.
#
#   tests/report/browser/run.sh [path/to/tinylm] [OUT_DIR]   (defaults: build/tinylm, build/test-artifacts)
#
# Exit 77 with "skipped: ..." when Chromium, node/npm or playwright-core are unavailable
# (CTest: SKIP_RETURN_CODE 77). `make test` installs Debian's chromium first.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/tinylm}
out=${2:-$root/build/test-artifacts}
chromium=${CHROMIUM:-/usr/bin/chromium}

[ -x "$chromium" ] || { echo "skipped: no Chromium at $chromium (apt install chromium)"; exit 77; }
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
  { echo "skipped: node/npm not found"; exit 77; }
[ -x "$bin" ] || { echo "run.sh: no tinylm binary at $bin" >&2; exit 2; }
if [ ! -d "$here/node_modules/playwright-core" ]; then
  (cd "$here" && npm ci --prefer-offline --no-audit --no-fund >/dev/null 2>&1) ||
    { echo "skipped: could not install npm playwright-core (offline?)"; exit 77; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tinylm-browser.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
cat >"$work/tiny.json" <<JSON
{
  "model": {"block_size": 256, "n_layer": 2, "n_head": 2, "d_model": 16},
  "data": {"path": "$root/data/the-verdict.txt", "tokenizer": "char"},
  "train": {"batch_size": 2, "max_steps": 20, "warmup_steps": 2, "eval_interval": 10,
            "eval_iters": 2, "log_interval": 2, "checkpoint_interval": 10},
  "sample": {"prompt": "I had", "max_new_tokens": 60}
}
JSON
"$bin" train --quiet --config "$work/tiny.json" --out "$work/run"
[ -f "$work/run/report.html" ] || { echo "FAIL: the run has no report.html"; exit 1; }
for text in "H" "Hi" "Hi!" "Hello, world!" "$(head -c 32 "$root/data/the-verdict.txt")"; do
  "$bin" attention --run "$work/run" --text "$text" --out "$work/attention-${#text}.svg" >/dev/null
done
"$bin" attention --run "$work/run" --text "$(head -c 256 "$root/data/the-verdict.txt")" \
  --out "$work/attention-256.svg" >/dev/null
"$bin" plot --run "$work/run" --out "$work/loss.svg" >/dev/null
"$bin" embeddings --run "$work/run" --out "$work/embeddings.svg" >/dev/null
"$bin" attention --example --out "$work/example.svg" >/dev/null
"$bin" demo activations --out "$work/activations.svg" >/dev/null

CHROMIUM=$chromium node "$here/check.mjs" --report "$work/run/report.html" \
  --screenshot "$out/report.png" --svg "$work/attention-1.svg" --svg "$work/attention-2.svg" \
  --svg "$work/attention-3.svg" --svg "$work/attention-13.svg" --svg "$work/attention-32.svg" \
  --svg "$work/attention-256.svg" --svg "$work/loss.svg" --svg "$work/embeddings.svg" \
  --svg "$work/example.svg" --svg "$work/activations.svg"
