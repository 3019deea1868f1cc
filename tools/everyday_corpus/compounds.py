"""Noun compounds: "the radio station", "a coffee cup", "the hotel room".

Typed sentences are full of them and Spanish writes them "HEAD de
MODIFIER" ("la estación de radio").  They are WordNet's two-word nouns
whose words are both lexicon nouns, whose meaning is a kind of the head (a
radio station is a station, per WordNet's hypernyms or synset; a top dog is
not a dog), and which the tagged Brown corpus uses at least
BROWN_MIN_COMPOUND times as two nouns in a row.  A noun phrase of the head
gets one about twice as often as Brown has it, never after an adjective
(Apertium then breaks the phrase: "cuatro banco pequeño cuentas").
Apertium's way back ("the station of radio") is read as the compound in the
round trip (undo_compounds)."""

import collections
import re

from .brown import brown_files
from .wordnet import ancestors

BROWN_MIN_COMPOUND = 2
COMPOUND_BOOST = 2.0   # compounds come up this many times as often as in Brown ...
COMPOUND_MAX_SHARE = 0.25   # ... but in at most this share of a head's noun phrases


def wordnet_compounds(N, ndata, nidx):
    """[(modifier, head)] of WordNet's two-word nouns whose words are both in
    N and that are a kind of their head."""
    found = []
    for lemma, offs in sorted(nidx.items()):
        parts = lemma.split("_")
        if len(parts) != 2 or parts[0] == parts[1] or not all(w in N for w in parts):
            continue
        mod, head = parts
        kinds = set(ndata[offs[0]][1]) - {lemma}   # {phone number, number}
        for h in ndata[offs[0]][2]:
            kinds |= ancestors(ndata, h)
        if head in kinds:
            found.append((mod, head))
    return found


def brown_compound_counts(npm_dir, N, compounds):
    """How often Brown has each (modifier, head) as a singular noun and a noun
    (nn, nns), and how often it has each head as a noun: (Counter, Counter)."""
    forms = {}
    for mod, head in compounds:
        forms[(mod, head)] = forms[(mod, N[head]["pl"])] = (mod, head)
    heads = {N[h]["pl"]: h for _, h in compounds}
    heads.update({h: h for _, h in compounds})
    pairs, head_count = collections.Counter(), collections.Counter()
    for wt in brown_files(npm_dir):
        for (a, ta), (b, tb) in zip(wt, wt[1:]):
            if tb in ("nn", "nns") and b in heads:
                head_count[heads[b]] += 1
                if ta == "nn" and (a, b) in forms:
                    pairs[forms[(a, b)]] += 1
    return pairs, head_count


def noun_compounds(compounds, pair_count, head_count):
    """{head: (share, [modifier, ...], [Brown count, ...])}: the compounds
    Brown has at least BROWN_MIN_COMPOUND times; SHARE is the chance that a
    noun phrase of the head gets one (COMPOUND_BOOST times Brown's share,
    at most COMPOUND_MAX_SHARE), and a modifier is drawn by its count."""
    used = collections.defaultdict(list)   # head -> [modifier, ...]
    for mod, head in sorted(compounds, key=lambda c: (c[1], -pair_count[c], c[0])):
        if pair_count[(mod, head)] >= BROWN_MIN_COMPOUND:
            used[head].append(mod)
    table = {}
    for head, mods in used.items():
        counts = [pair_count[(mod, head)] for mod in mods]
        share = min(COMPOUND_MAX_SHARE, COMPOUND_BOOST * sum(counts) / max(head_count[head], 1))
        table[head] = (share, mods, counts)
    return table


def compound_pairs(toks):
    """(modifier, head form) of each noun compound in a clause's tokens: two
    noun tokens in a row."""
    return [(a[0], b[0]) for a, b in zip(toks, toks[1:]) if a[2] == "n" and b[2] == "n"]


def undo_compounds(back, compounds):
    """The back-translation with "HEAD of [the] MODIFIER" (Spanish "estación
    de tren" -> "station of train") read as the English "MODIFIER HEAD", for
    the (modifier, head form) pairs of one clause."""
    for mod, head in compounds:
        back = re.sub(r"\b%s of (?:the )?%s\b" % (re.escape(head), re.escape(mod)),
                      "%s %s" % (mod, head), back, flags=re.I)
    return back
