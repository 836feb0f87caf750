#!/usr/bin/env bash
# tinylm beside llama.cpp on the same GGUF files: the GPT-2 124M preset (random weights)
# exported at F32, F16 and Q8_0, and the SmolLM2-135M preset (llama.cpp's llama: 30
# layers, d_model 576, 9 heads over 3 KV heads, SwiGLU 1536, vocab 49152, tied) at F32,
# F16, BF16 and Q8_0, batch 1, a 64-token prompt then 128 greedy tokens,
# 2 threads. Prefill and decode tokens/s, each the median of 3 rounds; a round runs
# tinylm's bench/generate_speed then llama.cpp's bench/gguf/llama_speed.mjs, one process
# each, both timed warm (each program runs an untimed pass first) and each giving the
# median of 3 passes (one timed prefill is one 60-160 ms reading, and some hosts move by
# 2x between consecutive ones). llama.cpp is npm
# node-llama-cpp compiled for this CPU, installed once into a cache outside the clone
# (bench/gguf/install.sh). The table gives the ratios (tinylm's decode target: >= 1.3x
# llama.cpp's) and each decode as a fraction of its memory-bandwidth bound.
# Before timing a file, llama.cpp's log-probabilities after a fixed 64-token prompt must
# agree with tinylm's (`tinylm generate --logprobs 20` on the same file) within the
# type's tolerance below, at the batch size it is timed with; where they do not (ggml's
# AMX Q8_0 kernel on Intel Xeons, docs/export.md), llama.cpp is timed with batches of 16
# and the output says so. llama.cpp's CPU library (native build or prebuilt variant) and
# its errors are printed.
# Usage: bench/gguf.sh [build-dir] [preset ...]   (needs $BUILD/tinylm and
#        $BUILD/generate_speed; presets: gpt2-124m smollm2-135m, the default both)
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
shift || true
presets=("$@")
[ "${#presets[@]}" -gt 0 ] || presets=(gpt2-124m smollm2-135m)
prompt=64 new=128 threads=2 rounds=3 passes=3
source bench/cpu_line.sh
cpu_line
for bin in tinylm generate_speed; do
  [ -x "$BUILD/$bin" ] || { echo "gguf.sh: no $BUILD/$bin (build it first)" >&2; exit 2; }
done

# llama.cpp: install.sh exits 77 when node/npm or the package cannot be had; the table
# then shows tinylm alone.
llama=yes
if install_out=$(bash bench/gguf/install.sh); then
  echo "$install_out" | tail -1
else
  rc=$?
  [ "$rc" -eq 77 ] || { echo "$install_out"; exit "$rc"; }
  echo "llama.cpp $(echo "$install_out" | tail -1): tinylm alone below"
  llama=no
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/tinylm-gguf-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT

