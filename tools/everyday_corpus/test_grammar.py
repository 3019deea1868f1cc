"""Tests of grammar: abstract nouns only as objects Brown saw, two
adjectives in English order, question word order, questions for a value,
and the packaged names drawn beside the closed lists."""

import collections
import itertools
import random
import unittest

from .grammar import Grammar, tk
from .names import CITIES, NAMES


class AbstractNouns(unittest.TestCase):
    """An abstract noun is an object only where Brown saw it with the verb,
    and never the subject of "is ADJ"."""

    def grammar(self, vobjn):
        N = {"apple": {"cls": "food", "pl": "apples", "g": "f", "es": "manzana", "f": 10, "mass": False},
             "job": {"cls": "abstract", "pl": "jobs", "g": "m", "es": "trabajo", "f": 10, "mass": False},
             "idea": {"cls": "abstract", "pl": "ideas", "g": "f", "es": "idea", "f": 10, "mass": False}}
        V = {"find": {"lex": "verb.possession", "past": "found", "s3": "finds",
                      "ger": "finding", "trans": True, "intr": False, "f": 10}}
        A = {"new": {"comp": "newer", "sup": "newest", "gradable": True, "f": 10},
             "red": {"comp": None, "sup": None, "gradable": False, "f": 10}}
        vobj = {"find": collections.Counter({"abstract": 5, "food": 5})}
        adjn = {"new": collections.Counter({"abstract": 5, "food": 5}),
                "red": collections.Counter({"food": 5})}
        return Grammar(random.Random(1), N, V, A, vobj, adjn, vobjn, {}, {}, [], [])

    def objects(self, g, n=300):
        seen = set()
        g.place_pp = lambda kind="loc": []   # no place nouns in this lexicon
        for _ in range(n):
            it = g.svo(subj=([tk("he")], 3, "sg", "pron"))
            if it is not None:
                seen.update(t[1] for t in it.toks if t[1] in g.N)
        return seen

    def test_only_seen_abstract_objects(self):
        g = self.grammar({"find": {"job": 3}})
        self.assertIn("abstract", g.vobj["find"])
        objs = self.objects(g)
        self.assertIn("job", objs)
        self.assertIn("apple", objs)
        self.assertNotIn("idea", objs)   # never seen with "find"

    def test_no_abstract_predicate(self):
        g = self.grammar({})
        self.assertEqual(g.predicate_classes(), ["food"])

    def test_colour_after_gradable_adjective(self):
        g = self.grammar({})
        runs = set()
        for _ in range(400):
            toks, _ = g.np("apple", adj_p=1.0)
            runs.add(tuple(t[0] for t in toks if t[2] == "adj"))
        self.assertIn(("new", "red"), runs)   # "a new red apple"
        self.assertIn(("new",), runs)
        self.assertNotIn(("red", "new"), runs)
        self.assertNotIn(("red", "red"), runs)


class Questions(unittest.TestCase):
    def setUp(self):
        V = {"eat": {"lex": "verb.consumption", "past": "ate", "s3": "eats",
                     "ger": "eating", "trans": True, "intr": True, "f": 1}}
        self.g = Grammar.__new__(Grammar)
        self.g.V = V

    def q(self, words, head=()):
        toks = [tk(w, "eat", "v") if w in ("eat", "ate", "eats", "eating") else tk(w) for w in words.split()]
        return " ".join(self.g.to_question(toks, head))

    def test_do_support(self):
        self.assertEqual(self.q("you eat the apple"), "do you eat the apple")
        self.assertEqual(self.q("the dog eats the apple"), "does the dog eat the apple")
        self.assertEqual(self.q("the dog ate"), "did the dog eat")
        self.assertEqual(self.q("you ate", head=["what"]), "what did you eat")

    def test_inversion(self):
        self.assertEqual(self.q("the dog is eating"), "is the dog eating")
        self.assertEqual(self.q("she will eat", head=["when"]), "when will she eat")


