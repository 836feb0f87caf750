#!/usr/bin/env bash
# Differential test: the tokenizer.json that `tinylm bpe-train` writes, read by
# transformers.js (@lenml/tokenizers). For each pre-tokeniser (gpt2, letters-marks) a
# vocabulary of 600 tokens is trained on a slice of the repo's corpora (the first 200 kB of
# tinyshakespeare.txt and of bangla.txt); gen_cases.mjs encodes texts with transformers.js
# reading that tokenizer.json (with and without special tokens) and decodes the ids, and
#   - `tinylm tokenize --tokenizer DIR --check` checks tinylm's tokenizer.json reader
#     (ids, decoded and streamed text), exactly;
#   - `tinylm tokenize --tokenizer bpe --vocab-dir DIR --check` checks the encoder.json
#     and vocab.bpe beside it (ids, with <|endoftext|> allowed), exactly;
# exit 0 only if all match.
#
#   tests/tokenizer/hf_json_diff/bpe_train_run.sh [path/to/tinylm]   (default: build/tinylm)
#   env: STRIDE (default 50: every 50th line of the corpora in ../shared/data; 1: all),
#        RANDOM_TEXTS (default 2000 random texts), SEED (default 1), DATA (the corpora's
#        folder), VOCAB_SIZE (default 600)
#
# With the gpt2 pre-tokeniser, transformers.js matches GPT-2's pattern with JavaScript's
# \s, which differs from tiktoken's (Unicode White_Space) on U+0085 and U+FEFF
# (src/tokenizer/hf_pretokenizer_json.h): texts holding either are left out of the gpt2
# check against encoder.json (tinylm's tokenizer.json reader reads as transformers.js does,
# and is checked on them too).
#
# Exit 77 with "skipped: ..." when node/npm or the npm packages are unavailable (CTest:
# the test's SKIP_RETURN_CODE is 77).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
bin=${1:-$root/build/tinylm}

source "$root/tests/common/node_test.sh"
node_test_start "$bin"
cd "$here"
installed=$(bash install.sh) || { rc=$?; echo "$installed"; exit "$rc"; }  # 77: skipped

data=${DATA:-$root/../shared/data}
work=$(mktemp -d "${TMPDIR:-/tmp}/tinylm-bpe-train-json.XXXXXX")
trap 'rm -rf "$work"' EXIT
{
  head -c 200000 "$root/data/tinyshakespeare.txt"
  printf '<|endoftext|>'
  head -c 200000 "$root/data/bangla.txt" | sed '$d'  # whole lines: no character cut in two
} >"$work/corpus.txt"
version=$(node -p 'require("./node_modules/@lenml/tokenizers/package.json").version')
status=0
for pretokenizer in gpt2 letters-marks; do
  dir=$work/$pretokenizer
  "$bin" bpe-train --corpus "$work/corpus.txt" --vocab-size "${VOCAB_SIZE:-600}" \
    --pretokenizer "$pretokenizer" --out "$dir" >/dev/null
  node gen_cases.mjs --model "$dir" --data "$data" --stride "${STRIDE:-50}" \
    --fixture "$root/tests/fixtures/tiktoken-gpt2.jsonl" --random "${RANDOM_TEXTS:-2000}" \
    --seed "${SEED:-1}" >"$work/cases.jsonl"
  # The same ids as the encoder.json check reads them: every special token allowed.
  # For gpt2, the texts holding U+0085 or U+FEFF are left out (above).
  node -e 'const skip = process.argv[1] === "gpt2" ? /[\u0085\ufeff]/u : null;
    for (const line of require("fs").readFileSync(0, "utf8").split("\n")) {
      if (!line) continue;
      const c = JSON.parse(line);
      if (!skip || !skip.test(c.text))
        console.log(JSON.stringify({ text: c.text, ids: c.ids, allowed_special: "all" }));
    }' "$pretokenizer" <"$work/cases.jsonl" >"$work/bpe-cases.jsonl"
  echo "bpe-train $pretokenizer (@lenml/tokenizers $version): $(wc -l <"$work/cases.jsonl") texts"
  echo -n "  tokenizer.json: "
  "$bin" tokenize --tokenizer "$dir" --check "$work/cases.jsonl" || status=1
  echo -n "  encoder.json + vocab.bpe ($(wc -l <"$work/bpe-cases.jsonl") texts): "
  "$bin" tokenize --tokenizer bpe --vocab-dir "$dir" --check "$work/bpe-cases.jsonl" || status=1
done
exit $status
