#!/usr/bin/env bash
# Builds Transformer Explorer (Release) and launches the app. Arguments go to the app.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/setup.sh"
tx_install_packages "${TX_PACKAGES[@]}"
cmake -S "$root" -B "$root/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$root/build" --target transformer-explorer txcli
exec "$root/build/app/transformer-explorer" "$@"