class WhatIsQuestions(unittest.TestCase):
    """"What is your name?" -> "¿Cuál es tu nombre?", with the English
    verb's number."""

    def grammar(self, seed=1):
        N = {"name": {"cls": "abstract", "pl": "names", "g": "m", "es": "nombre", "f": 10, "mass": False},
             "problem": {"cls": "abstract", "pl": "problems", "g": "m", "es": "problema", "f": 10,
                         "mass": False},
             "age": {"cls": "abstract", "pl": "ages", "g": "f", "es": "edad", "f": 10, "mass": False},
             "dog": {"cls": "animal", "pl": "dogs", "g": "m", "es": "perro", "f": 10, "mass": False}}
        V = {"eat": {"lex": "verb.consumption", "past": "ate", "s3": "eats",
                     "ger": "eating", "trans": True, "intr": True, "f": 10}}
        vobj = {"eat": collections.Counter({"food": 5})}
        return Grammar(random.Random(seed), N, V, {}, vobj, {}, {}, {}, {}, [], [])

    def test_english_number_and_what_apertium_reads(self):
        g = self.grammar()
        seen = set()
        for _ in range(2000):
            it = g.question_value()
            eng, sent = it.extra["eng"], [t[0] for t in it.toks]
            past, plural = it.extra["cual"]
            self.assertEqual(eng[0], "what")
            self.assertEqual(eng[1], {(False, False): "is", (False, True): "are",
                                      (True, False): "was", (True, True): "were"}[(past, plural)])
            # Apertium is given the singular verb it writes anyway; the rest is the same
            self.assertEqual(sent[1], "was" if past else "is")
            self.assertEqual(sent[2:], eng[2:])
            self.assertFalse(plural and eng[3] == "age")   # never "What are your ages?"
            self.assertEqual(it.fix, ["cual"])
            seen.add((past, plural, "of" in eng))
        self.assertEqual(len(seen), 8)   # every tense, number and "the X of Y" comes up

    def test_asked_among_the_wh_questions(self):
        class OtherQuestion(Exception):
            pass

        def other(seq):
            raise OtherQuestion()   # question_wh went on to the other wh-words
        g = self.grammar(seed=3)
        g.question_value = lambda: "value"
        g.ch = other
        count = 0
        for _ in range(300):
            try:
                count += g.question_wh() == "value"
            except OtherQuestion:
                pass
        self.assertGreater(count, 20)
        self.assertLess(count, 80)   # about 15 %


class MoreNames(unittest.TestCase):
    N = {"man": {"cls": "person", "pl": "men", "f": 1}}

    def test_grammar_draws_the_added_names(self):
        g = Grammar(random.Random(1), self.N, {}, {}, {}, {}, {}, {}, {}, ["Zelda"], ["Salamanca"])
        self.assertEqual(g.people, NAMES + ["Zelda"])
        self.assertEqual(g.places, CITIES + ["Salamanca"])
        # a name or a town where the grammar may choose one, then the packaged list
        draws = itertools.cycle([0.0, 0.9])
        g.r = lambda: next(draws)
        self.assertEqual(g.place_pp("dir")[1][0], "Salamanca")
        self.assertEqual(g.subject(("person",), False)[0][0][0], "Zelda")

    def test_closed_names_half(self):
        g = Grammar(random.Random(1), self.N, {}, {}, {}, {}, {}, {}, {}, ["Zelda", "Ximena"], ["Salamanca"])
        names = [g.person_name() for _ in range(4000)]
        closed = sum(n in NAMES for n in names) / len(names)
        self.assertLess(abs(closed - 0.5), 0.03)
        self.assertEqual(set(names) - set(NAMES), {"Zelda", "Ximena"})
        places = [g.place_name() for _ in range(4000)]
        self.assertLess(abs(places.count("Salamanca") / len(places) - 0.5), 0.03)


if __name__ == "__main__":
    unittest.main()
