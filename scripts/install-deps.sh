#!/usr/bin/env bash
# Installs the Debian packages tinylm needs to build and test. Idempotent and quiet
# when everything is already there. Run as root (or with sudo available).
#   scripts/install-deps.sh          build + test dependencies
#   scripts/install-deps.sh --bench  also PyTorch (python3-torch), the benchmark peer
set -euo pipefail

packages=(g++ cmake make pkg-config libopenblas-openmp-dev nlohmann-json3-dev
          libcli11-dev libgtest-dev libgmock-dev libpcre2-dev)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(python3 python3-torch python3-numpy libbenchmark-dev nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

echo "install-deps: installing ${missing[*]}"
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
