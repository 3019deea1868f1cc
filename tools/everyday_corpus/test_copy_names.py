"""Tests of copy_names: which names change, on both sides, and only once."""

import random
import unittest

from .copy_names import LetterModel, chosen, copy_names, names_in_pair, rename

LISTED = frozenset(["Anna", "Tom", "Madrid", "Seville"])
POOL = ["Brastova", "Kelindu", "Tczew"]


class NamesInPair(unittest.TestCase):
    def test_a_listed_name_written_the_same_on_both_sides(self):
        self.assertEqual(names_in_pair("Anna lives in Madrid.", "Anna vive en Madrid.", LISTED), ["Anna", "Madrid"])

    def test_a_name_the_spanish_translates_is_left(self):
        self.assertEqual(names_in_pair("Tom flew to Seville.", "Tom voló a Sevilla.", LISTED), ["Tom"])

    def test_capitalised_words_that_are_no_listed_name_are_left(self):
        self.assertEqual(names_in_pair("The dog sleeps.", "El perro duerme.", LISTED), [])


class Rename(unittest.TestCase):
    def test_both_sides_whole_words_and_the_possessive(self):
        english, spanish = rename("Tom's sister met Tom.", "La hermana de Tom conoció a Tom.", ["Tom"], POOL)
        new = english.split("'")[0]
        self.assertIn(new, POOL)
        self.assertEqual(english, "%s's sister met %s." % (new, new))
        self.assertEqual(spanish, "La hermana de %s conoció a %s." % (new, new))

    def test_a_name_inside_a_longer_word_stays(self):
        english, _ = rename("Tomas and Tom", "Tomas y Tom", ["Tom"], POOL)
        self.assertTrue(english.startswith("Tomas and "))


class CopyNames(unittest.TestCase):
    def pairs(self):
        return [("%s is tired number %d." % (name, i), "%s está cansada número %d." % (name, i))
                for i in range(200) for name in ("Anna",)] + [("The dog sleeps.", "El perro duerme.")]

    def test_about_the_share_changes_and_a_second_run_changes_nothing(self):
        once, holding, changed = copy_names(self.pairs(), LISTED, POOL, 0.4, 1)
        self.assertEqual(holding, 200)
        self.assertTrue(50 <= changed <= 110, changed)
        twice, _, changed_again = copy_names(once, LISTED, POOL, 0.4, 1)
        self.assertEqual(twice, once)
        self.assertEqual(changed_again, 0)

    def test_the_choice_depends_on_the_sentence_and_the_seed_only(self):
        self.assertEqual(chosen("Anna sleeps.", 0.4, 1), chosen("Anna sleeps.", 0.4, 1))
        self.assertFalse(chosen("Anna sleeps.", 0.0, 1))
        self.assertTrue(chosen("Anna sleeps.", 1.0, 1))


class Letters(unittest.TestCase):
    def test_names_use_the_letter_sequences_they_learnt(self):
        model = LetterModel(["Anna", "Hanna", "Nana"])
        rng = random.Random(3)
        for _ in range(50):
            name = model.name(rng)
            self.assertTrue(name[:1].isupper())
            self.assertTrue(set(name.lower()) <= set("anh"), name)


if __name__ == "__main__":
    unittest.main()
