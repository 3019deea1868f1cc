"""Tests of it_pronouns: the "it" tables (Spanish gender and number forms,
copula) and the held-out main clauses of a pronoun test."""

import os
import tempfile
import unittest

from .it_pronouns import IT_ADJ, IT_FRAMES, held_out_main_clauses


class Tables(unittest.TestCase):
    def test_it_adjective_forms_agree(self):
        for en, (ms, fs, mp, fp, cop) in IT_ADJ.items():
            self.assertIn(cop, ("ser", "estar"), en)
            if ms.endswith("o"):
                self.assertEqual(fs, ms[:-1] + "a", en)
                self.assertEqual(mp, ms + "s", en)
                self.assertEqual(fp, fs + "s", en)
            else:   # -e / consonant: one form for both genders
                self.assertEqual(ms, fs, en)
                self.assertEqual(mp, fp, en)

    def test_it_frames_use_known_adjectives(self):
        for v, (xk, ys, xadj) in IT_FRAMES.items():
            for a in xadj:
                self.assertIn(a, IT_ADJ, v)
            for y, yadj in ys:
                for a in yadj:
                    self.assertIn(a, IT_ADJ, (v, y))
                # an adjective fitting both nouns would make "it" ambiguous
                # for the reader; such pairs are skipped by the generator
                self.assertTrue(set(yadj) - set(xadj), (v, y))

    def test_seed_frame_present(self):
        xk, ys, xadj = IT_FRAMES["cross"]
        self.assertIn("tired", xadj)
        self.assertIn("wide", dict(ys)["street"])
        self.assertEqual(IT_ADJ["tired"][4], "estar")
        self.assertEqual(IT_ADJ["wide"][1], "ancha")
        self.assertEqual(IT_ADJ["wide"][4], "ser")


class KeepHeldOut(unittest.TestCase):
    def test_main_clauses_of_a_pronoun_test(self):
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False, encoding="utf-8") as f:
            f.write("The animal didn't cross the street because it was too tired.\tEl animal ...\t9\t1\t7\t9\tm\n"
                    "The dogs did not eat the apples because they were too big.\tLos perros ...\t9\t7\t1\t9\tf\n")
        try:
            self.assertEqual(held_out_main_clauses(f.name),
                             {"The animal did not cross the street.", "The dogs did not eat the apples."})
            with open(f.name, "a", encoding="utf-8") as g:
                g.write("Hello there.\tHola.\n")
            with self.assertRaises(SystemExit) as e:
                held_out_main_clauses(f.name)
            self.assertIn(":3: not a pronoun test sentence", str(e.exception))
        finally:
            os.unlink(f.name)


if __name__ == "__main__":
    unittest.main()
