# cpu_line: one line naming this CPU, printed first by the benchmark scripts (bench/run.sh,
# bench/gguf.sh), which source this file. Every figure they print belongs to this CPU:
# hosts differ (Zen 4 runs 512-bit FMAs at half width, Zen 5 at full width), and ratios
# against the peers move with them.
cpu_line() {
  local model family zen
  model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | awk 'NR == 1')
  family=$(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | awk 'NR == 1')
  case "$family" in 25) zen=" (Zen 3 / Zen 4)";; 26) zen=" (Zen 5)";; *) zen="";; esac
  local avx512=no; grep -qw avx512f /proc/cpuinfo && avx512=yes
  local bf16=no; grep -qw avx512_bf16 /proc/cpuinfo && bf16=yes
  local amx=no; grep -qw amx_bf16 /proc/cpuinfo && amx=yes
  echo "CPU: ${model:-unknown}, cpu family ${family:-?}${zen}, AVX-512 $avx512," \
       "AVX512_BF16 $bf16, AMX $amx, $(nproc) cores; $(date -u +%F)"
}
