"""The round trip: a clause is kept only if Apertium's Spanish, translated
back to English, gives the English again.

Spanish drops subject pronouns, Apertium adds or drops articles and writes
"su" for his / her / their / your, so the comparison is made after
normalising those differences away (rt_norm); what they lose (person,
number) the filter checks on the Spanish verb.  A right translation whose
Spanish comes back as another English word ("friend" -> amigo -> "fellow")
passes by a hand-checked synonym table (RT_SYNONYMS), but only where the
Spanish has that very Spanish word."""

import collections
import re

from .apertium import ENG_GEN, run_lines
from .common import TOKEN_RE

RT_MAP = {"he": "it", "she": "it", "her": "his", "their": "his", "its": "his",
          "your": "his", "on": "in", "than": "that", "must": "have to",
          "should": "would have to", "cannot": "can not", "these": "this",
          "those": "that", "an": "a"}
RT_DROP = {"i", "you", "he", "she", "it", "we", "they", "the"}


def rt_norm(s):
    """The tokens of S as the round trip compares them: lower case, "Anna's
    brother" as "the brother of anna", RT_MAP applied, RT_DROP words and the
    final mark dropped."""
    toks = [t.lower() for t in TOKEN_RE.findall(s)]
    out = []
    i = 0
    while i < len(toks):
        if i + 3 < len(toks) and toks[i + 1] == "'" and toks[i + 2] == "s":
            out += ["the", toks[i + 3], "of", toks[i]]
            i += 4
            continue
        out.append(toks[i])
        i += 1
    res = []
    for t in out:
        t = RT_MAP.get(t, t)
        res.extend(x for x in t.split() if x not in RT_DROP)
    if res and res[-1] in (".", "?", "!"):
        res.pop()
    return res


