#!/usr/bin/env bash
# Browser test of `tinylm serve`'s playground: starts the server on a free port with the
# tiny GPT-2 fixture, opens the page it serves at http://127.0.0.1:PORT/ in headless
# Chromium (check.mjs) and drives it as a user would: generate, click tokens and
# alternatives, read the next-token chart and the attention heatmap; saves a screenshot
# to OUT_DIR/playground.png. The server is stopped with SIGTERM at the end. Then the page
# against a model whose vocabulary cannot spell its English example prompt (the addition
# task, trained for one step): check_vocabulary.mjs.
#
#   tests/serve/browser/run.sh [path/to/tinylm] [OUT_DIR]   (defaults: build/tinylm, build/test-artifacts)
#
# PLAYGROUND_FILE=src/serve/playground.html opens that file instead (file://...?api=URL;
# the server then answers it with --cors-origin '*'): to try the page without rebuilding.
# Exit 77 with "skipped: ..." when Chromium, node/npm or playwright-core are unavailable
# (CTest: SKIP_RETURN_CODE 77).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/tinylm}
out=${2:-$root/build/test-artifacts}
chromium=${CHROMIUM:-/usr/bin/chromium}
page_file=${PLAYGROUND_FILE:-}

[ -x "$chromium" ] || { echo "skipped: no Chromium at $chromium (apt install chromium)"; exit 77; }
command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1 ||
  { echo "skipped: node/npm not found"; exit 77; }
[ -x "$bin" ] || { echo "run.sh: no tinylm binary at $bin" >&2; exit 2; }
if [ -n "$page_file" ] && [ ! -f "$page_file" ]; then
  echo "run.sh: PLAYGROUND_FILE $page_file does not exist" >&2
  exit 2
fi
if [ ! -d "$here/node_modules/playwright-core" ]; then
  (cd "$here" && npm ci --prefer-offline --no-audit --no-fund >/dev/null 2>&1) ||
    { echo "skipped: could not install npm playwright-core (offline?)"; exit 77; }
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tinylm-serve-browser.XXXXXX")
server_pid=
stop_server() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
    kill -TERM "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
  fi
  server_pid=
}
cleanup() {
  local rc=$?
  stop_server
  rm -rf "$work"
  exit "$rc"
}
trap cleanup EXIT
mkdir -p "$out"

# Starts `tinylm serve --port 0 --parallel 2 ARGS...` in the background; sets server_pid,
# and url once the server prints "tinylm serve: ... on http://127.0.0.1:PORT (...)".
start_server() {
  local args=(serve "$@" --port 0 --parallel 2) port=
  [ -n "$page_file" ] && args+=(--cors-origin '*')
  "$bin" "${args[@]}" >"$work/server.log" 2>&1 &
  server_pid=$!
  for _ in $(seq 300); do
    port=$(sed -n 's|.* on http://[^ ]*:\([0-9][0-9]*\) (.*|\1|p' "$work/server.log" | head -n 1)
    [ -n "$port" ] && break
    if ! kill -0 "$server_pid" 2>/dev/null; then
      echo "FAIL tinylm serve exited before it was ready:"
      cat "$work/server.log"
      exit 1
    fi
    sleep 0.1
  done
  [ -n "$port" ] || { echo "FAIL tinylm serve did not print its address within 30 s"; cat "$work/server.log"; exit 1; }
  echo "server: http://127.0.0.1:$port/ (pid $server_pid)"
  if [ -n "$page_file" ]; then
    url="file://$(cd "$(dirname "$page_file")" && pwd)/$(basename "$page_file")?api=http://127.0.0.1:$port"
  else
    url="http://127.0.0.1:$port/"
  fi
}

# Stops the server as an operator would, and expects a clean exit (else rc=1).
stop_server_cleanly() {
  kill -TERM "$server_pid"
  local server_rc=0
  wait "$server_pid" || server_rc=$?
  server_pid=
  if [ "$server_rc" -eq 0 ]; then
    echo "ok   server stopped cleanly on SIGTERM"
  else
    echo "FAIL server exited with $server_rc after SIGTERM"
    cat "$work/server.log"
    rc=1
  fi
}

# Runs a check script against $url; its failure (or a timeout) sets rc=1.
run_check() {
  local script=$1 check_rc=0
  shift
  CHROMIUM=$chromium timeout 110 node "$here/$script" --url "$url" "$@" || check_rc=$?
  [ "$check_rc" -eq 124 ] && echo "FAIL $script took longer than 110 s"
  [ "$check_rc" -eq 0 ] || rc=1
}

rc=0
start_server --model "$root/tests/fixtures/gpt2-tiny"
run_check check.mjs --screenshot "$out/playground.png"
stop_server_cleanly

"$bin" train --config "$root/configs/addition.json" --out "$work/addition" --quiet \
  --set train.max_steps=1 --set train.eval_interval=1 --set train.checkpoint_interval=1 \
  >"$work/train.log" 2>&1 || { echo "FAIL training the addition model:"; cat "$work/train.log"; exit 1; }
start_server --run "$work/addition"
run_check check_vocabulary.mjs
stop_server_cleanly
exit "$rc"
