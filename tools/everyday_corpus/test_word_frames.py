"""Tests of word_frames and coverage: a lexicon line of the wrong shape is
named by file and line; a word's sentences contain that very word form and
its examples; a skipped word gets none; the top-up fills only what is
missing; the frequency bands count what they should."""

import collections
import os
import random
import tempfile
import unittest

from . import core_words as cw
from . import coverage, word_frames as wf

ROWS = [
    "camera\tnoun\tcamera\tcámara\tf\tthing\tcámaras\tI left my camera at the hotel.\tMe dejé la cámara en el hotel."
    "\tThis camera takes good photos.\tEsta cámara hace buenas fotos.",
    "upset\tadj\tupset\tdisgustado\t-\testar\tdisgustada\tShe was upset about the news.\tEstaba disgustada por la "
    "noticia.\tDon't get upset.\tNo te disgustes.",
    "killed\tverb\tkill\tmatar\t-\tt\tmato\tThe cold killed the plants.\tEl frío mató las plantas.\tHe killed a "
    "spider.\tMató una araña.",
    "sexy\tskip\tsexual word\t-\t-\t-\t-\t-\t-\t-\t-",
]


def lexicon(rows=ROWS):
    path = os.path.join(tempfile.mkdtemp(), "lex.tsv")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(rows) + "\n")
    return path


class Lexicon(unittest.TestCase):
    def test_bad_line_names_file_and_line(self):
        path = lexicon(ROWS[:2] + ["broken\tnoun"])
        with self.assertRaisesRegex(ValueError, r"lex\.tsv:3: 2 fields"):
            wf.read_lexicon([path], [])
        with self.assertRaisesRegex(ValueError, r"lex\.tsv:1: 2 fields, want word"):
            wf.read_lexicon([], [lexicon(["then\tThen we left."])])

    def test_more_examples_join_the_entry_or_make_one(self):
        more = lexicon(["camera\tMy camera is broken.\tMi cámara está rota.",
                        "then\tWe ate and then we left.\tComimos y luego nos fuimos.",
                        "sexy\tA sexy car.\tUn coche sexy."])
        entries = wf.read_lexicon([lexicon()], [more])
        self.assertIn(("My camera is broken.", "Mi cámara está rota."), entries["camera"].examples())
        self.assertEqual(entries["then"].pos, "other")
        self.assertEqual(entries["then"].examples(), [("We ate and then we left.", "Comimos y luego nos fuimos.")])
        self.assertEqual(wf.frame_sentences(random.Random(1), entries["sexy"], 5, lambda: "Ana", set()), [])
        # a word with too few sentences: its examples again, joined to a short sentence
        made = wf.top_up(random.Random(1), [], ["then"], [4], lambda: "Ana", set(), entries,
                         partners=[("It's late.", "Es tarde."), ("I'm home.", "Estoy en casa.")])
        self.assertEqual(len(made), 4)
        self.assertEqual(made[0][1:], ("We ate and then we left.", "Comimos y luego nos fuimos."))
        for cons, en, es in made[1:]:
            self.assertEqual(cons, "word:joined")
            self.assertIn("We ate and then we left.", en)
            self.assertIn("Comimos y luego nos fuimos.", es)

    def test_skip_gives_nothing(self):
        entries = wf.read_lexicon([lexicon()], [])
        self.assertEqual(wf.frame_sentences(random.Random(1), entries["sexy"], 20, lambda: "Ana", set()), [])


@unittest.skipUnless(os.path.exists(cw.SPA_GEN), "needs Apertium's eng-spa generator")
class Frames(unittest.TestCase):
    def setUp(self):
        self.entries = wf.read_lexicon([lexicon()], [])

    def sentences(self, word, count=25):
        return wf.frame_sentences(random.Random(3), self.entries[word], count, lambda: "Anna", {"Anna"})

    def test_every_sentence_has_the_word_form(self):
        for word in ("camera", "upset", "killed"):
            made = self.sentences(word)
            self.assertGreaterEqual(len(made), 15, word)
            self.assertEqual(sorted((en, es) for _, en, es in made[:2]), sorted(self.entries[word].examples()))
            for _, en, es in made:
                self.assertRegex(en.lower(), r"\b%s\b" % word, en)
                self.assertNotRegex(es, r"[{}@]", es)

    def test_spanish_follows_the_entry(self):
        for _, en, es in self.sentences("camera"):
            if en.startswith("Where is my"):
                self.assertEqual(es, "¿Dónde está mi cámara?")
        for _, en, es in self.sentences("upset"):
            if en.startswith("She looks "):
                self.assertTrue(es.startswith("Parece") and es.endswith("disgustada."), es)
        for _, en, es in self.sentences("killed"):
            if en == "They killed it.":
                self.assertEqual(es, "Lo mataron.")

    def test_top_up_fills_only_the_missing(self):
        pairs = [("x", "The camera is here.", "La cámara está aquí.")] * 24
        made = wf.top_up(random.Random(1), pairs, ["camera", "upset"], [25, 25], lambda: "Ana", set(), self.entries)
        self.assertEqual(sum("camera" in en.lower() for _, en, _ in made), 1)
        self.assertGreater(sum("upset" in en for _, en, _ in made), 10)


class Bands(unittest.TestCase):
    def test_band_report(self):
        counts = collections.Counter({"the": 100, "just": 3, "about": 20})
        rows = coverage.band_report(["the", "just", "about", "never"], counts, [2, 4], 20)
        self.assertEqual(rows, [(1, 2, 2, 1, [("just", 3)]), (3, 4, 2, 1, [("never", 0)])])

    def test_translatable(self):
        self.assertFalse(coverage.is_translatable([]))
        self.assertFalse(coverage.is_translatable([{"ij"}]))
        self.assertFalse(coverage.is_translatable([{"np", "ant"}]))
        self.assertTrue(coverage.is_translatable([{"np"}, {"n", "sg"}]))


if __name__ == "__main__":
    unittest.main()
