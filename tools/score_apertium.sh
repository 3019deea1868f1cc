#!/usr/bin/env bash
# Apertium's score on the everyday dev set: the ceiling the corpus's teacher sets. Translates the
# English column with `apertium -u eng-spa` (the Debian packages apertium and apertium-eng-spa; -u
# leaves unknown words unmarked, as a reader would see them) and scores the output against the
# Spanish column with `txcli score` (BLEU as txcli evaluate, chrF2 as sacreBLEU).
#   tools/score_apertium.sh [DEV.tsv] [TXCLI]     (defaults: assets/corpus/everyday/dev.tsv, build/app/txcli)
# Extra options for txcli score (--json) go in SCORE_OPTIONS; KEEP=DIR keeps the translations there.
# SENSES=1 translates as the shipped corpus's generator does (tools/apertium_everyday_senses.py:
# Apertium with the everyday senses of everyday_corpus.apertium, e.g. work -> trabajar, key -> llave).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
dev="${1:-$root/assets/corpus/everyday/dev.tsv}"
txcli="${2:-$root/build/app/txcli}"

command -v apertium >/dev/null || { echo "score_apertium.sh: apertium is not installed (apt-get install apertium apertium-eng-spa)" >&2; exit 1; }
[ -x "$txcli" ] || { echo "score_apertium.sh: $txcli not found; build it first (cmake --build build --target txcli)" >&2; exit 1; }
[ -r "$dev" ] || { echo "score_apertium.sh: cannot read $dev" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# The pairs as txcli reads them: empty lines skipped, CR dropped. One line in, one line out: Apertium
# would otherwise treat a blank line as a paragraph break, so the count is checked below.
grep -v '^[[:space:]]*$' "$dev" | tr -d '\r' | cut -f1 > "$work/en.txt"
if [ -n "${SENSES:-}" ]; then
  translate=(python3 "$root/tools/apertium_everyday_senses.py")
else
  translate=(apertium -u eng-spa)
fi
"${translate[@]}" < "$work/en.txt" | sed -e 's/  */ /g' -e 's/^ //' -e 's/ $//' > "$work/apertium.txt"
in_lines=$(wc -l < "$work/en.txt")
out_lines=$(wc -l < "$work/apertium.txt")
if [ "$in_lines" -ne "$out_lines" ]; then
  echo "score_apertium.sh: Apertium returned $out_lines lines for $in_lines sentences of $dev" >&2
  exit 1
fi
if [ -n "${KEEP:-}" ]; then
  mkdir -p "$KEEP" && cp "$work/apertium.txt" "$KEEP/apertium.txt"
fi
# shellcheck disable=SC2086  # SCORE_OPTIONS is a list of options
"$txcli" score --ref "$dev" --hyp "$work/apertium.txt" ${SCORE_OPTIONS:-}
