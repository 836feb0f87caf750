#!/usr/bin/env bash
# The layers of src/ include only downwards: a file of src/<layer> includes headers of its
# own layer and of the layers that layer links in CMakeLists.txt (tinylm_layer(<layer>
# deps...) and target_link_libraries(tinylm_<layer> ... deps), followed through), never
# one above it or beside it. src/cli, the program on top, may include any layer.
#   bash tests/layers/check_includes.sh [REPO_ROOT]
# Prints every include that breaks the order and exits 1; else prints a summary, exit 0.
set -euo pipefail
root=${1:-.}
declare -A links  # layer -> the layers it links directly (space separated)

while read -r call; do
  read -r -a words <<<"${call//[()]/ }"
  if [[ ${words[0]} == tinylm_layer ]]; then layer=${words[1]}; else layer=${words[1]#tinylm_}; fi
  for w in "${words[@]:2}"; do
    [[ $w == tinylm_* ]] && links[$layer]+=" ${w#tinylm_}"
  done
  links[$layer]+=""
done < <(grep -oE '(tinylm_layer\(|target_link_libraries\(tinylm_)[a-z_]+[^)]*' "$root/CMakeLists.txt")

# below <layer>: the layer itself and everything it links, directly or not.
below() {
  local seen=" $1 " todo=("$1") l d
  while ((${#todo[@]})); do
    l=${todo[0]}
    todo=("${todo[@]:1}")
    for d in ${links[$l]-}; do
      [[ $seen == *" $d "* ]] || { seen+="$d "; todo+=("$d"); }
    done
  done
  echo "$seen"
}

bad=0 files=0
for dir in "$root"/src/*/; do
  layer=$(basename "$dir")
  [[ $layer == cli ]] && continue
  if [[ -z ${links[$layer]+set} ]]; then
    echo "src/$layer: not a layer of CMakeLists.txt (tinylm_layer($layer ...))"
    bad=1
    continue
  fi
  allowed=$(below "$layer")
  while IFS= read -r file; do
    files=$((files + 1))
    while IFS=: read -r line target; do
      inc=${target%%/*}
      [[ -d $root/src/$inc && $allowed != *" $inc "* ]] || continue
      echo "${file#"$root"/}:$line: $layer includes $target; $layer may include only:${allowed% }"
      bad=1
    done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"([^"]+)".*/\1/;T;=;p' "$file" |
             paste -d: - -)
  done < <(find "$dir" -type f \( -name '*.h' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \))
done
((bad == 0)) && echo "layer includes: $files files of ${#links[@]} layers include only downwards"
exit "$bad"
