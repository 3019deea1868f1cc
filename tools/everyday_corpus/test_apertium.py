"""Tests of apertium: the everyday senses moved to the front of the
dictionary's choices, a word's analyses of other parts of speech dropped
before the tagger, and (where Apertium is installed) the split pipeline."""

import os
import re
import unittest

from .apertium import A_DIR, APERTIUM_MODES, EVERYDAY_SENSES, apertium_with_senses, keep_known_line, \
    keep_known_tags, known_tag_hints, noun_info, prefer_senses, translate

HAVE_APERTIUM = os.path.exists(A_DIR) and os.path.exists(APERTIUM_MODES)


class EverydaySenses(unittest.TestCase):
    def test_prefer_senses_reorders_only_named_words(self):
        stream = ("^Prpers<prn><subj><p3><f><sg>/Prpers<prn><subj><p3><f><sg>$ "
                  "^work<vblex><pri><p3><sg>/obrar<vblex><pri><p3><sg>/trabajar<vblex><pri><p3><sg>"
                  "/funcionar<vblex><pri><p3><sg>$ ^at<pr>/en<pr>$ "
                  "^the<det><def><sp>/el<det><def><GD><ND>$ "
                  "^key<n><sg>/tono<n><m><sg>/clave<n><f><sg>/llave<n><f><sg>$ "
                  "^work<n><sg>/obra<n><f><sg>/trabajo<n><m><sg>$^.<sent>/.<sent>$")
        out = prefer_senses(stream, EVERYDAY_SENSES)
        self.assertIn("^work<vblex><pri><p3><sg>/trabajar<vblex><pri><p3><sg>/obrar<vblex><pri><p3><sg>"
                      "/funcionar<vblex><pri><p3><sg>$", out)
        self.assertIn("^key<n><sg>/llave<n><f><sg>/tono<n><m><sg>/clave<n><f><sg>$", out)
        # the noun "work" is not the verb: untouched; so is every other unit
        self.assertIn("^work<n><sg>/obra<n><f><sg>/trabajo<n><m><sg>$", out)
        self.assertEqual(len(out), len(stream))
        self.assertEqual(prefer_senses(stream, {}), stream)
        # escaped stream characters stay escaped and whole
        odd = "^a\\/b<n><sg>/x<n><m><sg>$ ^\\$<sent>/\\$<sent>$"
        self.assertEqual(prefer_senses(odd, {("a\\/b", "n"): "x"}), odd)

    def test_senses_are_dictionary_words(self):
        for (en, tag), es in EVERYDAY_SENSES.items():
            self.assertIn(tag, ("n", "vblex", "adj"))
            self.assertTrue(re.match(r"^[a-záéíóúñ]+$", es), es)

    @unittest.skipUnless(HAVE_APERTIUM, "needs Apertium eng-spa")
    def test_split_pipeline_is_apertium(self):
        lines = ["She works at the hospital.", "Where is the train station?",
                 "He said \"the key is here\" (yes).", "I have 3 keys, 2 cats and a dog!",
                 "Is his room expensive?", "The machine does not work."]
        plain = translate("eng-spa", lines)
        self.assertEqual(translate("eng-spa", lines, senses={("zzz", "n"): "x"}), plain)
        chosen = translate("eng-spa", lines, senses=EVERYDAY_SENSES)
        self.assertIn("Obra en el hospital.", plain[0])
        self.assertIn("Trabaja en el hospital.", chosen[0])
        self.assertIn("estación de tren", chosen[1])
        self.assertIn("llave", chosen[2])
        self.assertIn("3 llaves", chosen[3])
        self.assertIn("habitación", chosen[4])
        # the dictionary's own information follows the chosen word
        info = noun_info(["key", "station"])
        self.assertEqual(info["key"][0], "f")
        self.assertEqual(info["key"][2], "llave")
        self.assertEqual(info["station"][2], "estación")


class KnownTags(unittest.TestCase):
    HINTS = known_tag_hints([("My", None, None), ("friend", "friend", "n"), ("lives", "live", "v"),
                             ("in", None, None), ("Madrid", None, None)])
    LINE = ("^My/My<det><pos><sp>$ ^friend/friend<n><sg>$ "
            "^lives/life<n><pl>/live<vblex><pri><p3><sg>$ ^in/in<pr>$ "
            "^Madrid/Madrid<np><loc><sg>$^./.<sent>$")

    def test_drops_other_parts_of_speech(self):
        out = keep_known_line(self.LINE, self.HINTS)
        self.assertEqual(out, self.LINE.replace("life<n><pl>/", ""))
        # the full stop apertium-destxt adds at the end of its input is no mismatch
        self.assertEqual(keep_known_line(self.LINE + "^./.<sent>$", self.HINTS), out + "^./.<sent>$")

    def test_keeps_a_word_with_none_of_its_own(self):
        hints = [(w, "adj" if w == "lives" else t) for w, t in self.HINTS]
        self.assertEqual(keep_known_line(self.LINE, hints), self.LINE)

    def test_misaligned_or_unhinted_lines_unchanged(self):
        self.assertEqual(keep_known_line(self.LINE, self.HINTS[:2] + self.HINTS[3:]), self.LINE)
        longer = self.HINTS[:-1] + [("today", None), (".", None)]
        self.assertEqual(keep_known_line(self.LINE, longer), self.LINE)
        stream = self.LINE + "[\n]" + self.LINE + "^./.<sent>$[][\n]"
        self.assertEqual(keep_known_tags(stream, [None, None]), stream)
        once = keep_known_tags(stream, [self.HINTS, None])
        self.assertEqual(once.split("\n")[1], stream.split("\n")[1])
        self.assertNotIn("life<n>", once.split("\n")[0])
        self.assertEqual(keep_known_tags(stream, [self.HINTS]), stream)   # wrong line count

    @unittest.skipUnless(HAVE_APERTIUM, "needs Apertium eng-spa")
    def test_through_apertium(self):
        text = "My friend lives in Madrid.\nMy friend lives in Madrid.\n"
        out = apertium_with_senses("eng-spa", text, EVERYDAY_SENSES, hints=[self.HINTS, None])
        self.assertEqual(out.split("\n")[:2], ["Mi amigo vive en Madrid.", "Mis vidas de amigo en Madrid."])
        # without hints, Apertium's own output
        self.assertEqual(apertium_with_senses("eng-spa", text, EVERYDAY_SENSES).split("\n")[:2],
                         translate("eng-spa", ["My friend lives in Madrid."] * 2))


if __name__ == "__main__":
    unittest.main()
