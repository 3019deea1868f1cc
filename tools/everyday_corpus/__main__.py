"""The generator's command line: PYTHONPATH=tools python3 -m everyday_corpus
(see __init__.py for what it makes and needs).

The steps run in a fixed order on one random generator seeded by --seed,
so the same seed and package versions give the same bytes."""

import argparse
import collections
import os
import random
import time

from . import core_words, phrases, word_frames
from .coverage import frequent_words
from .ding import ding_sentences
from .apertium import bilingual_lemmas
from .brown import brown_counts
from .combine import combined, courtesy_clauses, vary_typing
from .common import log
from .compounds import brown_compound_counts, noun_compounds, wordnet_compounds
from .filter import filter_items
from .finalize import finalize
from .grammar import Grammar, render
from .it_pronouns import held_out_main_clauses, it_sentences
from .lexicon import build_lexicon
from .names import NAMES_F, more_names
from .real_sentences import real_sentences
from .roundtrip import rt_alias
from .splits import split_pairs, write_corpus
from .stats import report
from .wordnet import read_index

DEFAULT_NPM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".npm-data", "node_modules")


def parse_args():
    ap = argparse.ArgumentParser(prog="everyday_corpus",
                                 description="the everyday English -> Spanish corpus")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--train", type=int, default=400000)
    ap.add_argument("--valid", type=int, default=2000)
    ap.add_argument("--test", type=int, default=2000)
    ap.add_argument("--pronoun-test", type=int, default=400,
                    help="held-out 'it' sentences (of whole (X, VERB, Y) triples), without --keep-held-out")
    ap.add_argument("--out", default="assets/corpus/everyday")
    ap.add_argument("--npm", default=DEFAULT_NPM, help="node_modules with the npm data (default: .npm-data's)")
    ap.add_argument("--batch", type=int, default=5000, help="lines per Apertium call")
    ap.add_argument("--clause-ratio", type=float, default=1.0,
                    help="clause candidates per output pair")
    ap.add_argument("--keep-held-out", metavar="PRONOUN_TSV", action="append",
                    help="hold out the (X, VERB, Y) triples of this pronoun test file (repeatable: the "
                         "shipped pronoun_test.tsv and the blind and look sets' pronoun pairs) instead of "
                         "drawing --pronoun-test new ones, so that no model trained on this corpus has seen "
                         "their main clauses")
    ap.add_argument("--phrase-share", type=float, default=0.06,
                    help="that share of all pairs are everyday phrases (default 0.06)")
    ap.add_argument("--core-share", type=float, default=0.25,
                    help="that share of all pairs are core-English sentences whose Spanish the generator "
                         "writes (core_words.py; default 0.25)")
    ap.add_argument("--word-target", type=int, default=25,
                    help="each of the --core-words most frequent word forms is topped up with sentences of "
                         "its own (word_frames.py) to this many occurrences (default 25)")
    ap.add_argument("--core-words", type=int, default=3000,
                    help="how many of SUBTLEX-US's most frequent word forms are topped up (default 3000)")
    ap.add_argument("--frequent-target", type=int, default=60,
                    help="the target of the --frequent-words most frequent ones instead (default 60: about "
                         "what a word needs to become one piece of a 16,000-piece vocabulary)")
    ap.add_argument("--frequent-words", type=int, default=1000)
    ap.add_argument("--no-real", action="store_true", help="(testing) skip Brown/WordNet/Ding sentences")
    return ap.parse_args()