# Correct translations that fail the plain round trip only because
# Apertium's spa-eng picks another English word for the Spanish one
# ("friend" -> amigo -> "fellow", "kitchen" -> cocina -> "cookery", "tell"
# -> decir -> "say").  Each (English lemma, part of speech, Spanish lemma,
# back-translated English lemma) was checked by hand: the Spanish word is a
# right everyday translation of the English one.  The round trip accepts the
# back-translated word (in the same form: plural, past, -ing) in place of
# the English word only where the Spanish has that Spanish lemma.  Wrong
# senses are NOT here and stay rejected: bottle -> bote (boat), coat -> capa
# (layer), plane -> plano (plan), address -> alocución, station -> canal,
# key -> tono, stone -> hueso, baby -> criatura, meet -> cumplir (fulfil),
# sit -> sentir, love -> querer (want: "Quiero el gato" is "I want the
# cat"), work -> obrar, push -> pulsar, reach -> lograr, pretty -> bastante,
# quick/fast -> rápidamente, fine/right/good -> bien ("es bien"), sorry,
# great -> sumo; and pairs right only in some frames: fight -> luchar
# ("luchó la panadería" lacks "contra"), certain -> seguro ("esta área
# segura"), high -> alto (Apertium does not make it agree: "La sala era
# alto"), pants (a plural taken as singular: "Where is the pants").
RT_SYNONYMS = [
    # verbs
    ("get", "v", "coger", "take"), ("make", "v", "hacer", "do"),
    ("tell", "v", "decir", "say"), ("talk", "v", "hablar", "speak"),
    ("wait", "v", "esperar", "expect"), ("hope", "v", "esperar", "expect"),
    ("start", "v", "empezar", "begin"), ("watch", "v", "mirar", "look"),
    ("wear", "v", "llevar", "spend"), ("carry", "v", "llevar", "spend"),
    ("pick", "v", "elegir", "choose"), ("catch", "v", "coger", "take"),
    ("ride", "v", "montar", "mount"), ("lead", "v", "dirigir", "direct"),
    ("allow", "v", "dejar", "leave"), ("quit", "v", "dejar", "leave"),
    ("pass", "v", "pasar", "spend"), ("happen", "v", "pasar", "spend"),
    ("fear", "v", "temer", "dread"),
    ("bother", "v", "molestar", "annoy"), ("lay", "v", "poner", "put"),
    ("settle", "v", "resolver", "resolve"), ("seem", "v", "parecer", "look"),
    ("support", "v", "apoyar", "lean"), ("notice", "v", "notar", "note"),
    ("pretend", "v", "fingir", "feign"), ("try", "v", "probar", "test"),
    ("test", "v", "probar", "try"), ("prove", "v", "probar", "try"),
    ("feel", "v", "sentir", "seat"), ("wake", "v", "despertar", "awake"),
    ("dream", "v", "soñar", "sleep"), ("deliver", "v", "entregar", "hand"),
    ("introduce", "v", "presentar", "present"), ("grant", "v", "conceder", "concede"),
    ("manage", "v", "dirigir", "direct"), ("knock", "v", "golpear", "strike"),
    # nouns
    ("home", "n", "casa", "house"), ("town", "n", "ciudad", "city"),
    ("building", "n", "edificio", "edifice"), ("story", "n", "historia", "history"),
    ("bathroom", "n", "baño", "bath"), ("wife", "n", "mujer", "woman"),
    ("kid", "n", "niño", "boy"), ("child", "n", "niño", "boy"),
    ("kitchen", "n", "cocina", "cookery"), ("answer", "n", "respuesta", "response"),
    ("advice", "n", "consejo", "council"), ("friend", "n", "amigo", "fellow"),
    ("food", "n", "comida", "lunch"),
    ("meal", "n", "comida", "lunch"), ("cab", "n", "taxi", "taxi"),
    ("meat", "n", "carne", "flesh"), ("grass", "n", "hierba", "herb"),
    ("bench", "n", "banco", "bank"), ("sky", "n", "cielo", "heaven"),
    ("wardrobe", "n", "armario", "cupboard"), ("cabinet", "n", "armario", "cupboard"),
    ("booth", "n", "cabina", "cabin"), ("toilet", "n", "lavabo", "basin"),
    ("ground", "n", "tierra", "earth"), ("crib", "n", "cuna", "cradle"),
    ("neck", "n", "cuello", "collar"), ("officer", "n", "agente", "agent"),
    ("fun", "n", "diversión", "entertainment"), ("suitcase", "n", "maleta", "case"),
    ("contract", "n", "contrato", "agreement"), ("phone", "n", "teléfono", "telephone"),
    ("customer", "n", "cliente", "client"), ("auto", "n", "coche", "car"),
    ("blame", "n", "culpa", "fault"), ("bucket", "n", "cubo", "cube"),
    ("bride", "n", "novia", "girlfriend"), ("mankind", "n", "humanidad", "humanity"),
    ("backpack", "n", "mochila", "rucksack"), ("ticket", "n", "entrada", "entrance"),
    ("airplane", "n", "avión", "aeroplane"), ("cattle", "n", "ganado", "livestock"),
    ("clothing", "n", "ropa", "clothes"), ("teacher", "n", "profesor", "professor"),
    ("target", "n", "objetivo", "aim"), ("watch", "n", "reloj", "clock"),
    ("store", "n", "tienda", "tent"), ("shop", "n", "tienda", "tent"),
    ("cousin", "n", "primo", "prime"), ("jail", "n", "prisión", "prison"),
    ("match", "n", "partido", "party"), ("son", "n", "hijo", "child"),
    ("language", "n", "lengua", "tongue"), ("roof", "n", "techo", "ceiling"),
    ("plate", "n", "plato", "dish"), ("gate", "n", "puerta", "door"),
    ("mail", "n", "correo", "post"), ("wire", "n", "cable", "cable"),
    ("lab", "n", "laboratorio", "laboratory"), ("closet", "n", "armario", "cupboard"),
    ("doll", "n", "muñeca", "wrist"), ("trap", "n", "trampa", "cheat"),
    ("channel", "n", "canal", "canal"), ("pie", "n", "pastel", "cake"),
    # adjectives
    ("huge", "adj", "enorme", "enormous"), ("strange", "adj", "extraño", "odd"),
    ("weird", "adj", "extraño", "odd"), ("quiet", "adj", "tranquilo", "calm"),
    ("fair", "adj", "justo", "just"), ("sick", "adj", "enfermo", "ailing"),
    ("nice", "adj", "bueno", "good"), ("cool", "adj", "fresco", "fresh"),
    ("large", "adj", "grande", "big"), ("entire", "adj", "entero", "whole"),
    ("glad", "adj", "feliz", "happy"), ("safe", "adj", "seguro", "sure"),
    ("mad", "adj", "loco", "crazy"),
    ("smart", "adj", "listo", "ready"), ("tough", "adj", "duro", "hard"),
    ("dirty", "adj", "sucio", "soiled"), ("awful", "adj", "terrible", "terrible"),
    ("honest", "adj", "sincero", "sincere"),
    ("sacred", "adj", "sagrado", "holy"), ("clever", "adj", "listo", "ready"),
    ("grateful", "adj", "agradecido", "thankful"), ("rude", "adj", "grosero", "earthy"),
    ("proper", "adj", "apropiado", "appropriate"), ("plain", "adj", "sencillo", "simple"),
    ("false", "adj", "falso", "dud"), ("ill", "adj", "enfermo", "ailing"),
    ("precious", "adj", "precioso", "lovely"), ("aware", "adj", "consciente", "conscious"),
    ("bright", "adj", "brillante", "brilliant"),
    # Apertium's spa-eng turns "trabajo" into "work", so "job" never came back
    ("job", "n", "trabajo", "work"),
    # the everyday senses (apertium.EVERYDAY_SENSES) and questions for a
    # value ("What is your address?") come back as another word
    ("station", "n", "estación", "season"), ("plane", "n", "avión", "aeroplane"),
    ("address", "n", "dirección", "direction"),
]


