"""Tests of postedit: "vuestro" as tú, and what counts as the same
sentence for holding out."""

import unittest

from .postedit import held_key, tu_for_vuestro


class PostEdit(unittest.TestCase):
    def test_tu_for_vuestro(self):
        self.assertEqual(tu_for_vuestro("Vuestro padre ve vuestras casas."), "Tu padre ve tus casas.")
        self.assertEqual(tu_for_vuestro("¿Es el vuestro?"), "¿Es el tuyo?")
        self.assertEqual(tu_for_vuestro("Tu perro duerme."), "Tu perro duerme.")

    def test_held_out_whatever_the_typing(self):
        self.assertEqual(held_key("Thank you very much."), held_key("thank you  very much"))
        self.assertNotEqual(held_key("Thank you."), held_key("Thank you very much."))


if __name__ == "__main__":
    unittest.main()
