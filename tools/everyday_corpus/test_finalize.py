"""Tests of finalize: the ser -> estar fix, contractions, and "¿Cuál es
…?" for a question for a value (also through Apertium, where installed)."""

import os
import random
import unittest

from .apertium import A_DIR, APERTIUM_MODES, EVERYDAY_SENSES, translate
from .finalize import contract, contract_pron, cual_question, fix_estar
from .roundtrip import rt_norm


class Fixes(unittest.TestCase):
    def test_fix_estar(self):
        self.assertEqual(fix_estar("El bolso es en el coche."), "El bolso está en el coche.")
        self.assertEqual(fix_estar("Era cansado."), "Estaba cansado.")
        self.assertEqual(fix_estar("¿Dónde es mi bolso?"), "¿Dónde está mi bolso?")

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
            self.assertEqual(contract(a, rng, p=1.0), b)
        self.assertEqual(contract("I like tea.", rng, p=1.0), "I like tea.")

    def test_contract_pron(self):
        cases = {"I am tired.": "I'm tired.", "It is not here.": "It's not here.",
                 "They are in Madrid.": "They're in Madrid.",
                 'Tom said, "I am tired."': 'Tom said, "I\'m tired."',
                 "The dog is big.": "The dog is big."}
        for a, b in cases.items():
            self.assertEqual(contract_pron(a, random.Random(0), p=1.0), b)


class Cual(unittest.TestCase):
    def test_cual(self):
        self.assertEqual(cual_question("Qué es vuestro nombre.", False, False), "Cuál es vuestro nombre.")
        self.assertEqual(cual_question("Qué es vuestros planes.", False, True), "Cuáles son vuestros planes.")
        self.assertEqual(cual_question("Qué era los problemas.", True, True), "Cuáles eran los problemas.")
        self.assertEqual(cual_question("Qué era el precio del coche.", True, False),
                         "Cuál era el precio del coche.")
        self.assertIsNone(cual_question("Qué comes.", False, False))

    @unittest.skipUnless(os.path.exists(A_DIR) and os.path.exists(APERTIUM_MODES), "needs Apertium eng-spa")
    def test_through_apertium(self):
        lines = ["What is your name.", "What is your plans.", "What was the problems."]
        es = translate("eng-spa", lines, senses=EVERYDAY_SENSES)
        fixed = [cual_question(s, past, plural)
                 for s, (past, plural) in zip(es, [(False, False), (False, True), (True, True)])]
        self.assertEqual(fixed, ["Cuál es vuestro nombre.", "Cuáles son vuestros planes.",
                                 "Cuáles eran los problemas."])
        back = translate("spa-eng", es)
        self.assertEqual([rt_norm(b) for b in back], [rt_norm(a) for a in lines])


if __name__ == "__main__":
    unittest.main()
