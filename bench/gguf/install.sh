#!/usr/bin/env bash
# llama.cpp for the GGUF speed benchmark (bench/gguf.sh), installed once into a cache
# folder outside the clone, so that CI and later `make bench` runs reuse it:
#   1. npm node-llama-cpp 3.22.1 (this folder's package.json and lock file) into
#      ${TINYLM_BENCH_CACHE:-~/.cache/tinylm-bench}/llama-cpp, without its prebuilt
#      libraries (--omit=optional: they are built for any x86-64 and are slower here) and
#      without its postinstall step (--ignore-scripts: the build below is made in the open);
#   2. `node-llama-cpp source download --gpu false`: clones the llama.cpp sources that the
#      npm package itself carries (llama/gitRelease.bundle, so no network is needed) and
#      compiles them for the CPU only, with GGML_NATIVE on (node-llama-cpp's choice for a
#      build made on the machine that runs it): llama.cpp built for this CPU's instruction
#      set, at its best here. About 8 minutes on 2 cores. The build lands in the package's
#      llama/localBuilds/, where getLlama({build: "never"}) finds it before any prebuilt one.
# A stamp file records a finished build together with the CPU it was made for: a cache
# restored onto another CPU (CI runners differ) is rebuilt rather than run with
# instructions that CPU may lack. With a matching stamp this script only says where the
# build is.
#   bench/gguf/install.sh     last line: "llama.cpp: native build in DIR"
# Exit 77 with "skipped: ..." when node/npm are missing or npm cannot install the package
# (offline); exit 1 when the compilation fails (its log is named).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${TINYLM_BENCH_CACHE:-$HOME/.cache/tinylm-bench}/llama-cpp
version=3.22.1  # node-llama-cpp, as package.json and tests/export/llama_cpp

if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "skipped: node/npm not found"
  exit 77
fi
mkdir -p "$cache"
# One install at a time: a second caller waits here, then finds the stamp.
exec 9>"$cache/.install.lock"
flock 9

# What the build is tied to: the package version and this CPU (model and feature flags).
cpu_model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | awk 'NR == 1')
cpu_flags=$(sed -n 's/^flags[[:space:]]*: //p' /proc/cpuinfo | awk 'NR == 1' | cksum | cut -d' ' -f1)
want="node-llama-cpp $version; native CPU build; ${cpu_model:-unknown CPU}; flags $cpu_flags"
stamp=$cache/native-build.stamp
pkg=$cache/node_modules/node-llama-cpp
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$pkg/llama/localBuilds" ]; then
  echo "llama.cpp: native build in $pkg/llama/localBuilds"
  exit 0
fi
rm -f "$stamp"
log=$cache/install.log
: >"$log"

# 1. The package, at the versions the lock file pins. npm install, not npm ci: the lock
# file leaves out the optional builds of other platforms (macOS, Windows), which npm ci
# takes for a lock file out of date, and which --omit=optional skips anyway.
cp "$here/package.json" "$here/package-lock.json" "$cache/"
installed=$(node -p 'try { require(process.argv[1]).version } catch { "" }' "$pkg/package.json")
if [ "$installed" != "$version" ]; then
  echo "llama.cpp: installing npm node-llama-cpp $version into $cache"
  (cd "$cache" && npm install --omit=optional --ignore-scripts --prefer-offline --no-audit --no-fund) \
    >>"$log" 2>&1 ||
    { echo "skipped: could not install npm node-llama-cpp $version (offline?); see $log"; exit 77; }
fi

# 2. The sources from the package's own bundle, compiled for this CPU. The previous build
# (of another CPU, or unfinished) is removed first so that only this one can be found.
for tool in cmake g++ make git; do
  command -v "$tool" >/dev/null 2>&1 ||
    { echo "skipped: $tool not found (needed to compile llama.cpp)"; exit 77; }
done
rm -rf "$pkg/llama/localBuilds" "$pkg/llama/lastBuild.json"
echo "llama.cpp: compiling for this CPU (GGML_NATIVE, CPU only; about 8 minutes on 2 cores);" \
     "log in $log"
start=$(date +%s)
(cd "$cache" && npx --no node-llama-cpp source download --gpu false --noUsageExample) \
  >>"$log" 2>&1 ||
  { tail -20 "$log"; echo "install.sh: compiling llama.cpp failed; see $log" >&2; exit 1; }
echo "llama.cpp: compiled in $(( $(date +%s) - start )) s"
echo "$want" >"$stamp"
echo "llama.cpp: native build in $pkg/llama/localBuilds"
