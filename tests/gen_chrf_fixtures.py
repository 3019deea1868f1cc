#!/usr/bin/python3
"""Writes tests/fixtures/chrf_cases.json: corpora with their corpus chrF for tests/metrics/test_chrf.cpp, an
independent reference for core/metrics/chrf.cpp. Python's standard library only (sacrebleu is not installable
here); written from sacreBLEU 2.x's definition of CHRF() with its defaults (chrF2):
  - character n-grams, n = 1..6, of each sentence with every whitespace character removed
    ("".join(s.split())), counted over Python str characters (code points); no word n-grams;
  - per sentence and order: hyp = hypothesis n-grams (0 when the reference has none of that order),
    ref = reference n-grams, match = sum over n-grams of min(hyp count, ref count);
  - summed over the corpus; P and R averaged over the orders with hyp > 0 and ref > 0
    (eps_smoothing=False), chrF = 100 (1 + beta^2) P R / (beta^2 P + R), beta = 2; 0 if P + R = 0.
Run:  /usr/bin/python3 tests/gen_chrf_fixtures.py"""
import json
import os
import random

CHAR_ORDER = 6
BETA = 2


def char_ngrams(sentence, n):
    chars = "".join(sentence.split())
    grams = {}
    for start in range(len(chars) - n + 1):
        gram = chars[start:start + n]
        grams[gram] = grams.get(gram, 0) + 1
    return grams


def sentence_statistics(hyp, ref):
    """[(hyp, ref, match)] for n = 1..CHAR_ORDER."""
    stats = []
    for n in range(1, CHAR_ORDER + 1):
        h, r = char_ngrams(hyp, n), char_ngrams(ref, n)
        match = sum(min(count, r[g]) for g, count in h.items() if g in r)
        stats.append((sum(h.values()) if r else 0, sum(r.values()), match))
    return stats


def corpus_chrf(hyps, refs):
    assert len(hyps) == len(refs)
    totals = [[0, 0, 0] for _ in range(CHAR_ORDER)]
    for hyp, ref in zip(hyps, refs):
        for order, stat in enumerate(sentence_statistics(hyp, ref)):
            for k in range(3):
                totals[order][k] += stat[k]
    precisions = [m / h for h, r, m in totals if h > 0 and r > 0]
    recalls = [m / r for h, r, m in totals if h > 0 and r > 0]
    if not precisions:
        return 0.0, totals
    p = sum(precisions) / len(precisions)
    r = sum(recalls) / len(recalls)
    if p + r == 0:
        return 0.0, totals
    b2 = BETA * BETA
    return 100 * ((1 + b2) * p * r / (b2 * p + r)), totals


def case(name, pairs):
    hyps = [h for h, _ in pairs]
    refs = [r for _, r in pairs]
    score, totals = corpus_chrf(hyps, refs)
    return {"name": name, "hypotheses": hyps, "references": refs, "chrf": score,
            "hyp": [t[0] for t in totals], "ref": [t[1] for t in totals], "match": [t[2] for t in totals]}


def noisy(rng, sentence):
    """A copy with character edits (keep, drop, replace, duplicate) and the odd word swap."""
    alphabet = "abcdeéfghijklmnñopqrstuvwxyzáíóú ,.¿?"
    out = []
    for ch in sentence:
        x = rng.random()
        if x < 0.85:
            out.append(ch)
        elif x < 0.9:
            continue
        elif x < 0.96:
            out.append(rng.choice(alphabet))
        else:
            out.append(ch + ch)
    words = "".join(out).split(" ")
    if len(words) > 3 and rng.random() < 0.3:
        i = rng.randrange(len(words) - 1)
        words[i], words[i + 1] = words[i + 1], words[i]
    return " ".join(words)


def dev_set_cases():
    """Noisy copies of the everyday dev set's references (its Spanish side), fixed in the fixture."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "assets", "corpus", "everyday", "dev.tsv"), encoding="utf-8") as f:
        refs = [line.rstrip("\n").split("\t")[1] for line in f if line.strip()][:60]
    rng = random.Random(20261125)
    return [(noisy(rng, r), r) for r in refs]


def main():
    cat = "El gato está durmiendo en el sofá."
    cases = [
        case("identical", [(cat, cat)]),
        # The example of sacreBLEU's and Hugging Face's chrF documentation, which gives 61.576379378113785.
        case("documented example", [("The relationship between Obama and Netanyahu is not exactly friendly.",
                                     "The ties between Obama and Netanyahu are not particularly friendly.")]),
        case("disjoint", [("xyz", "abc")]),
        case("empty hypothesis", [("", cat)]),
        case("empty reference", [(cat, "")]),
        case("both empty", [("", "")]),
        case("whitespace only differs", [("El  gato\testá durmiendo en el sofá .", cat)]),
        case("partial match", [("El gato duerme en el sofá.", cat)]),
        case("repeated n-grams are clipped", [("la la la la la", "la casa")]),
        case("reference shorter than 6 characters", [("¡Hola!", "Hola"), ("Sí, claro.", "Sí.")]),
        case("hypothesis shorter than 6 characters", [("No.", "No lo sé."), ("Ven", "¡Ven aquí!")]),
        case("case matters", [("EL GATO", "el gato")]),
        case("unicode whitespace is removed", [("El\u00a0gato\u3000duerme\u2009ya", "El gato duerme ya"),
                                               ("fin\u2028de\x1clínea", "fin de línea")]),
        case("characters outside the BMP", [("Hola 😀 mundo 🌍", "Hola 😀 mundo"), ("𝔘𝔫𝔦", "𝔘𝔫𝔦𝔠𝔬𝔡𝔢")]),
        case("the it pair", [
            ("El animal no cruzó la calle porque era demasiado cansado.",
             "El animal no cruzó la calle porque estaba demasiado cansado."),
            ("El animal no cruzó la calle porque era demasiado ancho.",
             "El animal no cruzó la calle porque era demasiado ancha.")]),
        case("multi-sentence corpus", [
            ("¿Dónde está la estación?", "¿Dónde está la estación de tren?"),
            ("Mi amigo vive a Madrid.", "Mi amigo vive en Madrid."),
            ("Hoy hace mucho frío.", "Hoy hace mucho frío."),
            ("Tengo dos hermanos y una hermana", "Tengo dos hermanos y una hermana."),
            ("", "No importa."),
        ]),
        case("noisy copies of 60 dev-set references", dev_set_cases()),
    ]
    out = {"generator": "tests/gen_chrf_fixtures.py", "definition": "sacreBLEU 2.x CHRF() defaults (chrF2)",
           "cases": cases}
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "chrf_cases.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, ensure_ascii=False, indent=1)
        f.write("\n")
    for c in cases:
        print(f"{c['chrf']:.12g}  {c['name']}")


if __name__ == "__main__":
    main()
