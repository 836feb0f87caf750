#!/usr/bin/env bash
# The README's main job. Grows with the project.
set -euo pipefail
TINYLM=${1:-build/tinylm}
"$TINYLM" --help
