"""Tests of lexicon: the vulgar-sense bans, and (with WordNet, Apertium and
EVERYDAY_NPM=<node_modules>) the lexicon itself."""

import contextlib
import io
import os
import unittest

from .apertium import A_DIR
from .lexicon import VULGAR_GLOSS, build_lexicon
from .wordnet import WN

NPM = os.environ.get("EVERYDAY_NPM", "/nonexistent")


class Bans(unittest.TestCase):
    def test_vulgar_gloss(self):
        bad = ["informal intensifiers; \"what a bally (or blinking) nuisance\"",
               "obscene terms for female genitals",
               "a man who is a despicable person (vulgar)"]
        ok = ["feline mammal usually having thick soft fur",
              "someone who is physically or mentally handicapped (slang for a dog)",
              "a tool used for cutting"]
        for g in bad:
            self.assertTrue(VULGAR_GLOSS.search(g), g)
        for g in ok:
            self.assertFalse(VULGAR_GLOSS.search(g), g)


@unittest.skipUnless(os.path.exists(WN) and os.path.exists(A_DIR) and os.path.exists(NPM),
                     "needs WordNet, Apertium and EVERYDAY_NPM=<node_modules>")
class Lexicon(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        with contextlib.redirect_stdout(io.StringIO()):
            cls.N, cls.V, cls.A = build_lexicon(NPM)[:3]

    def test_words(self):
        for w in ("fucking", "bloody"):
            self.assertNotIn(w, self.A)
        for w in ("cat", "dog", "friend", "teacher", "child", "kitchen", "food"):
            self.assertIn(w, self.N)
        for w in ("go", "get", "make", "tell", "watch", "wear"):
            self.assertIn(w, self.V)
        self.assertEqual((len(self.N), len(self.V), len(self.A)), (1607, 650, 550))

    def test_countable(self):
        self.assertFalse(self.N["wife"]["mass"])
        self.assertFalse(self.N["grandmother"]["mass"])
        self.assertTrue(self.N["water"]["mass"])
        self.assertTrue(self.N["money"]["mass"])

    def test_everyday_nouns(self):
        for w in ("uncle", "aunt", "job", "money", "problem", "name", "idea"):
            self.assertIn(w, self.N)
        self.assertEqual(self.N["uncle"]["cls"], "person")   # SUBTLEX lists "Uncle" only
        self.assertEqual(self.N["job"]["cls"], "abstract")
        for w in ("death", "war", "way", "thing"):   # ABSTRACT_SKIP
            self.assertNotIn(w, self.N)

    def test_everyday_sense_gender(self):
        self.assertEqual((self.N["key"]["es"], self.N["key"]["g"]), ("llave", "f"))


if __name__ == "__main__":
    unittest.main()
