"""The last step of the everyday corpus, after the generator (python3 -m everyday_corpus).

Two deterministic edits of assets/corpus/everyday/{train,valid,test}.tsv.gz, in place:

1. "your" as tú.  Apertium's eng-spa translates "you" as tú (2nd person singular: "You see the
   dog." -> "Ves el perro.") but "your" as the plural possessive vuestro, so one sentence mixes the
   two ("Your father is asking because you helped." -> "Vuestro padre ... porque ayudaste").  The
   corpus (and the hand-written dev set) use tú throughout, so vuestro/a/os/as becomes tu/tus, and
   the pronoun "el vuestro" (yours) becomes "el tuyo".  Apertium translates "tu" back to "your",
   so the round-trip filter's verdict is unchanged.
2. Held-out text stays out of training: a pair whose English sentence is in an exclusion file
   (the hand-written dev set, the pronoun test) is dropped from every split.

Usage: PYTHONPATH=tools python3 -m everyday_corpus.postedit [--dir assets/corpus/everyday]
           [--exclude assets/corpus/everyday/dev.tsv --exclude assets/corpus/everyday/pronoun_test.tsv]
Prints what it changed.  Running it twice changes nothing the second time.
"""

import argparse
import gzip
import os
import re

from .splits import write_gz

POSSESSIVE = {"vuestro": "tu", "vuestra": "tu", "vuestros": "tus", "vuestras": "tus"}
PRONOUN = {"vuestro": "tuyo", "vuestra": "tuya", "vuestros": "tuyos", "vuestras": "tuyas"}
ARTICLES = {"el", "la", "los", "las", "lo"}
WORD = re.compile(r"\w+|[^\w\s]")


def match_case(word, like):
    return word[:1].upper() + word[1:] if like[:1].isupper() else word


def tu_for_vuestro(spanish):
    """vuestro -> tu (possessive) or tuyo (after an article); keeps spacing and case."""
    out, last = [], 0
    previous = ""
    for m in re.finditer(r"\w+", spanish):
        word = m.group(0)
        lower = word.lower()
        if lower in POSSESSIVE:
            table = PRONOUN if previous in ARTICLES else POSSESSIVE
            out.append(spanish[last:m.start()])
            out.append(match_case(table[lower], word))
            last = m.end()
        previous = lower
    out.append(spanish[last:])
    return "".join(out)


def read_pairs(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t") for line in f if line.strip()]


def write_pairs(path, pairs):
    """PATH rewritten as a whole (a temporary file, then renamed)."""
    tmp = path + ".tmp"
    write_gz(tmp, [f"{e}\t{s}\n" for e, s in pairs])
    os.replace(tmp, path)


def held_key(english):
    """What makes two English sentences the same for holding out: case, the
    final stop, question or exclamation mark and spacing aside, so that a
    typing variant ("thank you very much") of a dev sentence ("Thank you very
    much.") is held out with it."""
    return " ".join(english.strip().rstrip(".?!").lower().split())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="assets/corpus/everyday")
    ap.add_argument("--exclude", action="append", default=None,
                    help="a TSV whose first column lists English sentences kept out of every split")
    args = ap.parse_args()
    excludes = args.exclude if args.exclude is not None else [
        os.path.join(args.dir, "dev.tsv"), os.path.join(args.dir, "pronoun_test.tsv")]
    held = set()
    for path in excludes:
        with open(path, encoding="utf-8") as f:
            held.update(held_key(line.split("\t", 1)[0]) for line in f if line.strip())
    for split in ("train", "valid", "test"):
        path = os.path.join(args.dir, f"{split}.tsv.gz")
        pairs = read_pairs(path)
        kept, edited, dropped = [], 0, 0
        for english, spanish in pairs:
            if held_key(english) in held:
                dropped += 1
                continue
            new = tu_for_vuestro(spanish)
            edited += new != spanish
            kept.append((english, new))
        write_pairs(path, kept)
        print(f"{split}: {len(pairs)} pairs, {edited} with vuestro -> tu, {dropped} dropped as held out, {len(kept)} kept")


if __name__ == "__main__":
    main()
