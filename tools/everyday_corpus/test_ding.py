"""Tests of ding: which of the dictionary's example phrases count as plain
sentences, and how word alternatives are resolved."""

import os
import tempfile
import unittest

from .ding import clean, ding_sentences


class Ding(unittest.TestCase):
    def test_clean(self):
        self.assertEqual(clean(" I enjoyed my supper. "), "I enjoyed my supper.")
        self.assertEqual(clean("The hotel offers free transport/transportation to the station."),
                         "The hotel offers free transport to the station.")
        self.assertEqual(clean("I didn’t mean to imply that."), "I didn't mean to imply that.")
        self.assertIsNone(clean("He / It is not without remedy."))        # alternatives of more than a word
        self.assertIsNone(clean("The city is laid out in a grid (street) pattern."))
        self.assertIsNone(clean("to litter sth."))                          # not a sentence
        self.assertIsNone(clean("Go!"))                                     # too short
        self.assertIsNone(clean("The EU has new rules for banks."))         # abbreviation

    def test_reads_senses_and_alternatives(self):
        path = os.path.join(tempfile.mkdtemp(), "de-en")
        with open(path, "w", encoding="utf-8") as f:
            f.write("# comment :: I am a comment.\n"
                    "Abendessen {n} | Ich habe ... :: supper | I enjoyed my supper.; It was a nice supper.\n"
                    "kaputt :: broken\n")
        self.assertEqual(ding_sentences(path), ["I enjoyed my supper.", "It was a nice supper."])
        self.assertEqual(ding_sentences(path + ".missing"), [])


if __name__ == "__main__":
    unittest.main()