def main():
    args = parse_args()
    t0 = time.time()
    rng = random.Random(args.seed)
    need = args.train + args.valid + args.test

    # ---- lexicon, Brown's counts, compounds, names: no randomness --------
    N, V, A, ndata, adata = build_lexicon(args.npm)
    vobj, adjn, brown, vobjn, nadj = brown_counts(args.npm, N, V, A)
    found = wordnet_compounds(N, ndata, read_index("noun"))
    compounds = noun_compounds(found, *brown_compound_counts(args.npm, N, found))
    log("noun compounds: %d in WordNet, %d in Brown, for %d heads"
        % (len(found), sum(len(m) for _, m, _ in compounds.values()), len(compounds)))
    female, male, places = more_names(args.npm)
    log("more names: %d female, %d male, %d places" % (len(female), len(male), len(places)))
    g = Grammar(rng, N, V, A, vobj, adjn, vobjn, nadj, compounds, female + male, places)
    proper = frozenset(g.people + g.places)
    alias = rt_alias(N, V, A)
    log("adjective classes: " + ", ".join("%s %d" % (c, len(g.adj_by_cls[c])) for c in sorted(g.adj_by_cls)))
    log("grammar: %d transitive, %d intransitive verbs, %d adjectives with noun classes"
        % (len(g.vt), len(g.vi), len(g.afit)))
    bid = bilingual_lemmas({(w, "n") for w in N} | {(w, "v") for w in V} | {(w, "adj") for w in A})

    stats = collections.defaultdict(lambda: [0, 0])   # construction -> [generated, kept]
    reasons = collections.Counter()

    # ---- 1. clauses of the grammar, filtered and finished ----------------
    n_simple = max(int(need * args.clause_ratio) + 2000, 3000)
    seen_apt = set()
    items = []
    while len(items) < n_simple:
        it = g.candidate()
        if it is None:
            continue
        it.apt = render([t[0] for t in it.toks]) + "."
        if it.apt in seen_apt:
            continue
        seen_apt.add(it.apt)
        items.append(it)
    log("%d clause candidates" % len(items))
    kept = filter_items(items, bid, args.batch, stats, reasons, alias, frozenset(g.people))
    log("%d clauses kept" % len(kept))
    finalize(kept, rng, proper)

    # ---- 2. "it" sentences -----------------------------------------------
    keep = set().union(*(held_out_main_clauses(p) for p in args.keep_held_out)) if args.keep_held_out else None
    it_train, it_test = it_sentences(g, rng, N, bid, args.batch, stats, reasons,
                                     args.pronoun_test, int(need * 0.05), alias, keep)

    # ---- 3. real sentences ---------------------------------------------------
    real = [] if args.no_real else real_sentences(brown, adata, ndata, args.batch, stats, reasons, alias,
                                                  ding_sentences())

    pairs = [(it.cons, it.eng, it.es) for it in kept]   # (construction, English, Spanish)
    pairs += [("it-pronoun", e, s) for e, s in it_train]
    pairs += [("real", e, s) for e, s in real]

    # ---- 4. everyday phrases (the generator writes their Spanish) ---------
    made = phrases.phrases(rng, int(need * args.phrase_share), g.person_name, NAMES_F + female,
                           courtesy_clauses(kept, proper))
    for cons, e, s in made:
        stats[cons][0] += 1
        stats[cons][1] += 1
    pairs += made
    log("everyday phrases: %d" % len(made))

    # ---- 4b. the core of English (the generator writes the Spanish) ------
    made = core_words.sentences(rng, int(need * args.core_share), g.person_name, NAMES_F + female)
    for cons, e, s in made:
        stats[cons][0] += 1
        stats[cons][1] += 1
    pairs += made
    log("core sentences: %d" % len(made))

    # ---- 4c. the frequent words still rare get sentences of their own ------
    words = frequent_words(args.npm, args.core_words)
    targets = [args.frequent_target if i < args.frequent_words else args.word_target for i in range(len(words))]
    partners = [(e, s) for c, e, s in pairs if c.startswith(("core:stmt", "expression")) and len(e.split()) <= 6]
    made = word_frames.top_up(rng, pairs, words, targets, g.person_name, NAMES_F + female, partners=partners)
    for cons, e, s in made:
        stats[cons][0] += 1
        stats[cons][1] += 1
    pairs += made
    log("word top-up: %d sentences" % len(made))

    # ---- 5. sentences joined from kept clauses, typing -------------------
    held_eng = set(e for e, *_ in it_test)
    pairs += combined(kept, rng, g.person_name, proper, need - len(pairs) + 8000,
                      set(p[1] for p in pairs), held_eng, stats)
    pairs = vary_typing(pairs, rng, proper, held_eng)
    log("%d pairs before split" % len(pairs))

    # ---- 6. split, files, statistics -------------------------------------
    splits = split_pairs(pairs, rng, {"test": args.test, "valid": args.valid, "train": args.train},
                         set(s for _, s, *_ in it_test))
    write_corpus(args.out, splits, it_test)
    text = report(args.seed, time.time() - t0, (N, V, A), g, kept, splits, len(it_test), stats, reasons)
    print(text)
    with open(os.path.join(args.out, "stats.txt"), "w", encoding="utf-8") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