def rt_alias(N, V, A):
    """{(English form, back-translated form): {Spanish lemmas}} for the
    lexicon words of RT_SYNONYMS: base with base, plural with plural, past
    with past, -s with -s, -ing with -ing (forms of the back word from
    Apertium's English generator)."""
    rows = [r for r in RT_SYNONYMS if r[0] in {"n": N, "v": V, "adj": A}[r[1]]]
    queries = []
    for en, pos, es, back in rows:
        if pos == "n":
            queries += ["^%s<n><pl>$" % back]
        elif pos == "v":
            queries += ["^%s<vblex><%s>$" % (back, t) for t in ("past", "pri><p3><sg", "ger", "pp")]
    gen = dict(zip(queries, run_lines(["lt-proc", "-g", ENG_GEN], queries))) if queries else {}
    alias = collections.defaultdict(set)
    for en, pos, es, back in rows:
        pairs = [(en, back)]
        if pos == "n":
            pairs.append((N[en]["pl"], gen["^%s<n><pl>$" % back]))
        elif pos == "v":
            d = V[en]
            bf = [gen["^%s<vblex><%s>$" % (back, t)] for t in ("past", "pri><p3><sg", "ger", "pp")]
            pairs += [(d["past"], bf[0]), (d["past"], bf[3]), (d["s3"], bf[1]), (d["ger"], bf[2])]
        for a, b in pairs:
            if a != b and re.match(r"^[a-z]+$", b):
                alias[(a, b)].add(es)
    return dict(alias)


def rt_compare(eng, back, alias):
    """None if the back-translation does not match the English (rt_norm);
    else the set of Spanish lemma sets the match relies on: empty for an
    exact match; for a word that came back as its synonym (ALIAS, from
    rt_alias), the Spanish lemmas of which one must be in the Spanish."""
    a, b = rt_norm(eng), rt_norm(back)
    if a == b:
        return set()
    if len(a) != len(b):
        return None
    need = set()
    for x, y in zip(a, b):
        if x != y:
            es = alias.get((x, y))
            if not es:
                return None
            need.add(frozenset(es))
    return need
