#!/usr/bin/env bash
# Checks the .deb as a user gets it: unpacked into an empty folder (no source tree, no build
# folder), run from another folder. txcli decode without --checkpoint must translate with the
# shipped model found beside the executable, and the app must draw its default layout.
# usage: check_package.sh PACKAGE.deb PNG_CHECK
set -euo pipefail
deb=${1:?usage: check_package.sh PACKAGE.deb PNG_CHECK}
check=${2:?}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
dpkg-deb -x "$deb" "$root"
fail() { echo "FAIL package: $*" >&2; exit 1; }

for f in usr/bin/txcli usr/bin/transformer-explorer usr/share/applications/transformer-explorer.desktop \
         usr/share/icons/hicolor/scalable/apps/transformer-explorer.svg \
         usr/share/transformer-explorer/assets/models/grammar.safetensors \
         usr/share/transformer-explorer/assets/models/everyday.safetensors; do
    [ -e "$root/$f" ] || fail "$f is not in the package"
done
# No test code: the two programs only, and the app without the self-test (a program of its own,
# tests/app/self_test.cpp, that is not installed).
programs=$(ls "$root/usr/bin" | tr '\n' ' ')
[ "$programs" = "transformer-explorer txcli " ] || fail "usr/bin holds more than the two programs: $programs"
if grep -q -a -e "SelfTest" -e "self-test: " "$root/usr/bin/transformer-explorer"; then fail "the installed app contains the self-test"; fi
depends=$(dpkg-deb -f "$deb" Depends)
[[ "$depends" == *libsentencepiece* ]] || fail "Depends does not name SentencePiece: '$depends'"

cd "$root"   # neither the source tree nor a build folder
got=$(env -u TX_ASSETS_DIR "$root/usr/bin/txcli" decode --src "The red car is big.")
[ "$got" = "El coche rojo es grande." ] || fail "txcli decode printed '$got'"
echo "ok   txcli decode from the package: $got"

export XDG_CONFIG_HOME="$root/config"
timeout 300 xvfb-run -a -s "-screen 0 1600x1000x24" env -u TX_ASSETS_DIR \
    "$root/usr/bin/transformer-explorer" --screenshot "$root/shot.png" --frames 6 > "$root/app.log" 2>&1 ||
    { cat "$root/app.log"; fail "the installed app exited non-zero"; }
"$check" "$root/shot.png" --region 0,0.03,0.33,0.5:20 --region 0.34,0.1,1,0.9:40 ||
    fail "the installed app's screenshot is blank"
echo "ok   the installed app draws its default layout"
