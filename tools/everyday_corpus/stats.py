"""stats.txt: what the generator kept and why, for the corpus README.

Per filtered construction, how many clauses were generated and kept; the
rejections by reason; per construction, the pairs in each split; and the
size of the lexicon and of the vocabulary that reached the corpus."""

import collections

from .common import TOKEN_RE
from .splits import SPLIT_ORDER


def report(seed, runtime, lexicon, grammar, kept, splits, n_pronoun, stats, reasons):
    """The text of stats.txt.  LEXICON: (N, V, A); GRAMMAR: the Grammar (its
    transitive and intransitive verbs); KEPT: the kept clauses (their
    content lemmas); SPLITS: split_pairs' result; N_PRONOUN: held-out rows;
    STATS: construction -> [generated, kept]; REASONS: rejection counts."""
    N, V, A = lexicon
    per = collections.Counter()
    for name in SPLIT_ORDER:
        for cons, e, s in splits[name]:
            per[(name, cons)] += 1
    forms = set()
    for cons, e, s in splits["train"]:
        for w in TOKEN_RE.findall(e):
            forms.add(w.lower())
    lemmas = set()
    for it in kept:
        for w, lem, pos in it.toks:
            if pos:
                lemmas.add((lem, pos))
    lines = []
    lines.append("seed %d; runtime %.0fs" % (seed, runtime))
    lines.append("lexicon: %d nouns, %d verbs (%d transitive, %d intransitive), %d adjectives"
                 % (len(N), len(V), len(grammar.vt), len(grammar.vi), len(A)))
    lines.append("content lemmas used in kept clauses: %d; English word forms in train: %d"
                 % (len(lemmas), len(forms)))
    lines.append("split sizes: " + ", ".join("%s %d" % (k, len(splits[k])) for k in SPLIT_ORDER)
                 + ", pronoun_test %d" % n_pronoun)
    lines.append("rejections: " + ", ".join("%s %d" % kv for kv in sorted(reasons.items())))
    lines.append("")
    lines.append("%-26s %9s %9s %7s" % ("filtered construction", "generated", "kept", "% kept"))
    for k in sorted(stats):
        gq, kk = stats[k]
        lines.append("%-26s %9d %9d %6.1f%%" % (k, gq, kk, 100.0 * kk / max(gq, 1)))
    lines.append("")
    lines.append("%-26s %8s %6s %6s" % ("construction in split", "train", "valid", "test"))
    for c in sorted({c for _, c in per}):
        lines.append("%-26s %8d %6d %6d" % (c, per[("train", c)], per[("valid", c)], per[("test", c)]))
    return "\n".join(lines)
