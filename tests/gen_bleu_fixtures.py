#!/usr/bin/python3
"""Writes tests/fixtures/bleu_cases.json: corpora with NLTK's corpus_bleu (default arguments:
4-gram, uniform weights, no smoothing) for tests/metrics/test_bleu.cpp, an independent reference for
core/metrics/bleu.cpp. Run with Debian's python3 and python3-nltk:  /usr/bin/python3 tests/gen_bleu_fixtures.py
Sentences are given already split into words, so the fixture tests the score, not the split."""
import json
import os
import random
import warnings

import nltk
from nltk.translate.bleu_score import corpus_bleu

# NLTK warns for every order without matches; those cases are intended.
warnings.filterwarnings("ignore", category=UserWarning)


def words(text):
    return text.split()


def case(name, pairs):
    """pairs: [(hypothesis words, reference words)], one reference per hypothesis."""
    hyps = [list(h) for h, _ in pairs]
    refs = [list(r) for _, r in pairs]
    score = corpus_bleu([[r] for r in refs], hyps)
    return {"name": name, "hypotheses": hyps, "references": refs, "bleu": float(score)}


def random_corpus(seed, sentences):
    rng = random.Random(seed)
    vocab = ["the", "cat", "sat", "on", "mat", "a", "dog", "ran", "in", "park", "and", "it", "was", "big", "."]
    pairs = []
    for _ in range(sentences):
        ref = [rng.choice(vocab) for _ in range(rng.randint(1, 15))]
        hyp = []
        for w in ref:   # a noisy copy: keep, drop, replace or insert, so every order has matches
            r = rng.random()
            if r < 0.7:
                hyp.append(w)
            elif r < 0.8:
                continue
            elif r < 0.9:
                hyp.append(rng.choice(vocab))
            else:
                hyp.extend([w, rng.choice(vocab)])
        pairs.append((hyp, ref))
    return pairs


def main():
    cat = words("the cat sat on the mat .")
    cases = [
        case("perfect match", [(cat, cat)]),
        case("partial match", [(words("the cat sat on a mat ."), cat)]),
        case("clipped counts", [(words("the the the the the the the"), words("the cat is on the mat"))]),
        case("brevity penalty", [(words("the cat sat on"), words("the cat sat on the mat today ."))]),
        case("longer than reference", [(words("the cat sat on the mat today and yesterday ."), cat)]),
        case("one token hypothesis", [(["the"], cat)]),
        case("two and three token hypotheses", [(["the", "cat"], cat), (words("on the mat"), cat)]),
        case("no 4-gram match", [(words("the cat sat under the table"), words("the cat sat on the table"))]),
        case("no match at all", [(words("a b c d e"), cat)]),
        case("empty hypothesis", [([], cat)]),
        case("multi-sentence corpus", [
            (words("it is a guide to action which ensures that the military always obeys the commands of the party"),
             words("it is a guide to action that ensures that the military will forever heed party commands")),
            (words("he read the book because he was interested in world history"),
             words("he was interested in world history because he read the book")),
            (words("short one"), words("a short one here")),
        ]),
        case("spanish with accents", [
            (words("¿ Dónde está la estación ?"), words("¿ Dónde está la estación de tren ?")),
            (words("¡ Qué día tan bonito !"), words("¡ Qué día más bonito !")),
            (words("El niño comió pan y leche ."), words("El niño comió pan con leche ."))]),
        case("random corpus of 50 sentences", random_corpus(20240611, 50)),
    ]
    out = {"generator": "tests/gen_bleu_fixtures.py", "nltk": nltk.__version__, "cases": cases}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "bleu_cases.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    for c in cases:
        print(f"{c['bleu']:.12g}  {c['name']}")


if __name__ == "__main__":
    main()
