"""The split into train / valid / test, and the files written.

The split is a seeded shuffle of all pairs, filled test first, then valid,
then train; the test split chooses nothing.  A Spanish sentence goes to one
split only (a second English sentence with the same Spanish follows the
first, or is dropped when that split is full), so no Spanish sentence and
no English sentence is in two splits, and the held-out pronoun sentences
are in none."""

import gzip
import os

SPLIT_ORDER = ("test", "valid", "train")


def split_pairs(pairs, rng, sizes, held_es):
    """{split: [(construction, English, Spanish)]} of PAIRS shuffled with RNG,
    at most SIZES[split] each, none with Spanish in HELD_ES."""
    rng.shuffle(pairs)
    splits = {k: [] for k in SPLIT_ORDER}
    where = {}
    for cons, e, s in pairs:
        if s in held_es:
            continue
        if s in where:
            t = where[s]
            if len(splits[t]) < sizes[t]:
                splits[t].append((cons, e, s))
            continue
        for name in SPLIT_ORDER:
            if len(splits[name]) < sizes[name]:
                splits[name].append((cons, e, s))
                where[s] = name
                break
    return splits


def write_gz(path, lines):
    """LINES gzipped without a timestamp or name, so the same lines give the
    same bytes."""
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as f:
            f.write("".join(lines).encode("utf-8"))


def write_corpus(out, splits, pronoun_rows):
    """OUT/{train,valid,test}.tsv.gz (English<TAB>Spanish) and
    OUT/pronoun_test.tsv (the held-out rows, tab-separated)."""
    os.makedirs(out, exist_ok=True)
    for name in SPLIT_ORDER:
        write_gz(os.path.join(out, name + ".tsv.gz"), ["%s\t%s\n" % (e, s) for _, e, s in splits[name]])
    with open(os.path.join(out, "pronoun_test.tsv"), "w", encoding="utf-8", newline="\n") as f:
        for row in pronoun_rows:
            f.write("\t".join(str(x) for x in row) + "\n")
