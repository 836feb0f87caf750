#!/usr/bin/env bash
# The official OpenAI JS client (npm openai 6, for node 20) against `tinylm serve` on
# 127.0.0.1 (check.mjs): starts the server on a free port with an API key, runs the
# checks, stops the server with SIGTERM and checks that it exits 0.
#   tests/serve/openai_client/run.sh [path/to/tinylm]   (default: build/tinylm)
# Exit 77 with "skipped: ..." when node/npm or the npm package cannot be had (CTest:
# SKIP_RETURN_CODE 77).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/tinylm}

command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
  { echo "skipped: node/npm not found"; exit 77; }
[ -x "$bin" ] || { echo "run.sh: no tinylm binary at $bin" >&2; exit 2; }
if [ ! -d "$here/node_modules/openai" ]; then
  (cd "$here" && npm ci --prefer-offline --no-audit --no-fund >/dev/null 2>&1) ||
    { echo "skipped: could not install npm openai (offline?)"; exit 77; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tinylm-openai.XXXXXX")
key=test-key-$RANDOM$RANDOM
echo "$key" >"$work/key"
"$bin" serve --model "$root/tests/fixtures/gpt2-tiny" --alias tiny --port 0 --parallel 2 \
  --api-key-file "$work/key" >"$work/out" 2>&1 &
server=$!
trap 'kill -TERM $server 2>/dev/null || true; rm -rf "$work"' EXIT
port=""
for _ in $(seq 300); do
  port=$(sed -n 's|.*on http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' "$work/out")
  [ -n "$port" ] && break
  kill -0 $server 2>/dev/null || { cat "$work/out"; echo "FAIL: the server exited"; exit 1; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/out"; echo "FAIL: the server did not start in 30 s"; exit 1; }

status=0
node "$here/check.mjs" "http://127.0.0.1:$port/v1" "$key" tiny || status=1
kill -TERM $server
code=0
wait $server || code=$?
if [ $code -eq 0 ]; then echo "ok   the server exits 0 on SIGTERM"; else echo "FAIL the server exited $code on SIGTERM"; status=1; fi
if grep -q "$key" "$work/out"; then echo "FAIL the key appears in the server's output"; status=1; fi
trap 'rm -rf "$work"' EXIT
exit $status
