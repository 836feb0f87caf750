#!/usr/bin/env bash
# The proof with the real libraries, step 3 of 3 (see prepare.sh), here: loads the
# adapter peft saved (DIR/peft-adapter) into tinylm with `tinylm lora merge`, and compares
# the result with peft's own merge (DIR/peft-merged), tensor by tensor.
#   bash scripts/hf-proof/finish.sh DIR
set -euo pipefail
cd "$(dirname "$0")/../.."
T=${TINYLM:-build/tinylm}
dir=$1
rm -rf .proof/from-peft
"$T" lora merge --base .proof/base --adapter "$dir/peft-adapter" --out .proof/from-peft
python3 scripts/hf-proof/compare_safetensors.py .proof/from-peft/model.safetensors \
  "$dir/peft-merged/model.safetensors"
