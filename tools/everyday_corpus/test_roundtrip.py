"""Tests of roundtrip: the normalisation, the synonym table and the
synonym-tolerant comparison."""

import re
import unittest

from .roundtrip import RT_SYNONYMS, rt_compare, rt_norm


class RoundTrip(unittest.TestCase):
    def test_roundtrip_norm(self):
        self.assertEqual(rt_norm("Anna's brother is tall."), rt_norm("The brother of Anna is tall."))
        self.assertEqual(rt_norm("She reads the book."), rt_norm("It reads the book."))
        self.assertEqual(rt_norm("You have three books."), rt_norm("Have three books."))
        self.assertNotEqual(rt_norm("I see the dog."), rt_norm("I see the cat."))

    def test_synonym_table(self):
        keys = [(en, pos) for en, pos, es, back in RT_SYNONYMS]
        self.assertEqual(len(keys), len(set(keys)))
        for en, pos, es, back in RT_SYNONYMS:
            self.assertIn(pos, ("n", "v", "adj"))
            self.assertTrue(re.match(r"^[a-z]+$", en) and re.match(r"^[a-záéíóúñ]+$", es), en)
        # wrong senses stay rejected by the round trip: neither the word ...
        for en in ("baby", "love", "meet", "sit", "pretty", "quick", "sorry", "fight", "certain", "high"):
            self.assertNotIn(en, {k for k, _ in keys}, en)
        # ... nor the wrong Spanish word of one whose everyday sense is listed
        pairs = {(en, es) for en, _, es, _ in RT_SYNONYMS}
        for wrong in (("bottle", "bote"), ("coat", "capa"), ("plane", "plano"), ("address", "alocución"),
                      ("station", "canal"), ("key", "tono"), ("stone", "hueso"), ("work", "obrar")):
            self.assertNotIn(wrong, pairs)
        for en in ("friend", "child", "teacher", "kitchen", "town", "food",
                   "meat", "get", "make", "tell", "watch", "wear", "job", "station"):
            self.assertIn(en, {k for k, _ in keys}, en)

    def test_rt_compare(self):
        alias = {("friend", "fellow"): {"amigo"}, ("friends", "fellows"): {"amigo"},
                 ("told", "said"): {"decir"}}
        self.assertEqual(rt_compare("I see the dog.", "I see the dog.", alias), set())
        self.assertEqual(rt_compare("My friend is here.", "My fellow is here.", alias),
                         {frozenset({"amigo"})})
        self.assertEqual(rt_compare("She told the friends.", "It said the fellows.", alias),
                         {frozenset({"amigo"}), frozenset({"decir"})})
        self.assertIsNone(rt_compare("My friend is here.", "My fellow is here.", {}))
        self.assertIsNone(rt_compare("My friend is here.", "My partner is here.", alias))
        self.assertIsNone(rt_compare("My friend is here.", "The fellow of me is here.", alias))
        # the English word and its synonym are not interchangeable the other way
        self.assertIsNone(rt_compare("My fellow is here.", "My friend is here.", alias))


if __name__ == "__main__":
    unittest.main()
