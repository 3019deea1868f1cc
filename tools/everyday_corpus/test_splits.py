"""Tests of splits: the split keeps Spanish and held-out sentences apart,
and (where assets/corpus/everyday has them) the shipped files are disjoint,
hold out the dev set and the pronoun test, and index the pronoun test
right."""

import gzip
import os
import random
import re
import unittest

from .postedit import held_key
from .splits import split_pairs

CORPUS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "assets", "corpus", "everyday")
TOK = re.compile(r"\w+|[^\w\s]")


class Split(unittest.TestCase):
    def test_spanish_in_one_split_and_held_out_in_none(self):
        pairs = [("c", "English %d." % i, "Español %d." % (i // 2)) for i in range(400)]
        splits = split_pairs(pairs, random.Random(1), {"test": 30, "valid": 30, "train": 200},
                             {"Español 7."})
        self.assertEqual([len(splits[k]) for k in ("test", "valid", "train")], [30, 30, 200])
        where = {}
        for name, rows in splits.items():
            for _, e, s in rows:
                self.assertEqual(where.setdefault(s, name), name, s)
        self.assertNotIn("Español 7.", where)
        english = [e for rows in splits.values() for _, e, _ in rows]
        self.assertEqual(len(english), len(set(english)))


@unittest.skipUnless(os.path.exists(os.path.join(CORPUS, "train.tsv.gz")),
                     "corpus not generated")
class Corpus(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.splits = {}
        for name in ("train", "valid", "test"):
            with gzip.open(os.path.join(CORPUS, name + ".tsv.gz"), "rt",
                           encoding="utf-8") as f:
                rows = [l.rstrip("\n").split("\t") for l in f]
            cls.splits[name] = rows
        with open(os.path.join(CORPUS, "pronoun_test.tsv"), encoding="utf-8") as f:
            cls.pron = [l.rstrip("\n").split("\t") for l in f]

    def test_format(self):
        for name, rows in self.splits.items():
            for r in rows:
                self.assertEqual(len(r), 2, (name, r))
                self.assertTrue(r[0] and r[1], (name, r))

    def test_disjoint(self):
        names = sorted(self.splits)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                for col in (0, 1):
                    sa = {r[col] for r in self.splits[a]}
                    sb = {r[col] for r in self.splits[b]}
                    self.assertFalse(sa & sb, (a, b, col, sorted(sa & sb)[:3]))
        eng = [r[0] for rows in self.splits.values() for r in rows]
        self.assertEqual(len(eng), len(set(eng)))

    def test_dev_set_held_out(self):
        with open(os.path.join(CORPUS, "dev.tsv"), encoding="utf-8") as f:
            dev = {held_key(l.split("\t", 1)[0]) for l in f if l.strip()}
        for name, rows in self.splits.items():
            leaked = [r[0] for r in rows if held_key(r[0]) in dev]
            self.assertFalse(leaked, (name, leaked[:3]))

    def test_pronoun_set_held_out(self):
        self.assertGreaterEqual(len(self.pron), 300)
        allen = {r[0] for rows in self.splits.values() for r in rows}
        alles = {r[1] for rows in self.splits.values() for r in rows}
        for r in self.pron:
            self.assertNotIn(r[0], allen)
            self.assertNotIn(r[1], alles)
        got = {r[0]: r[1] for r in self.pron}
        self.assertEqual(
            got["The animal didn't cross the street because it was too tired."],
            "El animal no cruzó la calle porque estaba demasiado cansado.")
        self.assertEqual(
            got["The animal didn't cross the street because it was too wide."],
            "El animal no cruzó la calle porque era demasiado ancha.")

    def test_pronoun_indices(self):
        for e, s, i, r, o, a, g in self.pron:
            et, st = TOK.findall(e), TOK.findall(s)
            self.assertIn(et[int(i)], ("it", "he", "she", "they"), e)
            self.assertEqual(et[int(i) - 1], "because", e)
            self.assertNotEqual(int(r), int(o))
            self.assertEqual(st[int(a) + 1], ".", s)
            self.assertEqual(st[int(a) - 1], "demasiado", s)
            self.assertIn(g, ("m", "f"))


if __name__ == "__main__":
    unittest.main()
