#!/usr/bin/env bash
# check_includes.sh on a made-up tree of three layers (low; high and side on low): an
# include upwards and one sideways are reported with file and line, and exit 1; the same
# tree without them passes. src/cli may include anything.
#   bash tests/layers/check_includes_test.sh
set -euo pipefail
check=$(cd "$(dirname "$0")" && pwd)/check_includes.sh
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
mkdir -p "$tree"/src/{low,high,side,cli}
cat >"$tree/CMakeLists.txt" <<'CMAKE'
tinylm_layer(low)
tinylm_layer(high tinylm_low)  # a comment
tinylm_layer(side tinylm_low)
CMAKE
printf '#include <vector>\n#include "low/b.h"\n#include "high/h.h"\n' >"$tree/src/low/a.h"
printf '#pragma once\n' >"$tree/src/low/b.h"
printf '#include "low/a.h"\n#include "high/h.h"\n' >"$tree/src/high/h.h"
printf '#include "low/a.h"\n  #  include "high/h.h"\n' >"$tree/src/side/s.cpp"
printf '#include "high/h.h"\n#include "side/s.h"\n' >"$tree/src/cli/main.cpp"

fail() { echo "FAIL: $*"; exit 1; }
if out=$(bash "$check" "$tree"); then fail "an upward include passed: $out"; fi
[[ $out == *"src/low/a.h:3: low includes high/h.h; low may include only: low"* ]] ||
  fail "the upward include is not named: $out"
[[ $out == *"src/side/s.cpp:2: side includes high/h.h; side may include only: side low"* ]] ||
  fail "the sideways include is not named: $out"
[[ $(grep -c include <<<"$out") == 2 ]] || fail "more than the two includes reported: $out"

sed -i '/high/d' "$tree/src/low/a.h" "$tree/src/side/s.cpp"
out=$(bash "$check" "$tree") || fail "a clean tree failed: $out"
[[ $out == *"4 files of 3 layers"* ]] || fail "unexpected summary: $out"

mkdir "$tree/src/extra" && touch "$tree/src/extra/x.h"
if out=$(bash "$check" "$tree"); then fail "a folder that is no layer passed: $out"; fi
[[ $out == *"src/extra: not a layer of CMakeLists.txt"* ]] || fail "the folder is not named: $out"
echo "check_includes.sh: ok"
