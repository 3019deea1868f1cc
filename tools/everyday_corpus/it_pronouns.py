"""The "it" sentences: "The X didn't VERB the Y because it was too ADJ.",
with ADJ fitting only X or only Y, so that a model must resolve "it" (and
he / she / they) to write the Spanish adjective's gender.

X (animals and people) is drawn from the lexicon; Y and the adjectives are
listed here, because the generator writes the Spanish copula (estaba / era)
and the adjective's gender and number itself: Apertium gives "porque era
demasiado ancho" where "calle" needs "ancha".  Only the main clause ("The
X did not VERB the Y.") goes through Apertium and the filter.  Every
sentence of some (X, VERB, Y) triples is held out for pronoun_test.tsv."""

import collections
import re

from .apertium import noun_info
from .common import TOKEN_RE, log
from .filter import filter_items
from .grammar import Item, tk
from .names import NAMES

# adjective: (Spanish m.sg, f.sg, m.pl, f.pl, copula 'estar'/'ser')
IT_ADJ = {
    "tired": ("cansado", "cansada", "cansados", "cansadas", "estar"),
    "weak": ("débil", "débil", "débiles", "débiles", "estar"),
    "scared": ("asustado", "asustada", "asustados", "asustadas", "estar"),
    "sick": ("enfermo", "enferma", "enfermos", "enfermas", "estar"),
    "lazy": ("perezoso", "perezosa", "perezosos", "perezosas", "ser"),
    "slow": ("lento", "lenta", "lentos", "lentas", "ser"),
    "busy": ("ocupado", "ocupada", "ocupados", "ocupadas", "estar"),
    "full": ("lleno", "llena", "llenos", "llenas", "estar"),
    "wide": ("ancho", "ancha", "anchos", "anchas", "ser"),
    "long": ("largo", "larga", "largos", "largas", "ser"),
    "narrow": ("estrecho", "estrecha", "estrechos", "estrechas", "ser"),
    "high": ("alto", "alta", "altos", "altas", "ser"),
    "heavy": ("pesado", "pesada", "pesados", "pesadas", "ser"),
    "big": ("grande", "grande", "grandes", "grandes", "ser"),
    "deep": ("profundo", "profunda", "profundos", "profundas", "ser"),
    "dangerous": ("peligroso", "peligrosa", "peligrosos", "peligrosas", "ser"),
    "expensive": ("caro", "cara", "caros", "caras", "ser"),
    "hot": ("caliente", "caliente", "calientes", "calientes", "estar"),
    "cold": ("frío", "fría", "fríos", "frías", "estar"),
    "dark": ("oscuro", "oscura", "oscuros", "oscuras", "estar"),
    "difficult": ("difícil", "difícil", "difíciles", "difíciles", "ser"),
    "boring": ("aburrido", "aburrida", "aburridos", "aburridas", "ser"),
    "hard": ("duro", "dura", "duros", "duras", "estar"),
    "sweet": ("dulce", "dulce", "dulces", "dulces", "ser"),
    "dirty": ("sucio", "sucia", "sucios", "sucias", "estar"),
    "small": ("pequeño", "pequeña", "pequeños", "pequeñas", "ser"),
    "old": ("viejo", "vieja", "viejos", "viejas", "ser"),
    # a wider set: more states of the one who acts, more properties of the thing
    "nervous": ("nervioso", "nerviosa", "nerviosos", "nerviosas", "estar"),
    "angry": ("enfadado", "enfadada", "enfadados", "enfadadas", "estar"),
    "distracted": ("distraído", "distraída", "distraídos", "distraídas", "estar"),
    "young": ("joven", "joven", "jóvenes", "jóvenes", "ser"),
    "shy": ("tímido", "tímida", "tímidos", "tímidas", "ser"),
    "clumsy": ("torpe", "torpe", "torpes", "torpes", "ser"),
    "wet": ("mojado", "mojada", "mojados", "mojadas", "estar"),
    "broken": ("roto", "rota", "rotos", "rotas", "estar"),
    "steep": ("empinado", "empinada", "empinados", "empinadas", "ser"),
    "spicy": ("picante", "picante", "picantes", "picantes", "ser"),
    "salty": ("salado", "salada", "salados", "saladas", "estar"),
    "thick": ("grueso", "gruesa", "gruesos", "gruesas", "ser"),
    "complicated": ("complicado", "complicada", "complicados", "complicadas", "ser"),
    "crowded": ("lleno", "llena", "llenos", "llenas", "estar"),
    "quiet": ("tranquilo", "tranquila", "tranquilos", "tranquilas", "estar"),
    "loud": ("ruidoso", "ruidosa", "ruidosos", "ruidosas", "ser"),
}
# verb -> (X kinds, [(Y noun, adjectives fitting only Y)],
#          adjectives fitting only X)
IT_FRAMES = {
    "cross": (("animal", "person"),
              [("street", ("wide", "long", "dangerous")),
               ("road", ("wide", "long", "dangerous")),
               ("river", ("wide", "deep", "dangerous", "cold")),
               ("bridge", ("long", "narrow", "dangerous", "old")),
               ("square", ("big", "dark")), ("field", ("big", "wide"))],
              ("tired", "weak", "scared", "slow", "sick", "lazy")),
    "climb": (("animal", "person"),
              [("tree", ("high", "big")), ("wall", ("high", "dirty")),
               ("mountain", ("high", "dangerous")),
               ("hill", ("high", "big"))],
              ("tired", "weak", "scared", "lazy", "sick")),
    "carry": (("animal", "person"),
              [("box", ("heavy", "big")), ("bag", ("heavy", "big", "full")),
               ("table", ("heavy", "big")), ("chair", ("heavy", "big")),
               ("suitcase", ("heavy", "big", "full"))],
              ("tired", "weak", "sick", "lazy", "busy")),
    "eat": (("animal", "person"),
            [("cake", ("sweet", "big", "hard", "old")),
             ("soup", ("hot", "cold")), ("bread", ("hard", "old")),
             ("meat", ("hot", "cold", "hard")), ("apple", ("hard", "big")),
             ("fish", ("salty", "spicy", "old", "big")), ("sandwich", ("big", "hard", "spicy")),
             ("pizza", ("spicy", "salty", "cold", "hot"))],
            ("full", "sick", "tired", "scared", "nervous", "distracted")),
    "drink": (("animal", "person"),
              [("water", ("cold", "hot", "dirty")),
               ("milk", ("cold", "hot", "old")),
               ("coffee", ("hot", "cold")), ("tea", ("hot", "cold", "sweet")),
               ("soup", ("hot", "cold"))],
              ("full", "sick", "tired")),
    "read": (("person",),
             [("book", ("long", "boring", "difficult")),
              ("letter", ("long", "boring")),
              ("newspaper", ("boring", "old")),
              ("story", ("long", "boring", "difficult"))],
             ("tired", "busy", "sick", "lazy")),
    "buy": (("person",),
            [("car", ("expensive", "old", "big", "small", "dirty")),
             ("house", ("expensive", "old", "big", "small", "dark")),
             ("dress", ("expensive", "long", "big", "small")),
             ("bicycle", ("expensive", "old", "small")),
             ("computer", ("expensive", "old", "slow"))],
            ("busy", "tired", "sick")),
    "open": (("person",),
             [("door", ("heavy", "big")), ("window", ("high", "dirty")),
              ("box", ("heavy", "big"))],
             ("tired", "weak", "busy", "scared", "lazy")),
    "wash": (("person",),
             [("car", ("big", "dirty")), ("shirt", ("dirty", "old")),
              ("plate", ("dirty", "big"))],
             ("tired", "busy", "lazy", "sick")),
    "finish": (("person",),
               [("soup", ("hot", "cold", "spicy", "salty")), ("book", ("long", "boring", "thick")),
                ("cake", ("big", "sweet")), ("exam", ("long", "difficult", "complicated"))],
               ("tired", "busy", "sick", "full", "distracted")),
    "lift": (("person",),
             [("box", ("heavy", "big")), ("suitcase", ("heavy", "big", "full")),
              ("stone", ("heavy", "big")), ("table", ("heavy", "big"))],
             ("weak", "tired", "sick", "young", "lazy")),
    "push": (("person", "animal"),
             [("car", ("heavy", "big", "broken")), ("door", ("heavy", "big", "broken")),
              ("cart", ("heavy", "full"))],
             ("weak", "tired", "sick", "young", "scared")),
    "visit": (("person",),
              [("museum", ("expensive", "boring", "crowded")), ("city", ("expensive", "dangerous", "loud")),
               ("castle", ("old", "expensive", "crowded")), ("market", ("crowded", "loud", "dirty"))],
              ("tired", "busy", "sick", "lazy", "shy")),
    "follow": (("person", "animal"),
               [("path", ("narrow", "dark", "steep", "long")), ("road", ("long", "dangerous", "dark")),
                ("river", ("long", "deep"))],
               ("tired", "scared", "slow", "nervous", "distracted")),
    "touch": (("person", "animal"),
              [("plate", ("hot", "dirty", "wet")), ("wall", ("dirty", "wet", "cold")),
               ("fence", ("high", "wet", "dirty"))],
              ("scared", "shy", "nervous", "angry")),
    "answer": (("person",),
               [("question", ("difficult", "complicated", "long")), ("letter", ("long", "complicated"))],
               ("tired", "nervous", "busy", "shy", "angry")),
}


