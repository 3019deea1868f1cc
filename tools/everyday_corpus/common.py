"""What every part of the generator shares: the word tokens of a sentence
and the progress log.

TOKEN_RE is the one tokenisation of the corpus: Apertium's analyses are
aligned on it, the round trip compares its tokens, and the indices of
pronoun_test.tsv count them (so "didn't" is "didn", "'", "t")."""

import re
import time

TOKEN_RE = re.compile(r"\w+|[^\w\s]")
_START = time.time()


def log(msg):
    """A progress line with the seconds since the generator started."""
    print("[%5.0fs] %s" % (time.time() - _START, msg), flush=True)
