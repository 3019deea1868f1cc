"""Real sentences: short sentences of the Brown corpus, WordNet's quoted
usage examples and the Ding dictionary's examples (ding.py) that survive
the round-trip filter.

The grammar's clauses are regular by construction; these add the
sentence shapes and words that people write and no template makes."""

import re

from .common import TOKEN_RE, log
from .filter import filter_items
from .grammar import Item
from .lexicon import SENSITIVE
from .names import NAMES
from .wordnet import read_data


def real_sentences(brown, adata, ndata, batch, stats, reasons, alias, ding=()):
    """(English, Spanish) pairs of the short Brown sentences (BROWN, from
    brown_counts), WordNet usage examples (of ADATA, NDATA and the verbs)
    and the Ding dictionary's example sentences (DING, from
    ding.ding_sentences) that pass the filter and have a finite verb."""
    cands = {("real:ding", text) for text in ding}
    bad = re.compile(r"[^A-Za-z ,']")
    for sent in brown:
        if not sent or sent[-1][1] != ".":
            continue
        words = [w for w, t in sent]
        if not (4 <= len(words) <= 10):
            continue
        if any(t in ("``", "''", "(", ")", "--", ":", "*") for w, t in sent):
            continue
        text = " ".join(words[:-1])
        if bad.search(text) or not words[0][:1].isupper():
            continue
        text = re.sub(r" ,", ",", text) + words[-1]
        cands.add(("real:brown", text))
    for data in (ndata, adata, read_data("verb")):
        for off in sorted(data):
            for ex in re.findall(r'"([^"]+)"', data[off][4]):
                ex = ex.strip()
                if bad.search(ex.rstrip(".!?")) or not (4 <= len(ex.split()) <= 10):
                    continue
                if ex[-1] not in ".!?":
                    ex += "."
                cands.add(("real:wordnet", ex[:1].upper() + ex[1:]))
    items = []
    for cons, text in sorted(cands):
        if any(w.lower() in SENSITIVE for w in TOKEN_RE.findall(text)):
            continue
        it = Item(cons, [], None)
        it.apt = text
        items.append(it)
    log("real: %d candidates" % len(items))
    # no content words to check: the sentences are not the grammar's
    kept = filter_items(items, {}, batch, stats, reasons, alias, frozenset(NAMES))
    res = []
    finite = {"pri", "ifi", "pii", "fti", "cni", "prs", "imp"}
    for it in kept:
        if it.apt.endswith("?") and not it.es.endswith("?"):
            continue
        if not any(finite & set(tags) for _, an in it.ana for _, tags in an):
            reasons["real: no finite verb"] += 1
            continue
        es = it.es
        if es.endswith("?"):
            es = "¿" + es
        res.append((it.apt, es))
    log("real: %d kept" % len(res))
    return res
