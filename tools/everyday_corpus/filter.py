"""The filter: which of Apertium's translations are good enough to keep.

A clause is kept only if
  1. its back-translation gives the English again (roundtrip.rt_compare),
     a noun compound read back as such;
  2. neither direction has an unknown-word mark (* # @);
  3. the Spanish has no doubled word, no dangling preposition or article at
     the end, no "que" for a demonstrative "that", and keeps every person's
     name unchanged (Apertium writes "Sofia" as "Sofía");
  4. Apertium's Spanish analyser finds, for every English content word, a
     word whose lemma is a dictionary translation with a compatible part of
     speech, and the Spanish word of a synonym the round trip relied on;
  5. the Spanish main verb has the expected lemma, tense, person and number.
Each rejection is counted under its reason for stats.txt."""

import re

from .apertium import EVERYDAY_SENSES, SPA_MORF, analyse, clean_es, known_tag_hints, translate
from .common import TOKEN_RE, log
from .compounds import compound_pairs, undo_compounds
from .roundtrip import rt_compare

# Spanish parts of speech that translate each English one
SPA_POS_OK = {"n": {"n"}, "v": {"vblex", "vbmod", "vbser", "vbhaver"},
              "adj": {"adj", "vblex"}, "adv": {"adv"}}
# a Spanish sentence does not end in one of these
DANGLING = {"en", "a", "de", "con", "para", "por", "que", "el", "la", "los", "las", "un", "una"}


def content_ok(toks, ana, bid):
    """Every content word of TOKS has a translation (BID: bilingual_lemmas)
    among the Spanish analyses ANA, with a compatible part of speech."""
    for w, lemma, pos in toks:
        if pos is None:
            continue
        targets = bid.get((lemma, pos), set())
        if not any(al in targets and tags and tags[0] in SPA_POS_OK[pos]
                   for _, an in ana for al, tags in an):
            return False
    return True


def verb_ok(vinfo, ana, bid):
    """The Spanish has the verb VINFO expects (lemma, tense tags, person,
    number): a translation of the English verb, or estar / poder itself
    (progressive, "can")."""
    if vinfo is None:
        return True
    lemma, tags_want, p, n = vinfo
    if lemma in ("estar", "poder"):
        targets = {lemma}
    else:
        targets = bid.get((lemma, "v"), set())
    pt = "p%d" % p
    for _, an in ana:
        for al, tags in an:
            if al in targets and tags_want & set(tags) and pt in tags and n in tags:
                return True
    return False


def filter_items(items, bid, batch, stats, reasons, alias, people):
    """The ITEMS (with apt set) that pass the filter, their Spanish (es) and
    its analysis (ana) set.  BID: bilingual_lemmas; ALIAS: rt_alias; PEOPLE:
    the names that must come through unchanged.  STATS[construction] counts
    [generated, kept], REASONS the rejections."""
    apts = [it.apt for it in items]
    hints = [known_tag_hints(it.toks) if it.toks else None for it in items]
    es = [clean_es(s) for s in translate("eng-spa", apts, batch, EVERYDAY_SENSES, hints)]
    log("eng-spa done")
    back = translate("spa-eng", es, batch)
    log("spa-eng done")
    ok = []
    for it, s, b in zip(items, es, back):
        stats[it.cons][0] += 1
        b = undo_compounds(b, compound_pairs(it.toks)) if it.toks else b
        if any(c in s or c in b for c in "*#@"):
            reasons["unknown word"] += 1
            continue
        need = rt_compare(it.apt, b, alias)
        if need is None:
            reasons["round trip"] += 1
            continue
        if need:
            it.extra["rt_es"] = need
        sw = [w.lower() for w in TOKEN_RE.findall(s)]
        st = set(TOKEN_RE.findall(s))
        if any(w in people and w not in st for w in TOKEN_RE.findall(it.apt)):
            reasons["name changed"] += 1   # e.g. Sofia -> Sofía
            continue
        if re.search(r"\w that \w", it.apt) and " que " in s:
            reasons["spanish form"] += 1   # Apertium: demonstrative "that" -> "que"
            continue
        if any(a == b_ and a.isalpha() for a, b_ in zip(sw, sw[1:])) or \
                (len(sw) > 1 and sw[-2] in DANGLING):
            reasons["spanish form"] += 1
            continue
        it.es = s
        ok.append(it)
    anas = analyse(SPA_MORF, [it.es for it in ok])
    kept = []
    for it, ana in zip(ok, anas):
        if ana is None:
            reasons["segmentation"] += 1
            continue
        if not content_ok(it.toks, ana, bid):
            reasons["content word"] += 1
            continue
        if "rt_es" in it.extra:   # a synonym in the round trip: its Spanish word
            lemmas = {al for _, an in ana for al, _ in an}
            if not all(es & lemmas for es in it.extra["rt_es"]):
                reasons["round trip synonym"] += 1
                continue
            stats["(round trip by synonym)"][0] += 1
            stats["(round trip by synonym)"][1] += 1
        if not verb_ok(it.vinfo, ana, bid):
            reasons["verb form"] += 1
            continue
        it.ana = ana
        stats[it.cons][1] += 1
        kept.append(it)
    return kept
