#!/usr/bin/env bash
# Installs the Debian 12 packages the build, the app and the tests need (only the missing ones):
# clang for the fuzzers, ccache for test.sh's package build. Sourced by run.sh and test.sh; safe to
# run again.
set -euo pipefail

TX_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  libeigen3-dev nlohmann-json3-dev libgtest-dev googletest libsentencepiece-dev zlib1g-dev
  libimgui-dev libglfw3-dev libstb-dev libgl-dev libgl1-mesa-dri
  xvfb xauth
  dpkg-dev file
  clang libclang-rt-14-dev
  ccache
)

tx_missing_packages() {
  local missing=()
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  echo "${missing[@]:-}"
}

tx_install_packages() {
  local missing
  missing=$(tx_missing_packages "$@")
  [ -z "$missing" ] && return 0
  echo "Installing missing Debian packages: $missing"
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "error: need root or sudo to install: $missing" >&2; exit 1; }
    sudo="sudo"
  fi
  $sudo apt-get update -qq
  # shellcheck disable=SC2086
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends $missing
}

# The CUDA toolkit is optional and not a Debian package here: where it sits in /usr/local/cuda
# but nvcc is not on PATH, point CMake at it so that the gpu/ backend is built.
if ! command -v nvcc >/dev/null 2>&1 && [ -z "${CUDACXX:-}" ] && [ -x /usr/local/cuda/bin/nvcc ]; then
  export CUDACXX=/usr/local/cuda/bin/nvcc
fi

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
  tx_install_packages "${TX_PACKAGES[@]}"
fi
