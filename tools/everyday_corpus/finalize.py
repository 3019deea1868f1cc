"""The surface of kept clauses: the English as it is typed and the Spanish
fixes Apertium needs.

Apertium translates a declarative form of each clause; here questions get
their English word order and "¿…?", imperatives their Spanish imperative
(or the subjunctive after "No") from Apertium's generator and "please",
negations and pronouns their contractions ("don't", "I'm"), and the Spanish
the forms Apertium gets wrong: estar for places and states ("está en el
coche"), "Cuál es" for a value ("¿Cuál es tu nombre?"), "más grande de la
ciudad", and "Me gustaría" for "would like"."""

import re

from .apertium import SPA_GEN, run_lines
from .grammar import render
from .names import es_lower_first, lower_first

# Spanish ser -> estar (locations and states: "está en casa",
# "estaba cansado").
SER_ESTAR = {"es": "está", "son": "están", "soy": "estoy", "eres": "estás",
             "somos": "estamos", "era": "estaba", "eran": "estaban",
             "éramos": "estábamos", "eras": "estabas", "fue": "estuvo",
             "fueron": "estuvieron", "fui": "estuve", "fuiste": "estuviste",
             "fuimos": "estuvimos", "será": "estará", "serán": "estarán",
             "seré": "estaré", "serás": "estarás", "seremos": "estaremos"}


def fix_estar(es):
    """The first form of ser in ES as the same form of estar ("El bolso es
    en el coche." -> "El bolso está en el coche."): Apertium writes ser."""
    words = es.split(" ")
    for i, w in enumerate(words):
        core = w.strip(".,?!¿¡").lower()
        if core in SER_ESTAR:
            rep = SER_ESTAR[core]
            if w.strip(".,?!¿¡")[:1].isupper():
                rep = rep[0].upper() + rep[1:]
            words[i] = w.replace(w.strip(".,?!¿¡"), rep)
            break
    return " ".join(words)


def cual_question(es, past, plural):
    """"Qué es tu nombre." -> "Cuál es tu nombre." (plural: "Cuáles son",
    past: "Cuál era" / "Cuáles eran"); None if ES does not start with
    Apertium's "Qué" + a form of ser."""
    m = re.match(r"(?:¿)?Qué (es|son|era|eran|fue|fueron) ", es)
    if not m:
        return None
    verb = {(False, False): "Cuál es", (False, True): "Cuáles son",
            (True, False): "Cuál era", (True, True): "Cuáles eran"}[(past, plural)]
    return verb + " " + es[m.end():]


CONTR = [("do not", "don't"), ("does not", "doesn't"), ("did not", "didn't"),
         ("is not", "isn't"), ("are not", "aren't"), ("was not", "wasn't"),
         ("were not", "weren't"), ("can not", "can't"), ("cannot", "can't"),
         ("will not", "won't"), ("must not", "mustn't"),
         ("should not", "shouldn't")]
PRON_CONTR = [("I am", "I'm"), ("you are", "you're"), ("he is", "he's"),
              ("she is", "she's"), ("it is", "it's"), ("we are", "we're"),
              ("they are", "they're"), ("that is", "that's"),
              ("there is", "there's"), ("I will", "I'll"),
              ("you will", "you'll"), ("we will", "we'll")]


def contract_pron(s, rng, p=0.5):
    """"I am" -> "I'm", "it is" -> "it's", ... (the first one in the
    sentence, with probability p), as people type."""
    if rng.random() > p:
        return s
    for a, b in PRON_CONTR:
        m = re.search(r"\b%s\b" % a, s, re.I)
        if m:
            rep = b if m.group(0)[0] == a[0] else b[0].upper() + b[1:]
            return s[:m.start()] + rep + s[m.end():]
    return s


