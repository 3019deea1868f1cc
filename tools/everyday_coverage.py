#!/usr/bin/env python3
"""everyday_coverage.py -- how much of the everyday lexicon and of the
hand-written dev set a generated corpus covers.

Reports, for the train split of a corpus directory:
  (a) how many lexicon nouns / verbs / adjectives (the lexicon that
      tools/everyday_corpus builds: lexicon.build_lexicon) occur at least
      --min times on the English side.  A lemma's count is the sum of its
      forms' counts (noun: singular, plural; verb: base, past, -s, -ing;
      adjective: base, comparative, superlative), lower-cased word tokens
      (\\w+), whatever their part of speech in the sentence ("watch" the
      noun counts for "watch" the verb);
  (b) the token coverage of the dev set (assets/corpus/everyday/dev.tsv):
      the share of its English word tokens (lower-cased \\w+ tokens, so
      punctuation is stripped and "don't" is "don", "t") that occur in the
      train split's English side, and the most frequent dev words missing.

    python3 tools/everyday_coverage.py --dir assets/corpus/everyday \\
        [--npm DIR] [--lexicon everyday|none] [--min 5] [--missing 40]

(a) needs what the generator needs (Apertium, WordNet, the npm data);
--lexicon none skips it.  --show-missing N also lists the N most frequent
lexicon words per part of speech that stay under --min.
"""

import argparse
import collections
import gzip
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WORD = re.compile(r"\w+")


def train_counts(path):
    c = collections.Counter()
    with gzip.open(path, "rt", encoding="utf-8") as f:
        for line in f:
            c.update(WORD.findall(line.split("\t", 1)[0].lower()))
    return c


def dev_coverage(dev_path, counts, n_missing=40):
    """(tokens, covered tokens, [(word, dev count)] missing, most frequent
    first)"""
    toks = []
    with open(dev_path, encoding="utf-8") as f:
        for line in f:
            toks.extend(WORD.findall(line.split("\t", 1)[0].lower()))
    cov = sum(1 for t in toks if counts[t] > 0)
    miss = collections.Counter(t for t in toks if counts[t] == 0)
    return len(toks), cov, sorted(miss.items(), key=lambda kv: (-kv[1], kv[0]))[:n_missing]


def lemma_forms(N, V, A):
    """{pos: {lemma: set of forms}} from build_lexicon's tables."""
    forms = {"noun": {}, "verb": {}, "adj": {}}
    for w, d in N.items():
        forms["noun"][w] = {w, d["pl"]}
    for w, d in V.items():
        forms["verb"][w] = {w, d["past"], d["s3"], d["ger"]}
    for w, d in A.items():
        forms["adj"][w] = {w} | {f for f in (d.get("comp"), d.get("sup")) if f}
    return forms


def lexicon_coverage(forms, counts, min_count):
    """{pos: (lemmas, lemmas with >= min_count, [(lemma, count)] below)}"""
    res = {}
    for pos, table in forms.items():
        cnt = {w: sum(counts[f] for f in fs) for w, fs in table.items()}
        low = sorted(((w, c) for w, c in cnt.items() if c < min_count))
        res[pos] = (len(table), len(table) - len(low), low)
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=os.path.join(HERE, "..", "assets", "corpus", "everyday"))
    ap.add_argument("--dev", default=os.path.join(HERE, "..", "assets", "corpus", "everyday", "dev.tsv"))
    ap.add_argument("--npm", default=os.path.join(HERE, "..", ".npm-data", "node_modules"))
    ap.add_argument("--lexicon", choices=("everyday", "none"), default="everyday",
                    help="everyday: count the generator's lexicon (default); none: skip (a)")
    ap.add_argument("--min", type=int, default=5)
    ap.add_argument("--missing", type=int, default=40)
    ap.add_argument("--show-missing", type=int, default=0)
    args = ap.parse_args()

    counts = train_counts(os.path.join(args.dir, "train.tsv.gz"))
    print("corpus: %s (train: %d English word tokens, %d types)"
          % (args.dir, sum(counts.values()), len(counts)))
    if args.lexicon != "none":
        sys.path.insert(0, HERE)
        from everyday_corpus.lexicon import build_lexicon
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()):
            N, V, A = build_lexicon(args.npm)[:3]
        forms = lemma_forms(N, V, A)
        res = lexicon_coverage(forms, counts, args.min)
        print("lexicon (%s) words occurring >= %d times in train:" % (args.lexicon, args.min))
        for pos in ("noun", "verb", "adj"):
            n, ok, low = res[pos]
            print("  %-5s %4d of %4d (%.1f%%)" % (pos, ok, n, 100.0 * ok / max(n, 1)))
        if args.show_missing:
            freq = {"noun": N, "verb": V, "adj": A}
            for pos in ("noun", "verb", "adj"):
                low = sorted(res[pos][2], key=lambda wc: (-freq[pos][wc[0]]["f"], wc[0]))
                print("  %s under %d (most frequent first): %s" % (
                    pos, args.min, " ".join("%s:%d" % wc for wc in low[:args.show_missing])))
    n, cov, miss = dev_coverage(args.dev, counts, args.missing)
    print("dev token coverage: %d of %d = %.1f%%" % (cov, n, 100.0 * cov / max(n, 1)))
    print("most frequent dev words missing from train (%d types missing in all):"
          % len(dev_coverage(args.dev, counts, 10 ** 6)[2]))
    print("  " + " ".join("%s:%d" % kv for kv in miss))


if __name__ == "__main__":
    main()
