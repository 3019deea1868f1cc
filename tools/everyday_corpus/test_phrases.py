"""Tests of phrases: numbers in words, agreement by construction, every
family drawn, and courtesy phrases opening a corpus sentence."""

import random
import unittest

from .phrases import number_en, number_es, phrases


class EverydayPhrases(unittest.TestCase):
    NAMES = ["Anna", "Lucía", "Peter", "Jorge"]
    FEMALE = ["Anna", "Lucía"]

    def draw(self, seed=1, count=3000, clauses=()):
        rng = random.Random(seed)
        return phrases(rng, count, lambda: rng.choice(self.NAMES), self.FEMALE, clauses)

    def test_numbers_in_words(self):
        self.assertEqual(number_en(21), "twenty-one")
        self.assertEqual(number_en(100), "a hundred")
        self.assertEqual(number_es(16), "dieciséis")
        self.assertEqual(number_es(45), "cuarenta y cinco")
        self.assertEqual(number_es(1, before_masculine_noun=True), "un")
        self.assertEqual(number_es(21, before_masculine_noun=True), "veintiún")
        self.assertEqual(number_es(31, before_masculine_noun=True), "treinta y un")
        self.assertEqual(number_es(31), "treinta y uno")

    def test_deterministic_distinct_and_every_family(self):
        a, b = self.draw(), self.draw()
        self.assertEqual(a, b)
        self.assertEqual(len({e for _, e, _ in a}), len(a))
        self.assertEqual({c for c, _, _ in a},
                         {"phrase: " + f for f in ("feeling", "age", "weather", "calendar", "liking",
                                                    "courtesy", "name", "language", "number")})

    def test_marks_and_capitals(self):
        for _, e, s in self.draw():
            self.assertEqual(e[-1], s[-1], (e, s))
            if s.endswith("?"):
                self.assertIn("¿", s, s)
            if s.endswith("!"):
                self.assertIn("¡", s, s)
            first = s.lstrip("¿¡")[0]
            self.assertTrue(first.isupper() or first.isdigit(), s)
            self.assertNotIn("  ", s)
            self.assertNotIn(" ?", s)

    def test_agreement(self):
        pairs = dict((e, s) for _, e, s in self.draw(count=20000))
        # tener + noun, with mucho / mucha by the noun's gender
        for e, s in pairs.items():
            if e.endswith("very hungry.") and " not " not in e and "n't" not in e:
                self.assertTrue(s.endswith("mucha hambre."), (e, s))
            if e.startswith("It") and "very cold" in e:   # the weather: hacer + frío (m)
                self.assertIn("mucho frío", s, e)
                self.assertTrue(s.startswith(("Hace", "Hacía", "Hará", "No hace", "No hacía")), (e, s))
            if e in ("Lucía is Spanish.", "My sisters are Italian."):
                self.assertEqual(s, {"Lucía is Spanish.": "Lucía es española.",
                                     "My sisters are Italian.": "Mis hermanas son italianas."}[e])
        self.assertEqual(pairs.get("I'm hungry."), "Tengo hambre.")
        self.assertEqual(pairs.get("Anna likes cats."), "A Anna le gustan los gatos.")
        self.assertEqual(pairs.get("My name is Jorge."), "Me llamo Jorge.")
        self.assertEqual(pairs.get("This is my sister Lucía."), "Esta es mi hermana Lucía.")
        self.assertEqual(pairs.get("It's half past one."), "Es la una y media.")
        self.assertEqual(pairs.get("It is raining."), "Está lloviendo.")
        ages = [(e, s) for e, s in pairs.items() if e.endswith(" twenty-one years old.")]
        self.assertTrue(ages)
        for e, s in ages:
            self.assertTrue(s.endswith(" veintiún años."), (e, s))

    def test_courtesy_opens_a_corpus_sentence(self):
        clauses = [("we are in the kitchen.", "estamos en la cocina."),
                   ("where is the station?", "¿dónde está la estación?")]
        made = self.draw(count=20000, clauses=clauses)
        openers = [(e, s) for c, e, s in made if c == "phrase: courtesy" and
                   e.endswith((" we are in the kitchen.", " where is the station?"))]
        self.assertTrue(openers)
        for e, s in openers:
            if e.endswith("?"):
                self.assertTrue(s.endswith(", ¿dónde está la estación?"), (e, s))
            else:
                self.assertTrue(s.endswith(", estamos en la cocina."), (e, s))


if __name__ == "__main__":
    unittest.main()
