"""Tests of names: a sentence's first letter lowered except before a name,
and the packaged names that Apertium reads as names (where installed)."""

import os
import unittest

from .apertium import A_DIR
from .names import CITIES, CITIES_JSON, CLOSED_PROPER, FIRST_NAMES, NAMES, es_lower_first, lower_first, \
    more_names

NPM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".npm-data", "node_modules")


class LowerFirst(unittest.TestCase):
    def test_lower_first(self):
        self.assertEqual(lower_first("The dog sleeps", CLOSED_PROPER), "the dog sleeps")
        self.assertEqual(lower_first("Anna sleeps", CLOSED_PROPER), "Anna sleeps")
        self.assertEqual(lower_first("I sleep", CLOSED_PROPER), "I sleep")
        self.assertEqual(lower_first("I'm tired", CLOSED_PROPER), "I'm tired")
        self.assertEqual(es_lower_first("Madrid es grande", CLOSED_PROPER), "Madrid es grande")

    def test_lower_first_keeps_the_added_names(self):
        names = frozenset(NAMES + CITIES + ["Zelda"])
        self.assertEqual(lower_first("Zelda sleeps", names), "Zelda sleeps")
        self.assertEqual(lower_first("Zelda sleeps", CLOSED_PROPER), "zelda sleeps")
        self.assertEqual(es_lower_first("Zelda duerme", names), "Zelda duerme")


class MoreNames(unittest.TestCase):
    @unittest.skipUnless(os.path.exists(A_DIR) and all(
        os.path.isdir(os.path.join(NPM, p)) for p, _ in FIRST_NAMES) and
        os.path.exists(os.path.join(NPM, CITIES_JSON)),
        "needs Apertium and the npm name and city lists")
    def test_names_that_apertium_reads_as_names(self):
        female, male, places = more_names(NPM)
        self.assertIn("Abigail", female)
        self.assertIn("Brandon", male)
        self.assertNotIn("Brandon", places)   # a town too, but first a name
        for word in ("Rose", "Will", "Bill"):   # also a common word
            self.assertNotIn(word, female + male)
        self.assertIn("Salamanca", places)
        self.assertIn("Granada", places)
        self.assertNotIn("Madrid", places)   # already in CITIES
        self.assertFalse(set(female) & set(male))
        self.assertGreater(len(female + male), 1500)
        self.assertGreater(len(places), 200)


if __name__ == "__main__":
    unittest.main()