def contract(s, rng, p=0.8):
    """"do not" -> "don't", "is not" -> "isn't", ... (the first one in the
    sentence, with probability p): negation is mostly typed contracted, and
    Apertium translates the expanded form."""
    if rng.random() > p:
        return s
    for a, b in CONTR:
        pat = re.compile(r"\b%s\b" % a, re.I)
        m = pat.search(s)
        if m:
            rep = b if m.group(0)[0].islower() else b[0].upper() + b[1:]
            s = s[:m.start()] + rep + s[m.end():]
            break
    return s


def finalize(kept, rng, names):
    """Write the English and Spanish of each KEPT clause (it.eng, it.es):
    questions, imperatives, "please", contractions, and the Spanish fixes of
    it.fix.  A clause whose Spanish cannot be built is dropped from KEPT.
    NAMES: the names and places that keep their capital letter."""
    # imperative forms from the Spanish generator
    queries = []
    for it in kept:
        if it.q == "imp":
            idx = 1 if it.neg else 0
            _, an = it.ana[idx]
            lem = None
            for al, tags in an:
                if tags and tags[0] == "vblex" and "pri" in tags and "p2" in tags:
                    lem = al
                    break
            it.extra["lem"] = lem
            if lem:
                queries.append("^%s<vblex><%s><p2><sg>$" % (lem, "prs" if it.neg else "imp"))
    forms = dict(zip(queries, run_lines(["lt-proc", "-g", SPA_GEN], queries))) if queries else {}
    out = []
    for it in kept:
        es = it.es
        words = [t[0] for t in it.toks]
        if "estar" in it.fix:
            es = fix_estar(es)
        if "cual" in it.fix:
            es = cual_question(es, *it.extra["cual"])
            if es is None:
                continue
        if "superlative" in it.fix:
            es = re.sub(r"(más \w+) en el ", r"\1 del ", es)
            es = re.sub(r"(más \w+) en (la|los|las) ", r"\1 de \2 ", es)
        if "would like" in it.fix:
            pr = it.extra["wl"]
            rep = {"I": "Me gustaría", "we": "Nos gustaría"}[pr]
            es2 = re.sub(r"^(Quiero|Queremos)\b", rep, es)
            if es2 == es:
                continue
            es = es2
            words = [("would like" if w == "want" else w) for w in words]
        if it.q == "imp":
            lem = it.extra.get("lem")
            if not lem:
                continue
            q = "^%s<vblex><%s><p2><sg>$" % (lem, "prs" if it.neg else "imp")
            f = forms.get(q, "#")
            if "#" in f or not f:
                continue
            orig = es.split(" ")[1 if it.neg else 0].lower()
            if it.neg:
                if not f.endswith("s"):
                    continue
            elif f != orig[:-1] and f not in ("di", "haz", "ve", "pon", "sal", "ten", "ven"):
                continue
            sw = es.split(" ")
            vi = 1 if it.neg else 0
            if it.neg and sw[0] != "No":
                continue
            sw[vi] = f if vi else f[0].upper() + f[1:]
            es = " ".join(sw)
            eng = render(words[1:])   # without "you"
            please = it.extra["please"]
            if please == "pre" and not it.neg:
                eng = "Please " + lower_first(eng, names)
                es = "Por favor, " + es_lower_first(es, names)
            if please == "post":
                eng = eng + ", please"
                es = es[:-1] + ", por favor."
            if it.extra["bang"] and please is None:
                eng, es = eng + "!", "¡" + es[:-1] + "!"
            else:
                eng += "."
                if not es.endswith("."):
                    es += "."
            it.cons = "imperative+please" if please else "imperative"
        elif it.q == "yn":
            eng = render(it.extra["eng"]) + "?"
            es = "¿" + es[:-1] + "?"
        elif it.q == "wh":
            eng = render(it.extra["eng"]) + "?"
            body = es[:-1]
            es = "¿" + body[:1].upper() + body[1:] + "?"
        else:
            eng = render(words) + "."
        if it.neg:
            eng = contract(eng, rng)
        if it.q is None:
            eng = contract_pron(eng, rng)
        it.eng, it.es = eng, es
        out.append(it)
    kept[:] = out