def it_sentences(g, rng, N, bid, batch, stats, reasons, n_test, n_train_cap, alias, keep_held_out=None):
    """'The X didn't VERB the Y because it was too ADJ.' sentences of the
    grammar G's animals and people: (training pairs, at most N_TRAIN_CAP
    but at least 1000, held-out pronoun_test rows).  The held-out rows are
    those of N_TEST (X, VERB, Y) triples, the seed example's first, or with
    KEEP_HELD_OUT (main clauses from held_out_main_clauses) exactly the
    triples of those main clauses."""
    animals = sorted(g.bycls["animal"], key=lambda w: (-N[w]["f"], w))[:45]
    people = [w for w in sorted(g.bycls["person"], key=lambda w: (-N[w]["f"], w))[:60]]
    ys = sorted({y for v in IT_FRAMES.values() for y, _ in v[1]})
    info = noun_info(sorted(set(animals + people + ys + ["animal"])))
    animals = ["animal"] + [w for w in animals if w in info and w != "animal"]
    people = [w for w in people if w in info][:40]
    mains = {}
    for v in sorted(IT_FRAMES):
        xk, yl, _ = IT_FRAMES[v]
        xs = (animals if "animal" in xk else []) + (people if "person" in xk else [])
        for x in xs:
            for y, yadj in yl:
                if y not in info:
                    continue
                for xn, yn in (("sg", "sg"), ("pl", "pl"), ("pl", "sg"), ("sg", "pl")):
                    xw = x if xn == "sg" else info[x][1]
                    yw = y if yn == "sg" else info[y][1]
                    apt = "The %s did not %s the %s." % (xw, v, yw)
                    mains[apt] = (x, v, y, xn, yn)
    apts = sorted(mains)
    items = []
    for a in apts:
        it = Item("it-pronoun main clause", [tk(w) for w in a[:-1].split()], "past")
        it.apt = a
        items.append(it)
    log("it: %d main clauses" % len(items))
    kept = filter_items(items, bid, batch, stats, reasons, alias, frozenset(NAMES))
    es_of = {it.apt: it.es for it in kept}
    triples = sorted({mains[a][:3] for a in es_of})
    rng.shuffle(triples)
    seed_t = ("animal", "cross", "street")
    if seed_t in triples:
        triples.remove(seed_t)
        triples.insert(0, seed_t)
    sents = collections.defaultdict(list)
    for a in sorted(es_of):
        x, v, y, xn, yn = mains[a]
        _, yl, xadj = IT_FRAMES[v]
        yadj = dict(yl)[y]
        es_main = es_of[a][:-1]
        # X's gender as Apertium wrote it ("El testigo", "La vaca")
        art = es_main.split(" ")[0].lower()
        xg = {"el": "m", "los": "m", "la": "f", "las": "f"}.get(art)
        if xg is None:
            continue
        for adj in list(xadj) + list(yadj):
            if adj in xadj and adj in yadj:
                continue
            ref_is_x = adj in xadj
            ref, refn = (x, xn) if ref_is_x else (y, yn)
            g_ = xg if ref_is_x else info[ref][0]
            if refn == "pl":
                pron, be = "they", "were"
            elif ref in people:
                pron, be = ("he" if g_ == "m" else "she"), "was"
            else:
                pron, be = "it", "was"
            forms = IT_ADJ[adj]
            form = forms[(0 if g_ == "m" else 1) + (2 if refn == "pl" else 0)]
            cop = {("estar", "sg"): "estaba", ("estar", "pl"): "estaban",
                   ("ser", "sg"): "era", ("ser", "pl"): "eran"}[(forms[4], refn)]
            xw = x if xn == "sg" else info[x][1]
            yw = y if yn == "sg" else info[y][1]
            neg = "didn't" if (rng.random() < 0.85 or (x, v, y) == seed_t) else "did not"
            eng = "The %s %s %s the %s because %s %s too %s." % (xw, neg, v, yw, pron, be, adj)
            es = "%s porque %s demasiado %s." % (es_main, cop, form)
            et = TOKEN_RE.findall(eng)
            st = TOKEN_RE.findall(es)
            bi = et.index("because")
            xi = et.index(xw)
            yi = bi - 1
            row = (eng, es, bi + 1, xi if ref_is_x else yi, yi if ref_is_x else xi,
                   len(st) - 2, g_)
            sents[(x, v, y)].append(row)
    test, train = [], []
    if keep_held_out is not None:
        held = {mains[a][:3] for a in keep_held_out if a in mains}
        log("it: %d of the %d main clauses to keep held out are still made"
            % (sum(a in mains for a in keep_held_out), len(keep_held_out)))
    for t in triples:
        if (t in held) if keep_held_out is not None else len(test) < n_test:
            test.extend(sents[t])
        else:
            train.extend((r[0], r[1]) for r in sents[t])
    rng.shuffle(train)
    train = train[:max(1000, min(20000, n_train_cap))]
    for _ in test:
        stats["it-pronoun (held out)"][0] += 1
        stats["it-pronoun (held out)"][1] += 1
    log("it: %d train, %d held out" % (len(train), len(test)))
    return train, test


def held_out_main_clauses(path):
    """The main clauses ("The animal did not cross the street.") of the
    sentences of a pronoun_test.tsv, as it_sentences makes them, so that a
    new corpus can hold out what an earlier one held out."""
    clauses = set()
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            english = line.split("\t", 1)[0]
            m = re.match(r"(The .+?) because ", english)
            if not m:
                raise SystemExit("%s:%d: not a pronoun test sentence: %r" % (path, number, english))
            clauses.add(m.group(1).replace("didn't", "did not") + ".")
    return clauses
