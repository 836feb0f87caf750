#!/usr/bin/env bash
# Installs the Debian packages tinylm needs to build and test. Idempotent and quiet
# when everything is already there. Run as root (or with sudo available).
#   scripts/install-deps.sh          build + test dependencies
#   scripts/install-deps.sh --bench  also PyTorch (python3-torch), the benchmark peer
#   scripts/install-deps.sh --test   also Chromium and node, for the browser test of the
#                                    run report (best effort: without them it is skipped)
set -euo pipefail

packages=(g++ cmake make ninja-build ccache pkg-config libopenblas-openmp-dev nlohmann-json3-dev
          libcli11-dev libgtest-dev libgmock-dev libpcre2-dev libdnnl-dev
          libcpp-httplib-dev libcurl4-openssl-dev libssl-dev
          openmpi-bin libopenmpi-dev)
if [[ "${1:-}" == "--bench" ]]; then
  packages+=(python3 python3-torch python3-numpy libbenchmark-dev)
  # node/npm only when missing: a node installed outside apt makes Debian's npm
  # package conflict with it ("held broken packages").
  command -v node >/dev/null 2>&1 || packages+=(nodejs)
  command -v npm >/dev/null 2>&1 || packages+=(npm)
fi
optional=()
if [[ "${1:-}" == "--test" ]]; then
  optional=(chromium)
  command -v node >/dev/null 2>&1 || optional+=(nodejs npm)
fi

not_installed() {  # the given packages that dpkg does not have
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || echo "$p"
  done
}
missing=($(not_installed "${packages[@]}"))
missing_optional=($(not_installed "${optional[@]}"))
[[ ${#missing[@]} -eq 0 && ${#missing_optional[@]} -eq 0 ]] && exit 0

SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "install-deps: installing ${missing[*]}"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [[ ${#missing_optional[@]} -gt 0 ]]; then
  echo "install-deps: installing ${missing_optional[*]} (for the browser test)"
  $SUDO apt-get install -y -qq --no-install-recommends "${missing_optional[@]}" >/dev/null ||
    echo "install-deps: could not install ${missing_optional[*]}; the browser test will be skipped"
fi
