#!/bin/bash
# Builds a fuzz target (tests/*/fuzz_NAME.cpp) with libFuzzer, by hand, for a
# coverage-guided run longer than ctest's mutation loop:
#
#   tests/common/build_libfuzzer.sh fuzz_NAME SOURCE.cpp...
#
# The target and the SOURCE files (the readers under test) are compiled with clang 14,
# coverage and AddressSanitizer + UndefinedBehaviorSanitizer; everything else is linked
# from the Release build's libraries in build/ (uninstrumented: build the target
# tinylm_open there first). The program is build-fuzz/fuzz_NAME; run it on a corpus
# folder and the seeds, e.g.
#
#   mkdir -p build-fuzz/corpus-NAME
#   build-fuzz/fuzz_NAME build-fuzz/corpus-NAME tests/fuzz_seeds/fuzz_NAME -max_len=4096
#     -rss_limit_mb=2048 -malloc_limit_mb=512 -max_total_time=600
#
# (one line; apt-get install clang-14 libclang-rt-14-dev if the fuzzer runtime is
# missing). The corpus folder comes first: libFuzzer adds the inputs it finds to the
# first folder, which must not be the seeds'. Each target's file names the SOURCE files
# it reads through.
set -euo pipefail
cd "$(dirname "$0")/../.."
name=$1
shift
src=$(ls tests/*/"$name".cpp)
out=build-fuzz
mkdir -p "$out/obj/$name"
flags=(-std=c++20 -O1 -g -fsanitize=fuzzer-no-link,address,undefined
  -fno-sanitize-recover=undefined -fopenmp -Isrc -Itests
  -I/usr/include/x86_64-linux-gnu/openblas-openmp -I/usr/include/aarch64-linux-gnu/openblas-openmp
  -DTINYLM_SOURCE_DIR="\"$PWD\"")
objects=()
for f in "$@"; do
  o="$out/obj/$name/$(echo "$f" | tr / _).o"
  clang++-14 "${flags[@]}" -c "$f" -o "$o"
  objects+=("$o")
done
# The top library and what it stands on, as CMakeLists.txt links them (the instrumented
# objects come first: the libraries' copies of them are not pulled in).
libs=()
for l in open finetune train generate report lora data tokenizer model io nn ops tensor util; do
  libs+=("build/libtinylm_$l.a")
done
blas=$(grep -h '^OPENBLAS_LIB:' build/CMakeCache.txt | cut -d= -f2)
dnnl=$(grep -h '^DNNL_LIB:' build/CMakeCache.txt | cut -d= -f2 | grep -v NOTFOUND || true)
clang++-14 "${flags[@]}" -fsanitize=fuzzer "$src" "${objects[@]}" "${libs[@]}" $dnnl "$blas" \
  -lpcre2-8 -o "$out/$name"
echo "$out/$name"
