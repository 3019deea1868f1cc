#!/usr/bin/env python3
"""English lines on stdin -> Spanish lines on stdout, as `apertium -u eng-spa`
but with the everyday senses the corpus generator uses (--everyday-senses:
make_everyday_corpus.EVERYDAY_SENSES, e.g. work -> trabajar, key -> llave).
tools/score_apertium.sh uses it with SENSES=1: the teacher of the shipped
corpus, scored on the dev set."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_everyday_corpus as M  # noqa: E402

text = sys.stdin.read()
sys.stdout.write(M.apertium_with_senses("eng-spa", text, M.EVERYDAY_SENSES, marks=False))