# One number out of a program's result line: pick PATTERN LINE, PATTERN a sed pattern
# around $num; stops the script, naming the line, when the number is not there.
num='\([0-9][0-9.]*\)'
pick() {
  local v; v=$(sed -n "s|.*$1.*|\\1|p" <<<"$2" | awk 'NR == 1')
  [ -n "$v" ] || { echo "gguf.sh: no number for '$1' in: $2" >&2; exit 1; }
  echo "$v"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
med() { if [ -n "$1" ]; then printf '%s' "$1" | median; else echo -; fi; }  # "-": not run

# The check's prompt (any fixed ids of GPT-2's vocabulary) and each type's tolerance: the
# largest |llama.cpp logprob - tinylm logprob| over tinylm's 20 most likely tokens (about
# 3x what a Zen 5 host shows: llama.cpp's F32 GELU goes through an fp16 table, and at Q8_0
# it quantises the activations to 8 bits as well).
# (ids below the smaller vocabulary, SmolLM2's 49152, so that one prompt fits both).
check_ids=$(awk -v n="$prompt" 'BEGIN { srand(7); for (i = 0; i < n; ++i) printf "%s%d", (i ? "," : ""), int(rand() * 49151) }')
# (BF16: ggml rounds the activations to bf16 too, as at Q8_0 to 8 bits.)
declare -A check_tol=([f32]=0.05 [f16]=0.05 [bf16]=0.3 [q8_0]=0.3)
declare -A preset_types=([gpt2-124m]="f32 f16 q8_0" [smollm2-135m]="f32 f16 bf16 q8_0")
declare -A preset_target=([gpt2-124m]=1.3x [smollm2-135m]=1.0x)
declare -A preset_title=([gpt2-124m]="GPT-2 124M shape" [smollm2-135m]="SmolLM2-135M shape (llama)")

shown=no
# Times one preset at each of its types, then prints its table.
bench_preset() {
local preset=$1 rows=""
# file type = the weights tinylm decodes it with (its own: what `tinylm generate` does
# with that file)
for type in ${preset_types[$preset]}; do
  decode=$type
  file=$work/$preset-$type.gguf
  "$BUILD/tinylm" export --model "$preset" --format gguf --dtype "$type" --out "$file" >/dev/null
  echo "== $preset GGUF $type ($(du -m "$file" | cut -f1) MB), tinylm decode $decode, prompt $prompt, new $new, $threads threads"
  t_pre="" t_dec="" mb="" triad="" l_pre="" l_dec=""
  check_top=$("$BUILD/tinylm" generate --model "$file" --prompt-ids "$check_ids" --max-new-tokens 1 \
                --greedy --logprobs 20 | sed -n 's/^logprobs: [^;]*; top //p')
  [ -n "$check_top" ] || { echo "gguf.sh: tinylm generate --logprobs gave nothing on $file" >&2; exit 1; }
  for ((r = 1; r <= rounds; ++r)); do
    out=$("$BUILD/generate_speed" --model "$file" --decode "$decode" --prompt "$prompt" \
            --new "$new" --threads "$threads" --rounds "$passes" --uncached-new 0) ||
      { echo "$out"; echo "gguf.sh: $BUILD/generate_speed failed on $file" >&2; exit 1; }
    line=$(grep "^tinylm .* decode $decode: " <<<"$out") ||
      { echo "$out"; echo "gguf.sh: no result line from generate_speed" >&2; exit 1; }
    echo "round $r: $line"
    t_pre+="$(pick "prefill [0-9]* tokens $num tokens/s" "$line")"$'\n'
    t_dec+="$(pick "; decode $num tokens/s" "$line")"$'\n'
    mb+="$(pick "weights read per token $num MB" "$line")"$'\n'
    triad+="$(pick "triad $num GB/s" "$line")"$'\n'
    if [ "$llama" = yes ]; then
      out=$(node bench/gguf/llama_speed.mjs --model "$file" --prompt "$prompt" --new "$new" \
              --threads "$threads" --rounds "$passes" --check-ids "$check_ids" \
              --check-top "$check_top" --check-tol "${check_tol[$type]}" 2>&1) ||
        { echo "$out"; echo "gguf.sh: llama_speed.mjs failed on $file (its output above)" >&2; exit 1; }
      if [ "$shown" = no ]; then  # which llama.cpp, once: its build and instruction sets
        grep -E '^llama.cpp (build|system info|CPU library):' <<<"$out"; shown=yes
      fi
      [ "$r" -gt 1 ] || grep -E '^llama.cpp (check|: timed with)' <<<"$out"
      line=$(grep '^llama.cpp .*(median of' <<<"$out")
      echo "round $r: $line"
      l_pre+="$(pick "prefill [0-9]* tokens $num tokens/s" "$line")"$'\n'
      l_dec+="$(pick "; decode $num tokens/s" "$line")"$'\n'
    fi
  done
  # One row per type: the medians (llama.cpp's "-" when it did not run).
  rows+="$type $decode $(med "$t_pre") $(med "$l_pre") $(med "$t_dec") $(med "$l_dec")"
  rows+=" $(med "$mb") $(med "$triad")"$'\n'
done

# The bandwidth bound of a decode: every weight is read once per token, so at best
# tokens/s = triad bandwidth / weight bytes per token. tinylm's bytes come from its own
# line; llama.cpp's are taken as the same bytes for that type (an approximation: both
# read the same matrices at the same width: 4, 2 or 34/32 bytes a weight).
echo "== GGUF speed, ${preset_title[$preset]}, medians of $rounds rounds of $passes passes (tokens/s; ratio = tinylm / llama.cpp)"
printf '%s' "$rows" | awk -v prompt="$prompt" '
  function ratio(a, b) { return (a == "-" || b == "-" || b == 0) ? "-" : sprintf("%.2fx", a / b) }
  function part(v, bound) { return (v == "-" || bound == 0) ? "-" : sprintf("%.0f%%", 100 * v / bound) }
  BEGIN {
    printf "%-5s %-6s %9s %9s %6s   %8s %8s %6s   %8s %8s %8s\n", "file", "tinylm", "prefill", "prefill",
           "", "decode", "decode", "", "bound", "tinylm", "llama";
    printf "%-5s %-6s %9s %9s %6s   %8s %8s %6s   %8s %8s %8s\n", "type", "weights", "tinylm", "llama",
           "ratio", "tinylm", "llama", "ratio", "tok/s", "of bound", "of bound"
  }
  {
    bound = ($7 > 0) ? $8 * 1e9 / ($7 * 1e6) : 0;  # GB/s over MB per token
    printf "%-5s %-6s %9s %9s %6s   %8s %8s %6s   %8.1f %8s %8s\n", toupper($1), $2, $3, $4,
           ratio($3, $4), $5, $6, ratio($5, $6), bound, part($5, bound), part($6, bound)
  }'
echo "(decode target: tinylm >= ${preset_target[$preset]} llama.cpp; prefill of $prompt tokens in one batch)"
}

for preset in "${presets[@]}"; do
  [ -n "${preset_types[$preset]:-}" ] || { echo "gguf.sh: no preset '$preset' here (gpt2-124m, smollm2-135m)" >&2; exit 2; }
  bench_preset "$preset"
done
