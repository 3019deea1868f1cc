#!/usr/bin/env python3
"""English lines on stdin -> Spanish lines on stdout, as `apertium -u eng-spa`
but with the everyday senses the corpus generator uses
(everyday_corpus.apertium.EVERYDAY_SENSES, e.g. work -> trabajar, key -> llave).
tools/score_apertium.sh uses it with SENSES=1: the teacher of the shipped
corpus, scored on the dev set."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from everyday_corpus.apertium import EVERYDAY_SENSES, apertium_with_senses  # noqa: E402

text = sys.stdin.read()
sys.stdout.write(apertium_with_senses("eng-spa", text, EVERYDAY_SENSES, marks=False))
