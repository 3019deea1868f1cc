"""Tests of invented_words.py: a word hunspell-es does not know counts unless
the English has it (a name, a brand); numbers never count."""

import os
import shutil
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import invented_words  # noqa: E402

HAVE_HUNSPELL = shutil.which("hunspell") and os.path.exists("/usr/share/hunspell/es_ES.dic")


@unittest.skipUnless(HAVE_HUNSPELL, "needs hunspell and hunspell-es")
class Invented(unittest.TestCase):
    def test_copied_and_spanish_words_do_not_count(self):
        sources = ["Emily lives in Amsterdam.", "She reads a lot.", "I paid 12 euros.", "Emily is tired."]
        outputs = ["Emily vive en Amsterdam.", "Descarra mucho.", "Pagué 12 euros.", "Comedo está cansada."]
        self.assertEqual(invented_words.invented(sources, outputs), [(1, ["Descarra"]), (3, ["Comedo"])])


if __name__ == "__main__":
    unittest.main()
