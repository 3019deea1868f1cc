#!/usr/bin/env python3
"""invented_words.py -- how many translations contain an invented word.

An invented word is a word of the output that is neither Spanish (Debian's
hunspell-es, es_ES, does not know it) nor copied from the English source
(compared without case): "descarra" for "reads", "Comedo" for "Emily".
Numbers are not words here.

    python3 tools/invented_words.py --pairs SET.tsv --hyp OUTPUT.txt [--show N]

SET.tsv is English<TAB>reference per line (empty lines skipped, as txcli
reads it); OUTPUT.txt has one translation per English line, in order.
Prints the share of outputs with at least one invented word; --show N
also lists N of them with their words (never use it on a blind set).
"""

import argparse
import re
import subprocess
import sys

WORD = re.compile(r"[^\W\d_]+")


def unknown_to_hunspell(words, dictionary="es_ES"):
    """The subset of WORDS that hunspell's DICTIONARY does not accept."""
    words = sorted(set(words))
    if not words:
        return set()
    try:
        out = subprocess.run(["hunspell", "-d", dictionary, "-l"], input="\n".join(words) + "\n",
                             capture_output=True, text=True, check=True).stdout
    except FileNotFoundError:
        sys.exit("invented_words: hunspell is not installed (apt-get install hunspell hunspell-es)")
    return set(out.split())


def invented(sources, outputs, dictionary="es_ES"):
    """[(index, [invented words])] for each output with at least one."""
    candidates = []
    for src, out in zip(sources, outputs):
        copied = {w.lower() for w in WORD.findall(src)}
        candidates.append([w for w in WORD.findall(out) if w.lower() not in copied])
    unknown = unknown_to_hunspell([w for ws in candidates for w in ws], dictionary)
    result = []
    for i, ws in enumerate(candidates):
        bad = [w for w in ws if w in unknown]
        if bad:
            result.append((i, bad))
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", required=True, help="English<TAB>reference, one pair per line")
    ap.add_argument("--hyp", required=True, help="one translation per line, in the order of --pairs")
    ap.add_argument("--show", type=int, default=0, help="list this many outputs with invented words")
    ap.add_argument("--dictionary", default="es_ES")
    args = ap.parse_args()
    with open(args.pairs, encoding="utf-8") as f:
        sources = [line.rstrip("\r\n").split("\t")[0] for line in f if line.strip()]
    with open(args.hyp, encoding="utf-8") as f:
        outputs = [line.rstrip("\r\n") for line in f]
    if len(outputs) != len(sources):
        sys.exit("invented_words: %s has %d lines for the %d pairs of %s" % (args.hyp, len(outputs),
                                                                          len(sources), args.pairs))
    found = invented(sources, outputs, args.dictionary)
    print("outputs with an invented word: %d of %d (%.1f%%)" % (len(found), len(outputs),
                                                              100.0 * len(found) / max(len(outputs), 1)))
    for i, words in found[:args.show]:
        print("  %s -> %s   [%s]" % (sources[i], outputs[i], ", ".join(words)))


if __name__ == "__main__":
    main()
