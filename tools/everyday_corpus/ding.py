"""Real English sentences from the example phrases of the Ding German–English
dictionary (Debian package trans-de-en, GPL 2+; /usr/share/trans/de-en).

Its entries are "German :: English", with "|" between an entry's senses and
";" between alternatives; many senses are whole example sentences written by
people for people ("Would you like to have dinner with me?", "I usually cut
across the park on my way home.").  The English of those is a source of the
commonest words in natural use; the generator sends it through Apertium and
the round-trip filter like the Brown and WordNet sentences.

    ding_sentences(path) -> sorted list of English sentences
"""

import os
import re

DING = "/usr/share/trans/de-en"
MIN_WORDS, MAX_WORDS = 3, 14
# Left out: brackets and notes, quotes, numbers with units, and word alternatives
# that are more than a spelling ("He / It is").
BAD = re.compile(r"[(){}\[\]<>\"“”=+*#&%$@~_|\\]|\.\.\.|…| / |etc\.|sb\.|sth\.")
SENTENCE = re.compile(r"[A-Z][A-Za-z0-9 ,.'?!:;-]*[.?!]")


def clean(text):
    """One Ding example in plain ASCII punctuation, the first of each word
    alternative ("transport/transportation" -> "transport"), or None."""
    text = text.strip().replace("’", "'").replace("‘", "'").replace("–", "-")
    if BAD.search(text):
        return None
    text = re.sub(r"(\w+)(?:/\w+)+", r"\1", text)
    if "/" in text or not SENTENCE.fullmatch(text):
        return None
    if not MIN_WORDS <= len(text.split()) <= MAX_WORDS:
        return None
    if re.search(r"\b[A-Z]{2,}\b", text):   # abbreviations: EU, UK, GmbH
        return None
    return text


def ding_sentences(path=DING):
    """The distinct cleaned example sentences of the dictionary; [] where it
    is not installed."""
    if not os.path.exists(path):
        return []
    out = set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or " :: " not in line:
                continue
            english = line.split(" :: ", 1)[1]
            for sense in english.split("|"):
                for alternative in sense.split(";"):
                    s = clean(alternative)
                    if s:
                        out.add(s)
    return sorted(out)
