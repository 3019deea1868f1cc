"""WordNet 3.0 (Debian wordnet-base), read from its data and index files.

The lexicon takes its nouns, verbs and adjectives, their semantic classes
(lexicographer files and hypernyms) and verb frames from here; noun
compounds and the "real" usage-example sentences come from here too."""

import collections
import os
import re

WN = "/usr/share/wordnet"
# The lexicographer files, in the order of their numbers in data.*.
LEXNAMES = ("adj.all adj.pert adv.all noun.Tops noun.act noun.animal "
            "noun.artifact noun.attribute noun.body noun.cognition "
            "noun.communication noun.event noun.feeling noun.food noun.group "
            "noun.location noun.motive noun.object noun.person "
            "noun.phenomenon noun.plant noun.possession noun.process "
            "noun.quantity noun.relation noun.shape noun.state "
            "noun.substance noun.time verb.body verb.change verb.cognition "
            "verb.communication verb.competition verb.consumption "
            "verb.contact verb.creation verb.emotion verb.motion "
            "verb.perception verb.possession verb.social verb.stative "
            "verb.weather adj.ppl").split()


def read_data(pos):
    """{offset: (lexicographer file, words, hypernym offsets, verb frame
    numbers, gloss)} of data.POS ("noun", "verb", "adj")."""
    data = {}
    with open(os.path.join(WN, "data." + pos), encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            head, _, gloss = line.partition(" | ")
            fl = head.split()
            off, lex, wcnt = fl[0], int(fl[1]), int(fl[3], 16)
            words = [re.sub(r"\(.*\)$", "", fl[4 + 2 * i]).lower()
                     for i in range(wcnt)]
            i = 4 + 2 * wcnt
            pcnt = int(fl[i])
            i += 1
            hypers = []
            for _ in range(pcnt):
                if fl[i] in ("@", "@i"):
                    hypers.append(fl[i + 1])
                i += 4
            frames = set()
            if pos == "verb" and i < len(fl):
                fc = int(fl[i])
                i += 1
                for _ in range(fc):
                    frames.add(int(fl[i + 1]))
                    i += 3
            data[off] = (LEXNAMES[lex], words, hypers, frames, gloss.strip())
    return data


def read_index(pos):
    """{lemma: [synset offsets, most frequent sense first]} of index.POS."""
    idx = {}
    with open(os.path.join(WN, "index." + pos), encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            fl = line.split()
            n = int(fl[2])
            idx[fl[0]] = fl[-n:]
    return idx


def read_verb_exceptions():
    """{verb: {irregular forms}} of verb.exc (an irregular past must be here)."""
    vexc = collections.defaultdict(set)
    with open(os.path.join(WN, "verb.exc")) as f:
        for line in f:
            a, b = line.split()[:2]
            vexc[b].add(a)
    return vexc


def ancestors(data, off):
    """The words of synset OFF and of all its hypernyms (at most 200 synsets)."""
    seen, todo, words = set(), [off], set()
    while todo and len(seen) < 200:
        o = todo.pop()
        if o in seen:
            continue
        seen.add(o)
        words.update(data[o][1])
        todo.extend(data[o][2])
    return words
