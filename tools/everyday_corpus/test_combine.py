"""Tests of combine: sentences joined from kept clauses, the time phrases,
and typing variants mirrored in the Spanish."""

import collections
import random
import unittest

from .combine import TIME_PHRASES, combined, vary_typing
from .grammar import Item
from .names import CLOSED_PROPER


def clause(cons, eng, es, tense, subj):
    it = Item(cons, [], tense, subj=(subj, 3, "sg"))
    it.eng, it.es = eng, es
    return it


KEPT = [clause("statement", "I see the dog.", "Veo el perro.", "pres", "pron"),
        clause("statement", "Anna eats an apple.", "Anna come una manzana.", "pres", "name"),
        clause("statement", "They went home.", "Fueron a casa.", "past", "pron"),
        clause("statement", "We will read it.", "Lo leeremos.", "fut", "pron"),
        clause("predicative", "The house is big.", "La casa es grande.", "pres", "np")]


class Combined(unittest.TestCase):
    def test_joined_sentences(self):
        stats = collections.defaultdict(lambda: [0, 0])
        held = {"I see the dog and they went home."}
        made = combined(KEPT, random.Random(1), lambda: "Tom", CLOSED_PROPER, 400, set(), held, stats)
        english = [e for _, e, _ in made]
        self.assertEqual(len(english), len(set(english)))
        self.assertFalse(held & set(english))
        pairs = dict((e, s) for _, e, s in made)
        self.assertEqual(pairs.get("I see the dog because Anna eats an apple."),
                         "Veo el perro porque Anna come una manzana.")   # a name keeps its capital
        self.assertEqual(pairs.get("If I see the dog, we will read it."), "Si veo el perro, lo leeremos.")
        self.assertEqual(pairs.get('Tom said, "I see the dog."'), 'Tom dijo: "Veo el perro."')
        for cons, e, s in made:
            if cons == "subordinate:when":   # both past or both present
                self.assertNotIn("will", e)
                self.assertFalse("went" in e and "see" in e, e)
            if cons == "time phrase":
                self.assertTrue(any(e.endswith(" %s." % en) and s.endswith(" %s." % es)
                                    for en, es, _ in TIME_PHRASES), e)
        self.assertEqual(sum(n for n, _ in stats.values()), len(made))
        self.assertTrue({"time phrase", "coordination", "subordinate:because", "quote"} <= set(stats))

    def test_months(self):
        english = [e for e, s, t in TIME_PHRASES]
        self.assertIn("in August", english)
        self.assertIn("in May", english)


class VaryTyping(unittest.TestCase):
    def test_mirrored_and_deduplicated(self):
        pairs = [("statement", "The dog %d runs." % i, "El perro %d corre." % i) for i in range(3000)]
        pairs += [("statement", "Anna sleeps.", "Anna duerme."), ("statement", "Anna sleeps.", "Anna duerme."),
                  ("statement", "Held out.", "Fuera.")]
        out = vary_typing(pairs, random.Random(1), CLOSED_PROPER, {"Held out."})
        english = [e for _, e, _ in out]
        self.assertEqual(len(english), len(set(english)))
        self.assertNotIn("Held out.", english)
        lowered = [(e, s) for _, e, s in out if e[0].islower()]
        bare = [(e, s) for _, e, s in out if not e.endswith(".")]
        for e, s in lowered:
            self.assertTrue(s[0].islower(), (e, s))
        for e, s in bare:
            self.assertFalse(s.endswith("."), (e, s))
        self.assertLess(abs(len(lowered) / 3000 - 0.02), 0.01)
        self.assertLess(abs(len(bare) / 3000 - 0.02), 0.01)
        self.assertFalse(any(e.startswith("anna") for e in english))   # a name keeps its capital


if __name__ == "__main__":
    unittest.main()
