"""Tests of core_words: English verb forms, Spanish agreement, and (where
Apertium's Spanish generator is installed) clauses whose Spanish agrees in
person, tense, mood and clitic placement, and the drawn sentences."""

import os
import random
import re
import unittest

from . import core_words as cw

HAVE_GENERATOR = os.path.exists(cw.SPA_GEN)


class EnglishForms(unittest.TestCase):
    def test_regular_irregular_and_phrasal(self):
        self.assertEqual(cw.english_forms("stop"),
                         {"base": "stop", "s": "stops", "past": "stopped", "pp": "stopped", "ing": "stopping"})
        self.assertEqual(cw.english_forms("study")["s"], "studies")
        self.assertEqual(cw.english_forms("study")["past"], "studied")
        self.assertEqual(cw.english_forms("watch")["s"], "watches")
        self.assertEqual(cw.english_forms("make")["ing"], "making")
        self.assertEqual(cw.english_forms("see")["ing"], "seeing")
        self.assertEqual(cw.english_forms("die")["ing"], "dying")
        self.assertEqual(cw.english_forms("wake up")["past"], "woke up")
        self.assertEqual(cw.english_forms("go to bed")["pp"], "gone to bed")
        self.assertEqual(cw.english_forms("travel")["past"], "travelled")


class SpanishAgreement(unittest.TestCase):
    def test_plural_and_feminine(self):
        self.assertEqual(cw.es_plural("canción"), "canciones")
        self.assertEqual(cw.es_plural("feliz"), "felices")
        self.assertEqual(cw.es_plural("casa"), "casas")
        self.assertEqual(cw.agree("cansado", "f", True), "cansadas")
        self.assertEqual(cw.agree("inglés", "f", False), "inglesa")
        self.assertEqual(cw.agree("grande", "f", True), "grandes")
        self.assertEqual(cw.agree("mejor", "f", False), "mejor")
        self.assertEqual(cw.fill_agreement("viaja {solo}", "f", False), "viaja sola")

    def test_elide_and_finish(self):
        self.assertEqual(cw.elide("vamos a el cine de el barrio"), "vamos al cine del barrio")
        self.assertEqual(cw.finish("where is it", "dónde está", "?"), ("Where is it?", "¿Dónde está?"))


def verb(en):
    return next(v for v in cw.VERBS if v.en == en)


def pair(subj, v, comp, tense, **kw):
    c = cw.Clause(subj, v, cw.fill_complement(subj, comp), tense, **kw)
    return cw.clause_pair(c)


@unittest.skipUnless(HAVE_GENERATOR, "needs Apertium's eng-spa generator")
class Clauses(unittest.TestCase):
    I, YOU, SHE, WE = (cw.PRONOUN_SUBJECTS[i] for i in (0, 1, 3, 4))
    BROTHER = cw.NOUN_SUBJECTS[0]

    def test_tenses_and_reflexive_clitics(self):
        get_up = verb("get up")
        self.assertEqual(pair(self.I, get_up, ("early", "temprano"), "going_to"),
                         ("I'm going to get up early", "voy a levantarme temprano"))
        self.assertEqual(pair(self.SHE, get_up, ("", ""), "past", neg=True),
                         ("she didn't get up", "no se levantó"))
        self.assertEqual(pair(self.WE, get_up, ("at six", "a las seis"), "perfect"),
                         ("we've got up at six", "nos hemos levantado a las seis"))
        self.assertEqual(pair(self.BROTHER, verb("sleep"), ("", ""), "past_prog"),
                         ("my brother was sleeping", "mi hermano estaba durmiendo"))

    def test_object_clitic_and_possessive(self):
        call = verb("call")
        self.assertEqual(pair(self.I, call, ("you", "@te"), "fut"), ("I'll call you", "te llamaré"))
        self.assertEqual(pair(self.I, call, ("you", "@te"), "can"), ("I can call you", "puedo llamarte"))
        self.assertEqual(pair(self.I, call, ("{poss} mother", "a su madre"), "past"),
                         ("I called my mother", "llamé a mi madre"))
        self.assertIsNone(cw.fill_complement(self.YOU, ("you", "@te")))

    def test_questions(self):
        work = verb("work")
        c = cw.Clause(self.BROTHER, work, ("", ""), "pres", form="where")
        self.assertEqual(cw.clause_pair(c), ("where does my brother work", "dónde trabaja mi hermano"))
        c = cw.Clause(self.YOU, work, ("at home", "en casa"), "past", neg=True, form="yn")
        self.assertEqual(cw.clause_pair(c), ("didn't you work at home", "no trabajaste en casa"))

    def test_adverbs_just_and_never(self):
        arrive = verb("arrive")
        just = cw.ADVERBS["perfect"][1]
        never = cw.ADVERBS["perfect"][2]
        self.assertEqual(pair(self.I, arrive, ("", ""), "perfect", adverb=just), ("I've just arrived", "acabo de llegar"))
        self.assertEqual(pair(self.SHE, arrive, ("late", "tarde"), "perfect", adverb=never),
                         ("she has never arrived late", "nunca ha llegado tarde"))

    def test_subjunctive_after_a_future(self):
        futures, subjunctives = set(), set()
        for v in cw.VERBS:
            for p in range(5):
                futures.add(cw.es_finite(v.es, "fti", p))
                subjunctives.add(cw.es_finite(v.es, "prs", p))
        rng = random.Random(4)
        seen = 0
        for _ in range(600):
            made = cw.subordinate(rng, lambda: "Anna", {"Anna"})
            if made and made[0] in ("subordinate:until", "subordinate:unless", "subordinate:as soon as"):
                es = made[1][1]
                seen += 1
                # the clause after "hasta que", "a menos que", "en cuanto" has a present
                # subjunctive, never the future of the main clause
                after = re.split(r"(?i)hasta que|a menos que|en cuanto", es)[1]
                after = re.findall(r"\w+", after.split(",")[0])
                self.assertTrue(subjunctives & set(after), es)
                self.assertFalse(futures & set(after), es)
        self.assertGreater(seen, 20)

    def test_sentences_are_deterministic_distinct_and_complete(self):
        def draw():
            rng = random.Random(7)
            return cw.sentences(rng, 3000, lambda: rng.choice(["Anna", "Peter"]), {"Anna"})
        a = draw()
        self.assertEqual(a, draw())
        self.assertEqual(len(a), 3000)
        self.assertEqual(len({en for _, en, _ in a}), 3000)
        for cons, en, es in a:
            self.assertNotRegex(en + es, r"[{}@]|  ", (en, es))
            self.assertTrue(en[0].isupper() and es[0] in "¿¡" or es[0].isupper(), (en, es))
            if en.endswith("?"):
                self.assertIn("¿", es, en)
                self.assertTrue(es.endswith("?"), es)
            self.assertNotIn("nunca no", es)
        families = {cons.split(":")[0] for cons, _, _ in a}
        for f in ("core", "subordinate", "relative", "indirect question", "indefinite", "quantifier",
                  "described", "request", "duration", "expression"):
            self.assertIn(f, families)


if __name__ == "__main__":
    unittest.main()
