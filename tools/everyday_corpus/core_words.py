"""The core of everyday English, with Spanish the generator writes itself.

Apertium, the corpus's teacher, translates word by word, and its round-trip
filter throws out most sentences built on the commonest words of English:
"I just arrived." -> "Sólo llegué.", "What are you doing?" -> "Qué eres
haciendo?", "Let's go home." -> "Dejado es va casa.", "Nothing happened." ->
"Nada pasó.".  So the words themselves (just, about, something, anything,
even, already, ever, yet, until, unless, since, both, each, enough, ...) and
the constructions around them (the present perfect, "going to", the past
progressive, fronted time phrases, when / while / as soon as / until /
unless / before / after clauses, relative clauses, indirect questions,
requests, "let's", vocatives, exclamations) were missing from the corpus.

This module is a small synchronous grammar: each draw picks a subject, a verb
phrase, a tense, a polarity, a sentence form and a modifier, and writes the
English and the Spanish from that one draw, so person, number, gender, tense
and mood agree by construction (the subjunctive after "cuando" with a future
main clause, "hasta que", "a menos que", "en cuanto"; "no ... nada"; the
reflexive clitic of "levantarse").  Spanish verb forms come from Apertium's
own Spanish morphological generator (`lt-proc -g eng-spa.autogen.bin`), so
irregular verbs are right; English forms come from ENGLISH_IRREGULAR and the
spelling rules of english_forms.

Conventions, as in the rest of the corpus: "you" is tú, a Spanish subject
pronoun is dropped, questions with a noun subject keep the English order
("¿Tu hermano trabaja aquí?") except after a question word ("¿Dónde trabaja
tu hermano?").

`sentences(rng, count, draw_name, female)` returns COUNT distinct
(construction, English, Spanish) triples, as phrases.phrases does.
"""

import re
import subprocess

SPA_GEN = "/usr/share/apertium/apertium-eng-spa/eng-spa.autogen.bin"

# Persons, as in phrases.py: 1sg, 2sg (tú), 3sg, 1pl, 3pl.
P1S, P2S, P3S, P1P, P3P = range(5)
PERSON_TAGS = ["<p1><sg>", "<p2><sg>", "<p3><sg>", "<p1><pl>", "<p3><pl>"]
REFLEXIVE = ["me", "te", "se", "nos", "se"]
BE_PRES = ["am", "are", "is", "are", "are"]
BE_PAST = ["was", "were", "was", "were", "were"]
HAVE = ["have", "have", "has", "have", "have"]
DO = ["do", "do", "does", "do", "do"]

# ---------------------------------------------------------------------------
# Spanish verb forms: Apertium's generator, asked once per form.


_FORMS = {}   # generator query -> form (None: unknown); filled by prefetch and es_verb


def generate_many(queries):
    """Apertium's Spanish generator on many stream units at once
    ("^comer<vblex><pri><p1><sg>$" -> "como"); None where it does not know
    the form ("#comer")."""
    text = "".join(q + "\n" for q in queries)
    out = subprocess.run(["lt-proc", "-g", SPA_GEN], input=text, capture_output=True,
                         text=True, check=True).stdout.rstrip("\n").split("\n")
    if len(out) != len(queries):
        raise RuntimeError("lt-proc -g returned %d lines for %d queries" % (len(out), len(queries)))
    return [None if o.startswith("#") or not o else o for o in out]


# Apertium files most verbs as <vblex>; these as what they are.
VERB_CLASS = {"haber": "vbhaver", "ser": "vbser", "poder": "vbmod",
              "querer": "vbmod", "soler": "vbmod", "rendirse": "vblex><pron"}
# Verbs the generator lacks or gets wrong, written as a regular verb whose
# forms they share after the stem: mudar (not in Apertium's dictionary) is
# conjugated as nadar; acostar, which Apertium conjugates without its o -> ue
# change (acosto), as costar (cuesto) after an a.
LIKE = {"mudar": ("nadar", "nad", "mud"), "acostar": ("costar", "", "a")}
SPANISH_TENSES = ("pri", "ifi", "pii", "fti", "prs", "cni", "imp")


def _query(lemma, tags):
    return "^%s<%s>%s$" % (lemma, VERB_CLASS.get(lemma, "vblex"), tags)


def prefetch(lemmas):
    """Ask the generator for every form this module uses of LEMMAS in one
    call, so that drawing sentences starts no process per form."""
    lemmas = [LIKE[l][0] if l in LIKE else l for l in lemmas]
    queries = [_query(l, "<%s>%s" % (t, p)) for l in lemmas for t in SPANISH_TENSES for p in PERSON_TAGS]
    queries += [_query(l, t) for l in lemmas for t in ("<inf>", "<ger>", "<pp><m><sg>")]
    queries = [q for q in queries if q not in _FORMS]
    if queries:
        _FORMS.update(zip(queries, generate_many(queries)))


def es_verb(lemma, tags):
    """A Spanish verb form: es_verb("volver", "<prs><p1><sg>") -> "vuelva"."""
    if lemma in LIKE:
        model, old, new = LIKE[lemma]
        form = es_verb(model, tags)
        if not form.startswith(old):
            raise KeyError("%s: %s does not start with %s" % (lemma, form, old))
        return new + form[len(old):]
    q = _query(lemma, tags)
    if q not in _FORMS:
        _FORMS[q] = generate_many([q])[0]
    if _FORMS[q] is None and lemma not in VERB_CLASS:
        # Apertium files some verbs only as pronominal ("disculparse<vblex><pron>")
        pron = "^%sse<vblex><pron>%s$" % (lemma, tags)
        if pron not in _FORMS:
            _FORMS[pron] = generate_many([pron])[0]
        _FORMS[q] = _FORMS[pron]
    if _FORMS[q] is None:
        raise KeyError("Apertium cannot generate %s%s" % (lemma, tags))
    return _FORMS[q]


def es_finite(lemma, tense, person):
    """tense: pri (present), ifi (preterite), pii (imperfect), fti (future),
    prs (present subjunctive), cni (conditional)."""
    return es_verb(lemma, "<%s>%s" % (tense, PERSON_TAGS[person]))


# ---------------------------------------------------------------------------
# English verb forms.

# base: (past, past participle) of the irregular verbs this module uses.
ENGLISH_IRREGULAR = {
    "go": ("went", "gone"), "come": ("came", "come"), "eat": ("ate", "eaten"),
    "drink": ("drank", "drunk"), "see": ("saw", "seen"), "do": ("did", "done"),
    "make": ("made", "made"), "take": ("took", "taken"), "give": ("gave", "given"),
    "get": ("got", "got"), "find": ("found", "found"), "leave": ("left", "left"),
    "buy": ("bought", "bought"), "bring": ("brought", "brought"), "think": ("thought", "thought"),
    "know": ("knew", "known"), "tell": ("told", "told"), "say": ("said", "said"),
    "put": ("put", "put"), "read": ("read", "read"), "write": ("wrote", "written"),
    "sit": ("sat", "sat"), "sleep": ("slept", "slept"), "meet": ("met", "met"),
    "lose": ("lost", "lost"), "forget": ("forgot", "forgotten"), "run": ("ran", "run"),
    "swim": ("swam", "swum"), "sing": ("sang", "sung"), "drive": ("drove", "driven"),
    "fly": ("flew", "flown"), "speak": ("spoke", "spoken"), "break": ("broke", "broken"),
    "wake": ("woke", "woken"), "sell": ("sold", "sold"), "send": ("sent", "sent"),
    "spend": ("spent", "spent"), "pay": ("paid", "paid"), "feel": ("felt", "felt"),
    "keep": ("kept", "kept"), "hear": ("heard", "heard"), "understand": ("understood", "understood"),
    "teach": ("taught", "taught"), "fall": ("fell", "fallen"), "grow": ("grew", "grown"),
    "have": ("had", "had"), "hurt": ("hurt", "hurt"), "cut": ("cut", "cut"),
    "win": ("won", "won"), "begin": ("began", "begun"), "build": ("built", "built"),
    "choose": ("chose", "chosen"), "ride": ("rode", "ridden"), "wear": ("wore", "worn"),
    "show": ("showed", "shown"), "lend": ("lent", "lent"), "steal": ("stole", "stolen"),
    "shoot": ("shot", "shot"), "fight": ("fought", "fought"), "hang": ("hung", "hung"),
    "stand": ("stood", "stood"), "hide": ("hid", "hidden"), "forgive": ("forgave", "forgiven"),
    "bite": ("bit", "bitten"), "throw": ("threw", "thrown"), "shake": ("shook", "shaken"),
    "feed": ("fed", "fed"), "bleed": ("bled", "bled"), "lead": ("led", "led"), "mean": ("meant", "meant"),
    "hold": ("held", "held"), "set": ("set", "set"), "let": ("let", "let"), "quit": ("quit", "quit"),
    "beat": ("beat", "beaten"), "strike": ("struck", "struck"), "swear": ("swore", "sworn"),
    "tear": ("tore", "torn"), "sink": ("sank", "sunk"), "split": ("split", "split"),
    "spread": ("spread", "spread"), "stick": ("stuck", "stuck"), "freeze": ("froze", "frozen"),
    "dig": ("dug", "dug"), "deal": ("dealt", "dealt"), "seek": ("sought", "sought"),
    "ring": ("rang", "rung"), "rise": ("rose", "risen"), "blow": ("blew", "blown"),
    "draw": ("drew", "drawn"), "catch": ("caught", "caught"), "bring": ("brought", "brought"),
    "forbid": ("forbade", "forbidden"), "hurt": ("hurt", "hurt"), "shut": ("shut", "shut"),
}
# Verbs whose last consonant doubles before -ed and -ing (British spelling: travelled).
DOUBLE_FINAL = {"stop", "plan", "shop", "drop", "sit", "run", "swim", "get", "put", "begin",
                "forget", "travel", "chat", "jog", "cut", "hit", "win", "shut", "set", "let", "quit",
                "split", "dig", "rob", "grab", "hug", "nod", "beg", "drag", "trap", "ship", "skip",
                "slip", "step", "wrap", "admit", "regret", "commit", "occur", "prefer", "refer", "rip"}


def english_forms(base):
    """{"base", "s", "past", "pp", "ing"} of a verb; a phrasal verb ("wake
    up", "go to bed") inflects its first word."""
    head, _, rest = base.partition(" ")
    tail = " " + rest if rest else ""
    if head == "have":
        s = "has"
    elif head == "do" or head == "go":
        s = head + "es"
    elif re.search(r"(s|x|z|ch|sh)$", head):
        s = head + "es"
    elif re.search(r"[^aeiou]y$", head):
        s = head[:-1] + "ies"
    else:
        s = head + "s"
    if head in ("lie", "die"):
        ing = head[:-2] + "ying"
    elif head.endswith("e") and not head.endswith(("ee", "ye", "oe")) and head != "be":
        ing = head[:-1] + "ing"
    elif head in DOUBLE_FINAL:
        ing = head + head[-1] + "ing"
    else:
        ing = head + "ing"
    if head in ENGLISH_IRREGULAR:
        past, pp = ENGLISH_IRREGULAR[head]
    elif head.endswith("e"):
        past = pp = head + "d"
    elif re.search(r"[^aeiou]y$", head):
        past = pp = head[:-1] + "ied"
    elif head in DOUBLE_FINAL:
        past = pp = head + head[-1] + "ed"
    else:
        past = pp = head + "ed"
    return {"base": base, "s": s + tail, "past": past + tail, "pp": pp + tail, "ing": ing + tail}


# ---------------------------------------------------------------------------
# Spanish agreement.

def es_plural(word):
    """Plural of a Spanish noun or adjective (the cases this module meets)."""
    if word.endswith(("a", "e", "i", "o", "u", "é", "á", "ó")):
        return word + "s"
    if word.endswith("z"):
        return word[:-1] + "ces"
    accentless = str.maketrans("áéíóú", "aeiou")
    if re.search(r"[áéíóú][nsl]$", word):   # canción -> canciones, inglés -> ingleses
        return word.translate(accentless) + "es"
    return word + "es"


def agree(adj, gender, plural):
    """A Spanish adjective (masculine singular) agreeing with its noun:
    cansado -> cansadas; grande, feliz, genial only change in number;
    español -> española."""
    if gender == "f":
        if adj.endswith("o"):
            adj = adj[:-1] + "a"
        elif re.search(r"(or|ón|án|ín|és|ol)$", adj) and adj not in ("mejor", "peor", "mayor", "menor"):
            accentless = str.maketrans("áéíóú", "aeiou")
            adj = adj[:-2] + adj[-2:].translate(accentless) + "a"
    return es_plural(adj) if plural else adj


def fill_agreement(text, gender, plural):
    """Replace each {adjective} of a Spanish template by its agreeing form."""
    return re.sub(r"\{(\w+)\}", lambda m: agree(m.group(1), gender, plural), text)


def elide(es):
    """Spanish contractions: a el -> al, de el -> del (not before a name
    written El ...)."""
    es = re.sub(r"\b([Aa]) el\b", r"\1l", es)
    return re.sub(r"\b([Dd])e el\b", r"\1el", es)


def finish(en, es, mark="."):
    """Capitalise, add the final mark, and for questions and exclamations the
    Spanish opening mark."""
    en = en[0].upper() + en[1:] + mark
    es = es[0].upper() + es[1:]
    if mark == "?":
        es = "¿" + es + "?"
    elif mark == "!":
        es = "¡" + es + "!"
    else:
        es = es + mark
    return en, elide(es)


# ---------------------------------------------------------------------------
# Verbs and their complements.
#
# Each complement is "English|Spanish"; "" is none.  In the English, {poss}
# is the subject's possessive (my, your, his, her, our, their) and {self} its
# reflexive pronoun (myself, ...); in the Spanish, {adjective} agrees with
# the subject ({solo} -> sola), and a leading "@" marks an object clitic
# (@te), placed before the finite verb or after an infinitive.
# Flags: r reflexive (levantarse), s stative (no progressive), 3 only a third
# person subject (die), w the complements say where (a "where" question drops
# them), n no imperative.  Only ACTIVITIES take the progressive ("We're
# breaking a glass" is not what people say) and only HABITS "used to".


class Verb:
    __slots__ = ("en", "es", "reflexive", "stative", "third_only", "where", "no_imperative",
                 "complements", "forms")

    def __init__(self, en, es, complements, flags=""):
        self.en, self.es = en, es
        self.reflexive, self.stative = "r" in flags, "s" in flags
        self.third_only, self.where = "3" in flags, "w" in flags
        self.no_imperative = "n" in flags or "3" in flags or "s" in flags
        self.complements = [tuple(c.split("|")) if c else ("", "") for c in complements]
        self.forms = english_forms(en)


ACTIVITIES = {"work", "live", "study", "eat", "drink", "cook", "sleep", "wait", "play", "read", "write",
              "clean", "wash", "learn", "teach", "drive", "walk", "run", "swim", "travel", "talk", "think",
              "watch", "listen to", "look for", "do", "make", "help", "dance", "sing", "carry", "cry",
              "laugh", "wear", "fix", "use", "get dressed", "stay", "worry", "feel", "spend", "draw"}
HABITS = {"work", "live", "study", "eat", "drink", "cook", "play", "read", "walk", "run", "swim", "travel",
          "smoke", "go", "sing", "dance", "go out", "wear", "visit", "drive", "get up", "go to bed"}
V = Verb
VERBS = [
    V("work", "trabajar", ["in a bank|en un banco", "at home|en casa", "in a hospital|en un hospital",
                           "from home|desde casa", "for a big company|para una empresa grande",
                           "in an office|en una oficina", "late|hasta tarde", ""], "w"),
    V("live", "vivir", ["in Madrid|en Madrid", "near the station|cerca de la estación",
                        "in a small flat|en un piso pequeño", "next door|al lado", "alone|{solo}",
                        "far away|lejos", "in the city centre|en el centro de la ciudad",
                        "with {poss} parents|con sus padres"], "w"),
    V("study", "estudiar", ["English|inglés", "at the university|en la universidad",
                            "for the exam|para el examen", "medicine|medicina",
                            "in the library|en la biblioteca", "hard|mucho", ""], "w"),
    V("eat", "comer", ["fish|pescado", "an apple|una manzana", "at home|en casa", "too much|demasiado",
                       "in a restaurant|en un restaurante", "a sandwich|un bocadillo", "meat|carne",
                       "outside|fuera", ""], "w"),
    V("drink", "beber", ["water|agua", "a glass of milk|un vaso de leche", "too much coffee|demasiado café",
                         "tea without sugar|té sin azúcar", "orange juice|zumo de naranja"]),
    V("cook", "cocinar", ["for the whole family|para toda la familia", "very well|muy bien", "pasta|pasta",
                          "rice|arroz", ""]),
    V("sleep", "dormir", ["well|bien", "for eight hours|ocho horas", "on the sofa|en el sofá",
                          "in the car|en el coche", "badly|mal", ""], "w"),
    V("wake up", "despertar", ["early|temprano", "at seven|a las siete", "late|tarde", ""], "r"),
    V("get up", "levantar", ["early|temprano", "at six|a las seis", "late|tarde", ""], "r"),
    V("go to bed", "acostar", ["early|temprano", "late|tarde", "at eleven|a las once", ""], "r"),
    V("sit down", "sentar", ["next to the window|junto a la ventana", "on the floor|en el suelo", ""], "r"),
    V("go", "ir", ["to work|al trabajo", "to the beach|a la playa", "to the cinema|al cine",
                   "home|a casa", "to the supermarket|al supermercado", "to the doctor|al médico",
                   "to school|al colegio", "to the gym|al gimnasio", "to bed|a la cama",
                   "to the market|al mercado", "to London|a Londres", "shopping|de compras"]),
    V("go out", "salir", ["with friends|con amigos", "for dinner|a cenar", "for a walk|a dar un paseo", ""]),
    V("come", "venir", ["to the party|a la fiesta", "with us|con nosotros", "here|aquí", "by bus|en autobús",
                        ""]),
    V("come back", "volver", ["home|a casa", "from work|del trabajo", "to Spain|a España", "later|más tarde",
                              "from holiday|de vacaciones", ""]),
    V("go back", "volver", ["to the hotel|al hotel", "to work|al trabajo", "to sleep|a dormir"]),
    V("arrive", "llegar", ["at the station|a la estación", "home|a casa", "late|tarde", "on time|a tiempo",
                           "at the airport|al aeropuerto", "early|temprano", ""]),
    V("get", "llegar", ["home|a casa", "to work|al trabajo", "to the hotel|al hotel"], "n"),
    V("leave", "ir", ["early|temprano", "without saying goodbye|sin despedirse", ""], "r"),
    V("leave", "salir", ["the house|de casa", "the office|de la oficina", "work|del trabajo"]),
    V("stay", "quedar", ["at home|en casa", "in a hotel|en un hotel", "here|aquí", "in bed|en la cama",
                         "with {poss} grandparents|con sus abuelos", "for dinner|a cenar"], "rw"),
    V("wait", "esperar", ["for the bus|el autobús", "outside|fuera", "here|aquí",
                          "for a long time|mucho tiempo", "for you|@te", ""], "w"),
    V("call", "llamar", ["{poss} mother|a su madre", "the doctor|al médico", "a taxi|un taxi",
                         "the police|a la policía", "you|@te", "me|@me", ""]),
    V("help", "ayudar", ["{poss} brother|a su hermano", "the children|a los niños", "at home|en casa",
                         "{poss} neighbours|a sus vecinos", "you|@te", "me|@me", "us|@nos"]),
    V("meet", "quedar", ["{poss} friends|con sus amigos", "some friends|con unos amigos",
                         "{poss} sister for lunch|con su hermana para comer"]),
    V("see", "ver", ["the sea|el mar", "a film|una película", "{poss} grandparents|a sus abuelos",
                     "a doctor|a un médico", "you|@te", "him|@lo"], "s"),
    V("watch", "ver", ["TV|la tele", "a film|una película", "the news|las noticias", "the match|el partido"]),
    V("listen to", "escuchar", ["music|música", "the radio|la radio", "the teacher|al profesor",
                                "the news|las noticias"]),
    V("look for", "buscar", ["{poss} keys|sus llaves", "a new job|un trabajo nuevo", "a flat|un piso",
                             "the bathroom|el baño", "{poss} glasses|sus gafas", "you|@te"]),
    V("find", "encontrar", ["{poss} keys|sus llaves", "a job|trabajo", "a good restaurant|un buen restaurante",
                            "the money|el dinero", "a cheap hotel|un hotel barato"]),
    V("find out", "descubrir", ["the truth|la verdad", "the answer|la respuesta"]),
    V("lose", "perder", ["{poss} phone|su móvil", "the keys|las llaves", "the match|el partido",
                         "{poss} wallet|su cartera", "weight|peso"], "n"),
    V("buy", "comprar", ["a new car|un coche nuevo", "bread|pan", "a present for {poss} mother|un regalo para su madre",
                         "the tickets|las entradas", "a house|una casa", "some apples|unas manzanas",
                         "a camera|una cámara", "new clothes|ropa nueva"]),
    V("sell", "vender", ["the car|el coche", "{poss} house|su casa", "fruit|fruta", "{poss} old bike|su bici vieja"]),
    V("pay", "pagar", ["the bill|la cuenta", "in cash|en efectivo", "by card|con tarjeta", "the rent|el alquiler"]),
    V("open", "abrir", ["the window|la ventana", "the door|la puerta", "a bank account|una cuenta bancaria",
                        "the box|la caja", "the letter|la carta"]),
    V("close", "cerrar", ["the door|la puerta", "the window|la ventana", "the shop|la tienda", "{poss} eyes|los ojos"]),
    V("turn off", "apagar", ["the light|la luz", "the TV|la tele", "the computer|el ordenador", "the radio|la radio"]),
    V("turn on", "encender", ["the light|la luz", "the heating|la calefacción", "the computer|el ordenador"]),
    V("put on", "poner", ["a coat|un abrigo", "a jumper|un jersey", "a hat|un sombrero", "{poss} shoes|los zapatos"], "r"),
    V("take off", "quitar", ["{poss} shoes|los zapatos", "{poss} coat|el abrigo", "{poss} glasses|las gafas"], "r"),
    V("pick up", "recoger", ["the children from school|a los niños del colegio", "the keys|las llaves",
                             "a parcel|un paquete", "{poss} things|sus cosas"]),
    V("give up", "rendirse", [""], "r"),
    V("forget", "olvidar", ["{poss} keys|sus llaves", "the password|la contraseña", "{poss} umbrella|su paraguas",
                            "the tickets|las entradas", "{poss} name|su nombre"], "n"),
    V("remember", "recordar", ["{poss} name|su nombre", "the address|la dirección", "that day|ese día",
                               "the password|la contraseña"], "s"),
    V("know", "conocer", ["the city|la ciudad", "{poss} neighbours|a sus vecinos", "a good restaurant|un buen restaurante",
                          "this song|esta canción"], "sn"),
    V("understand", "entender", ["the question|la pregunta", "the problem|el problema", "the rules|las reglas", ""], "s"),
    V("need", "necesitar", ["help|ayuda", "a new phone|un móvil nuevo", "more time|más tiempo", "money|dinero",
                            "a holiday|unas vacaciones", "a doctor|un médico"], "s"),
    V("want", "querer", ["a coffee|un café", "a new bike|una bici nueva", "more time|más tiempo",
                         "a bigger house|una casa más grande"], "s"),
    V("have", "tener", ["a dog|un perro", "two children|dos hijos", "a lot of work|mucho trabajo",
                        "a big house|una casa grande", "a question|una pregunta", "enough money|suficiente dinero",
                        "a cold|un resfriado", "a meeting|una reunión", "a headache|dolor de cabeza"], "s"),
    V("play", "jugar", ["football|al fútbol", "tennis|al tenis", "cards|a las cartas", "in the garden|en el jardín",
                        "video games|a los videojuegos", "with the children|con los niños"]),
    V("play", "tocar", ["the guitar|la guitarra", "the piano|el piano", "the drums|la batería"]),
    V("read", "leer", ["a book|un libro", "the newspaper|el periódico", "the letter|la carta", "the menu|la carta",
                       "a lot|mucho", ""]),
    V("write", "escribir", ["a letter|una carta", "an email|un correo", "a book|un libro", "a song|una canción", ""]),
    V("send", "mandar", ["a message|un mensaje", "an email|un correo", "the photos|las fotos", "a parcel|un paquete"]),
    V("clean", "limpiar", ["the kitchen|la cocina", "the house|la casa", "the windows|las ventanas",
                           "the bathroom|el baño", "{poss} room|su habitación"]),
    V("wash", "lavar", ["the car|el coche", "the dishes|los platos", "the clothes|la ropa"]),
    V("learn", "aprender", ["Spanish|español", "to drive|a conducir", "a lot|mucho", "to swim|a nadar",
                            "to cook|a cocinar"]),
    V("teach", "enseñar", ["English|inglés", "maths|matemáticas", "at a school|en un colegio"]),
    V("drive", "conducir", ["to work|al trabajo", "very fast|muy rápido", "carefully|con cuidado", ""]),
    V("walk", "caminar", ["to school|al colegio", "in the park|por el parque", "a lot|mucho", "home|a casa"]),
    V("run", "correr", ["in the park|en el parque", "very fast|muy rápido", "on the beach|por la playa", ""], "w"),
    V("swim", "nadar", ["in the sea|en el mar", "in the pool|en la piscina", ""], "w"),
    V("travel", "viajar", ["to Italy|a Italia", "by train|en tren", "a lot|mucho", "alone|{solo}",
                           "around Europe|por Europa"]),
    V("fly", "volar", ["to London|a Londres", "to New York|a Nueva York"]),
    V("finish", "terminar", ["the report|el informe", "{poss} homework|los deberes", "the book|el libro",
                             "work early|de trabajar temprano"]),
    V("try", "probar", ["the soup|la sopa", "the cake|la tarta", "something new|algo nuevo"]),
    V("bring", "traer", ["the wine|el vino", "some food|comida", "a present|un regalo", "the children|a los niños",
                         "{poss} camera|su cámara"]),
    V("take", "coger", ["the bus|el autobús", "the train|el tren", "a taxi|un taxi", "the first flight|el primer vuelo"]),
    V("take", "hacer", ["a lot of photos|muchas fotos", "an exam|un examen"]),
    V("make", "hacer", ["a cake|una tarta", "dinner|la cena", "a mistake|un error", "coffee|café",
                        "a lot of noise|mucho ruido", "the bed|la cama", "a plan|un plan"]),
    V("do", "hacer", ["the shopping|la compra", "{poss} homework|los deberes", "exercise|ejercicio", "yoga|yoga",
                      "the washing|la colada"]),
    V("tell", "contar", ["a story|una historia", "a joke|un chiste", "the children a story|un cuento a los niños"]),
    V("tell", "decir", ["the truth|la verdad", "a lie|una mentira"]),
    V("ask", "preguntar", ["the teacher|al profesor", "{poss} mother|a su madre", "the waiter|al camarero",
                           "a policeman|a un policía"]),
    V("talk", "hablar", ["about the weather|del tiempo", "about work|del trabajo", "to {poss} mother|con su madre",
                         "on the phone|por teléfono", "about the film|de la película", "too much|demasiado"]),
    V("think", "pensar", ["about the future|en el futuro", "about it|en ello", "about {poss} family|en su familia"]),
    V("worry", "preocupar", ["about money|por el dinero", "about the exam|por el examen", "too much|demasiado", ""], "r"),
    V("laugh", "reír", ["a lot|mucho", ""], "r"),
    V("cry", "llorar", ["", "a lot|mucho"]),
    V("die", "morir", ["in hospital|en el hospital", "at home|en casa", ""], "3"),
    V("fall", "caer", ["off the bike|de la bici", "in the street|en la calle", "down the stairs|por las escaleras", ""], "rn"),
    V("break", "romper", ["a glass|un vaso", "the window|la ventana", "a plate|un plato"], "n"),
    V("move", "mudar", ["to Barcelona|a Barcelona", "to a new flat|a un piso nuevo", "to the country|al campo"], "r"),
    V("change", "cambiar", ["{poss} mind|de opinión", "trains in Paris|de tren en París", "the channel|de canal"]),
    V("use", "usar", ["the computer|el ordenador", "a dictionary|un diccionario", "the car|el coche"]),
    V("carry", "llevar", ["a heavy bag|una bolsa pesada", "the boxes|las cajas", "the shopping|la compra"]),
    V("smoke", "fumar", [""], "n"),
    V("dance", "bailar", ["very well|muy bien", "at the party|en la fiesta", ""]),
    V("sing", "cantar", ["very well|muy bien", "in a choir|en un coro", "in the shower|en la ducha", ""]),
    V("spend", "gastar", ["a lot of money|mucho dinero", "too much money|demasiado dinero"]),
    V("spend", "pasar", ["the weekend at the beach|el fin de semana en la playa", "the summer in Italy|el verano en Italia"]),
    V("rent", "alquilar", ["a car|un coche", "a flat|un piso", "a bike|una bici"]),
    V("order", "pedir", ["a pizza|una pizza", "the fish|el pescado", "a coffee|un café", "a taxi|un taxi"]),
    V("miss", "perder", ["the bus|el autobús", "the train|el tren", "{poss} flight|su vuelo"], "n"),
    V("miss", "echar", ["{poss} family|de menos a su familia", "{poss} friends|de menos a sus amigos",
                        "home|de menos su casa"], "sn"),
    V("visit", "visitar", ["{poss} grandparents|a sus abuelos", "the museum|el museo", "Rome|Roma"]),
    V("invite", "invitar", ["all {poss} friends|a todos sus amigos", "the neighbours|a los vecinos", "you|@te"]),
    V("fix", "arreglar", ["the car|el coche", "the bike|la bici", "the computer|el ordenador", "the roof|el tejado"]),
    V("feel", "sentir", ["tired|{cansado}", "better|mejor", "a bit sad|un poco {triste}", "lonely|{solo}",
                         "much better|mucho mejor"], "r"),
    V("get married", "casar", ["in June|en junio", "in a church|en una iglesia", ""], "r"),
    V("get dressed", "vestir", ["quickly|rápido", ""], "r"),
    V("get off", "bajar", ["the bus|del autobús", "the train|del tren", "at the next stop|en la próxima parada"], "r"),
    V("get on", "subir", ["the bus|al autobús", "the train|al tren"], "r"),
    V("grow up", "crecer", ["in a small town|en un pueblo pequeño", "in the country|en el campo"]),
    V("go into", "entrar", ["the kitchen|en la cocina", "the shop|en la tienda", "the room|en la habitación"]),
    V("hurt", "hacer", ["{self}|daño"], "rn"),
    V("win", "ganar", ["the match|el partido", "a prize|un premio", "the game|la partida"]),
    V("choose", "elegir", ["a present|un regalo", "the red one|el rojo", "a good wine|un buen vino"]),
    V("show", "enseñar", ["the photos|las fotos", "the house|la casa", "you|@te"]),
    V("enjoy", "disfrutar", ["the film|de la película", "the trip|del viaje", "the party|de la fiesta"]),
    V("hate", "odiar", ["the cold|el frío", "waiting|esperar", "Mondays|los lunes"], "s"),
    V("stop", "dejar", ["smoking|de fumar", "working|de trabajar", "talking|de hablar"]),
    V("start", "empezar", ["a new job|un trabajo nuevo", "work at nine|a trabajar a las nueve", "a course|un curso"]),
    V("believe", "creer", ["the story|la historia", "in ghosts|en fantasmas", "you|@te"], "s"),
    V("hear", "oír", ["a noise|un ruido", "the news|la noticia", "the music|la música", "you|@te"], "s"),
    V("keep", "guardar", ["the money in the bank|el dinero en el banco", "the receipt|el recibo",
                          "a secret|un secreto"]),
    V("put", "poner", ["the keys on the table|las llaves en la mesa", "the milk in the fridge|la leche en la nevera",
                       "the books in the box|los libros en la caja", "the bags in the car|las bolsas en el coche"]),
    V("grow", "cultivar", ["tomatoes|tomates", "vegetables in the garden|verduras en el jardín"]),
    V("draw", "dibujar", ["a house|una casa", "very well|muy bien", ""]),
    V("wear", "llevar", ["a red dress|un vestido rojo", "glasses|gafas", "a uniform|uniforme", "a suit|traje"], "n"),
]


# ---------------------------------------------------------------------------
# Subjects.


class Subject:
    """Who does it: English words, Spanish words (None: a dropped pronoun),
    person, gender, and the English possessive and reflexive that go with it."""
    __slots__ = ("en", "es", "person", "gender", "pronoun", "poss", "self_")

    def __init__(self, en, es, person, gender):
        self.en, self.es, self.person, self.gender = en, es, person, gender
        self.pronoun = es is None
        plural = person in (P1P, P3P)
        if self.pronoun:
            self.poss = {"I": "my", "you": "your", "he": "his", "she": "her", "we": "our", "they": "their"}[en]
            self.self_ = {"I": "myself", "you": "yourself", "he": "himself", "she": "herself",
                          "we": "ourselves", "they": "themselves"}[en]
        else:
            self.poss = "their" if plural else ("her" if gender == "f" else "his")
            self.self_ = "themselves" if plural else ("herself" if gender == "f" else "himself")

    @property
    def plural(self):
        return self.person in (P1P, P3P)


PRONOUN_SUBJECTS = [Subject("I", None, P1S, "m"), Subject("you", None, P2S, "m"),
                    Subject("he", None, P3S, "m"), Subject("she", None, P3S, "f"),
                    Subject("we", None, P1P, "m"), Subject("they", None, P3P, "m")]
NOUN_SUBJECTS = [Subject(e, s, p, g) for e, s, p, g in [
    ("my brother", "mi hermano", P3S, "m"), ("my sister", "mi hermana", P3S, "f"),
    ("my mother", "mi madre", P3S, "f"), ("my father", "mi padre", P3S, "m"),
    ("our neighbours", "nuestros vecinos", P3P, "m"), ("the children", "los niños", P3P, "m"),
    ("my parents", "mis padres", P3P, "m"), ("your friend", "tu amigo", P3S, "m"),
    ("my best friend", "mi mejor amigo", P3S, "m"), ("the teacher", "el profesor", P3S, "m"),
    ("my wife", "mi mujer", P3S, "f"), ("my husband", "mi marido", P3S, "m"),
    ("my boss", "mi jefe", P3S, "m"), ("my grandmother", "mi abuela", P3S, "f"),
    ("my grandfather", "mi abuelo", P3S, "m"), ("my cousins", "mis primos", P3P, "m"),
    ("the students", "los estudiantes", P3P, "m"), ("my son", "mi hijo", P3S, "m"),
    ("my daughter", "mi hija", P3S, "f"), ("her boyfriend", "su novio", P3S, "m"),
    ("his girlfriend", "su novia", P3S, "f"), ("our daughter", "nuestra hija", P3S, "f"),
    ("my friends", "mis amigos", P3P, "m"), ("the kids", "los niños", P3P, "m"),
    ("my aunt", "mi tía", P3S, "f"), ("my uncle", "mi tío", P3S, "m"),
    ("your parents", "tus padres", P3P, "m"), ("the new student", "el nuevo estudiante", P3S, "m"),
    ("my colleagues", "mis compañeros", P3P, "m"), ("the twins", "los gemelos", P3P, "m")]]


# ---------------------------------------------------------------------------
# Tenses: English auxiliary and main-verb form, Spanish verb group.

TENSES = ("pres", "past", "prog", "past_prog", "perfect", "going_to", "fut", "can", "should",
          "have_to", "had_to", "want_to", "need_to", "might", "used_to", "could")
PROGRESSIVE = ("prog", "past_prog")
# Tenses whose Spanish is a finite verb followed by an infinitive ("voy a
# comer", "puedo ayudarte"): clitics go after the infinitive.
INFINITIVE_TENSES = {"going_to": ("ir", "pri", "a"), "can": ("poder", "pri", ""),
                     "should": ("deber", "cni", ""), "have_to": ("tener", "pri", "que"),
                     "had_to": ("tener", "ifi", "que"), "want_to": ("querer", "pri", ""),
                     "need_to": ("necesitar", "pri", ""), "could": ("poder", "ifi", "")}
NEGATIVE_CONTRACTIONS = {"do not": "don't", "does not": "doesn't", "did not": "didn't",
                         "is not": "isn't", "are not": "aren't", "was not": "wasn't",
                         "were not": "weren't", "have not": "haven't", "has not": "hasn't",
                         "will not": "won't", "can not": "can't", "should not": "shouldn't",
                         "could not": "couldn't"}
SUBJECT_CONTRACTIONS = {("I", "am"): "I'm", ("you", "are"): "you're", ("he", "is"): "he's",
                        ("she", "is"): "she's", ("we", "are"): "we're", ("they", "are"): "they're",
                        ("I", "have"): "I've", ("you", "have"): "you've", ("we", "have"): "we've",
                        ("they", "have"): "they've", ("I", "will"): "I'll", ("you", "will"): "you'll",
                        ("he", "will"): "he'll", ("she", "will"): "she'll", ("we", "will"): "we'll",
                        ("they", "will"): "they'll"}


def english_verb_group(subj, verb, tense, neg, question=False):
    """(auxiliary or None, words after it) of the English verb group, the
    negation not yet contracted: ("does", "not work"), (None, "works"); a
    question always has an auxiliary ("does", "work")."""
    f, p = verb.forms, subj.person
    third = p == P3S
    do_support = {"pres": ("does" if third else "do", f["base"], f["s"] if third else f["base"]),
                  "past": ("did", f["base"], f["past"]),
                  "have_to": ("does" if third else "do", "have to " + f["base"],
                              ("has to " if third else "have to ") + f["base"]),
                  "want_to": ("does" if third else "do", "want to " + f["base"],
                              ("wants to " if third else "want to ") + f["base"]),
                  "need_to": ("does" if third else "do", "need to " + f["base"],
                              ("needs to " if third else "need to ") + f["base"]),
                  "had_to": ("did", "have to " + f["base"], "had to " + f["base"])}
    if tense in do_support:
        aux, bare, plain = do_support[tense]
        if neg:
            return aux, "not " + bare
        return (aux, bare) if question else (None, plain)
    aux, main = {"prog": (BE_PRES[p], f["ing"]), "past_prog": (BE_PAST[p], f["ing"]),
                 "perfect": (HAVE[p], f["pp"]), "going_to": (BE_PRES[p], "going to " + f["base"]),
                 "fut": ("will", f["base"]), "can": ("can", f["base"]), "should": ("should", f["base"]),
                 "might": ("might", f["base"]), "could": ("could", f["base"]),
                 "used_to": (None, "used to " + f["base"])}[tense]
    return aux, ("not " + main if neg else main)


def spanish_verb_group(subj, verb, tense, clitics):
    """The Spanish verb group with its clitics placed: "me levanto", "voy a
    levantarme", "te he llamado", "estaba durmiendo"."""
    p, lemma = subj.person, verb.es
    pre = " ".join(clitics)
    if tense in INFINITIVE_TENSES:
        head, head_tense, link = INFINITIVE_TENSES[tense]
        inf = es_verb(lemma, "<inf>") + "".join(clitics)
        return " ".join(w for w in (es_finite(head, head_tense, p), link, inf) if w)
    group = {"pres": lambda: es_finite(lemma, "pri", p), "past": lambda: es_finite(lemma, "ifi", p),
             "fut": lambda: es_finite(lemma, "fti", p),
             "prog": lambda: es_finite("estar", "pri", p) + " " + es_verb(lemma, "<ger>"),
             "past_prog": lambda: es_finite("estar", "pii", p) + " " + es_verb(lemma, "<ger>"),
             "perfect": lambda: es_finite("haber", "pri", p) + " " + es_verb(lemma, "<pp><m><sg>"),
             "used_to": lambda: es_finite(lemma, "pii", p),
             "might": lambda: es_finite(lemma, "prs", p)}[tense]()
    return (pre + " " + group).strip()


def verb_clitics(subj, verb, comp_es):
    """The clitics of a verb phrase: the reflexive pronoun of its subject's
    person, and an object clitic of its complement (@te)."""
    clitics = [REFLEXIVE[subj.person]] if verb.reflexive else []
    if comp_es.startswith("@"):
        clitics.append(comp_es[1:])
    return clitics


def fill_complement(subj, comp):
    """A complement's English and Spanish for this subject ({poss}, {self},
    {adjective}, su -> mi / tu), or None where it does not fit the subject
    ("I call me", "we ... our" whose Spanish possessive needs the noun's
    gender)."""
    en, es = comp
    if "{poss}" in en and subj.person == P1P:
        return None
    if es.startswith("@") and {P1S: "@me", P2S: "@te", P1P: "@nos"}.get(subj.person) == es:
        return None
    if "{poss}" in en:
        mine = {P1S: "mi", P2S: "tu"}.get(subj.person)
        if mine:
            es = re.sub(r"\bsu\b", mine, es)
            es = re.sub(r"\bsus\b", mine + "s", es)
    en = en.replace("{poss}", subj.poss).replace("{self}", subj.self_)
    es = fill_agreement(es, subj.gender, subj.plural)
    return en, es


class Clause:
    """One drawn clause, rendered in both languages by `english` and
    `spanish`.  form: "stmt", "yn" (yes/no question) or a question word
    ("where", "when", "why", "what time", "how often")."""

    WH_ES = {"where": "dónde", "when": "cuándo", "why": "por qué", "what time": "a qué hora",
             "how often": "con qué frecuencia"}

    def __init__(self, subj, verb, comp, tense, neg=False, form="stmt", adverb=None,
                 time=None, front_time=False, contract=True):
        self.subj, self.verb, self.comp, self.tense = subj, verb, comp, tense
        self.neg, self.form, self.adverb = neg, form, adverb
        self.time, self.front_time, self.contract = time, front_time, contract

    # English ------------------------------------------------------------
    def english(self):
        s, adv = self.subj, self.adverb
        comp_en = self.comp[0]
        aux, rest = english_verb_group(s, self.verb, self.tense, self.neg, self.form != "stmt")
        if adv and adv.en_pos == "main":   # before the main verb: "usually works", "has already eaten"
            if aux is None:
                rest = adv.en + " " + rest
            elif rest.startswith("not "):
                rest = "not " + adv.en + " " + rest[4:]
            else:
                rest = adv.en + " " + rest
        words_after = " ".join(w for w in (rest, comp_en) if w)
        end = ""
        if adv and adv.en_pos == "end":
            end = " " + adv.en
        if self.time and not self.front_time:
            end += " " + self.time[0]
        if self.form == "stmt":
            if aux is None:
                body = "%s %s" % (s.en, words_after)
            else:
                first = "%s %s" % (s.en, aux)
                if self.contract and s.pronoun and (s.en, aux) in SUBJECT_CONTRACTIONS and \
                        not (self.neg and aux in ("have", "has", "will")):
                    first = SUBJECT_CONTRACTIONS[(s.en, aux)]
                body = "%s %s" % (first, words_after)
                if self.neg and self.contract:
                    for full, short in NEGATIVE_CONTRACTIONS.items():
                        body = re.sub(r"\b%s\b" % full, short, body, count=1)
            body += end
        else:
            if aux is None:   # used_to has no question form; callers avoid it
                raise ValueError("no question form for %s" % self.tense)
            if self.neg:   # "Didn't you see it?": the contracted auxiliary opens the question
                aux = NEGATIVE_CONTRACTIONS[aux + " not"]
                words_after = words_after[4:] if words_after.startswith("not ") else \
                    words_after.replace(" not ", " ", 1)
            body = "%s %s %s" % (aux, s.en, words_after) + end
            if self.form != "yn":
                body = self.form + " " + body
        if self.time and self.front_time:
            body = self.time[0] + (", " if self.time_comma else " ") + body
        return body

    time_comma = False

    # Spanish ------------------------------------------------------------
    def spanish(self):
        s, adv, tense = self.subj, self.adverb, self.tense
        comp_es = self.comp[1]
        clitics = verb_clitics(s, self.verb, comp_es)
        if comp_es.startswith("@"):
            comp_es = ""
        if adv and adv.kind == "just":
            # "I've just eaten" / "I just ate": acabar de + infinitive
            group = es_finite("acabar", "pri", s.person) + " de " + es_verb(self.verb.es, "<inf>") + \
                "".join(clitics)
        elif tense == "might":
            group = "puede que " + ("no " if self.neg else "") + spanish_verb_group(s, self.verb, tense, clitics)
        elif tense == "used_to":
            group = "antes " + spanish_verb_group(s, self.verb, tense, clitics)
        else:
            group = spanish_verb_group(s, self.verb, tense, clitics)
        neg = self.neg and tense != "might"
        pre = []
        if adv and adv.es_pos == "pre":
            if adv.kind == "never":
                neg = False
            if adv.kind == "yet":
                pre.append("todavía" if self.neg else "ya")
            elif adv.es:
                pre.append(adv.es)
        if neg:
            pre.append("no")
        core = " ".join(pre + [group])
        tail = " ".join(w for w in (comp_es,) if w)
        end = ""
        if adv and adv.es_pos == "end":
            end = " " + fill_agreement(adv.es, s.gender, s.plural)
        if self.time and not self.front_time:
            end += " " + self.time[1]
        if self.form in ("stmt", "yn"):
            body = " ".join(w for w in (s.es, core, tail) if w) + end
        else:
            body = " ".join(w for w in (self.WH_ES[self.form], core, s.es, tail) if w) + end
        if self.time and self.front_time:
            body = self.time[1] + (", " if self.time_comma else " ") + body
        return body


class Adverb:
    """en_pos: "main" (before the main verb) or "end"; es_pos: "pre" (before
    the verb group) or "end"; kind names the ones with rules of their own."""
    __slots__ = ("en", "es", "en_pos", "es_pos", "kind")

    def __init__(self, en, es, en_pos, es_pos, kind=""):
        self.en, self.es, self.en_pos, self.es_pos, self.kind = en, es, en_pos, es_pos, kind


A = Adverb
# Which adverbs go with which tense and sentence form ("yn": a yes/no question).
ADVERBS = {
    "pres": [A("always", "siempre", "main", "pre"), A("usually", "normalmente", "main", "pre"),
             A("often", "a menudo", "main", "pre"), A("sometimes", "a veces", "main", "pre"),
             A("never", "nunca", "main", "pre", "never"), A("also", "también", "main", "pre"),
             A("still", "todavía", "main", "pre"), A("really", "de verdad", "main", "pre")],
    "past": [A("also", "también", "main", "pre"), A("just", "", "main", "pre", "just"),
             A("finally", "por fin", "main", "pre"), A("again", "otra vez", "end", "end")],
    "perfect": [A("already", "ya", "main", "pre"), A("just", "", "main", "pre", "just"),
                A("never", "nunca", "main", "pre", "never"), A("ever", "alguna vez", "main", "pre", "ever"),
                A("yet", "", "end", "pre", "yet"), A("recently", "últimamente", "end", "pre")],
    "prog": [A("still", "todavía", "main", "pre"), A("also", "también", "main", "pre")],
    "fut": [A("probably", "probablemente", "main", "pre", "probably"), A("also", "también", "main", "pre"),
            A("soon", "pronto", "end", "end"), A("again", "otra vez", "end", "end")],
    "going_to": [A("again", "otra vez", "end", "end")],
    "can": [A("also", "también", "main", "pre")],
    "together": A("together", "{junto}", "end", "end"),
    "alone": A("alone", "{solo}", "end", "end"),
}


def adverb_fits(adv, tense, neg, form, verb_is_stative=False):
    """Whether an adverb reads naturally in this clause."""
    k = adv.kind
    if k == "never":
        return not neg and form == "stmt"
    if k == "ever":
        return form == "yn" and not neg
    if k == "yet":
        return neg or form == "yn"
    if k == "just":
        return not neg and form in ("stmt", "yn")
    if k == "probably":
        return form == "stmt"
    if adv.en in ("always", "usually", "often", "sometimes") and verb_is_stative:
        return False
    if adv.en_pos == "main" and neg:   # "does not always", "haven't already": not what people say
        return False
    if adv.en in ("already", "also"):
        return not neg
    if adv.en == "still" and tense == "pres":
        return not neg and form == "stmt"
    if adv.en == "really":
        return form == "stmt" and not neg and verb_is_stative
    return True


def probably_order(en):
    """"will probably not" reads "probably won't"."""
    return en.replace("will probably not ", "probably will not ").replace("won't probably ", "probably won't ")


# ---------------------------------------------------------------------------
# Time phrases by tense; any of them may open the sentence ("Yesterday I ...").

PAST_TIMES = [("yesterday", "ayer"), ("last night", "anoche"), ("last week", "la semana pasada"),
              ("last summer", "el verano pasado"), ("last year", "el año pasado"),
              ("two days ago", "hace dos días"), ("a week ago", "hace una semana"),
              ("on Saturday", "el sábado"), ("this morning", "esta mañana"),
              ("yesterday afternoon", "ayer por la tarde"), ("the other day", "el otro día"),
              ("in 2015", "en 2015"), ("a few minutes ago", "hace unos minutos"),
              ("last month", "el mes pasado"), ("at the weekend", "el fin de semana")]
FUTURE_TIMES = [("tomorrow", "mañana"), ("next week", "la semana que viene"),
                ("next year", "el año que viene"), ("tonight", "esta noche"),
                ("this weekend", "este fin de semana"), ("on Monday", "el lunes"),
                ("in two weeks", "dentro de dos semanas"), ("later", "más tarde"),
                ("tomorrow morning", "mañana por la mañana"), ("next summer", "el verano que viene")]
HABIT_TIMES = [("every day", "todos los días"), ("every morning", "todas las mañanas"),
               ("every evening", "todas las tardes"), ("in the morning", "por la mañana"),
               ("in the evening", "por la tarde"), ("at night", "por la noche"),
               ("on Sundays", "los domingos"), ("at the weekend", "los fines de semana"),
               ("once a week", "una vez a la semana"), ("twice a week", "dos veces a la semana"),
               ("every summer", "todos los veranos"), ("after lunch", "después de comer"),
               ("on weekdays", "entre semana")]
NOW_TIMES = [("now", "ahora"), ("right now", "ahora mismo"), ("at the moment", "en este momento")]
PERFECT_TIMES = [("this week", "esta semana"), ("today", "hoy"), ("this year", "este año")]
PAST_PROG_TIMES = [("at eight o'clock", "a las ocho"), ("yesterday at six", "ayer a las seis"),
                   ("all morning", "toda la mañana")]
TIMES = {"pres": HABIT_TIMES, "past": PAST_TIMES, "fut": FUTURE_TIMES, "going_to": FUTURE_TIMES,
         "prog": NOW_TIMES, "past_prog": PAST_PROG_TIMES, "perfect": PERFECT_TIMES,
         "can": FUTURE_TIMES, "have_to": FUTURE_TIMES, "had_to": PAST_TIMES, "should": FUTURE_TIMES,
         "want_to": FUTURE_TIMES, "need_to": FUTURE_TIMES, "might": FUTURE_TIMES,
         "used_to": [], "could": PAST_TIMES}
TENSE_WEIGHTS = {"pres": 14, "past": 14, "prog": 7, "past_prog": 5, "perfect": 10, "going_to": 7,
                 "fut": 7, "can": 5, "should": 3, "have_to": 4, "had_to": 2, "want_to": 4,
                 "need_to": 3, "might": 2, "used_to": 2, "could": 2}


def draw_subject(rng, draw_name, female):
    r = rng.random()
    if r < 0.55:
        return rng.choice(PRONOUN_SUBJECTS)
    if r < 0.88:
        return rng.choice(NOUN_SUBJECTS)
    name = draw_name()
    return Subject(name, name, P3S, "f" if name in female else "m")


def draw_clause(rng, draw_name, female, verb=None, tense=None, form=None, subj=None):
    """A Clause that fits together (subject, complement, tense, adverb), or
    None when this draw does not."""
    verb = verb or rng.choice(VERBS)
    subj = subj or draw_subject(rng, draw_name, female)
    if verb.third_only and (subj.pronoun and subj.en in ("I", "you", "we")):
        return None
    if tense is None:
        names = list(TENSE_WEIGHTS)
        tense = rng.choices(names, [TENSE_WEIGHTS[t] for t in names])[0]
    if tense in PROGRESSIVE and (verb.stative or verb.en not in ACTIVITIES):
        return None
    if tense == "used_to" and verb.en not in HABITS:
        return None
    comp = fill_complement(subj, rng.choice(verb.complements))
    if comp is None:
        return None
    neg = rng.random() < 0.3
    if form is None:
        r = rng.random()
        if r < 0.62 or tense in ("used_to", "might", "could") or (tense == "could" and not neg):
            form = "stmt"
        elif r < 0.85:
            form = "yn"
        else:
            form = rng.choice(["where", "when", "why", "what time", "how often"])
    if tense == "could" and not neg:
        return None
    if tense == "used_to" and (neg or form != "stmt"):
        return None
    if neg and form != "stmt" and (tense in ("might", "used_to") or
                                 (subj.en == "I" and tense in ("prog", "going_to"))):
        return None   # "Am I not ...?", "Mightn't ...?": not what people say
    if form not in ("stmt", "yn"):
        neg = neg and form == "why"
        if form == "where" and not (verb.where and comp[0] and not comp[0].startswith(("for ", "with ", "alone"))):
            return None
        if form == "where":
            comp = ("", "")
        if form == "how often" and tense != "pres":
            return None
        if form == "what time" and tense not in ("pres", "past", "fut", "going_to", "have_to"):
            return None
        if form == "when" and tense not in ("pres", "past", "fut", "going_to", "have_to", "want_to", "can"):
            return None

    adverb = None
    if form in ("stmt", "yn") and rng.random() < 0.35:
        opts = [a for a in ADVERBS.get(tense, []) if adverb_fits(a, tense, neg, form, verb.stative)]
        if opts:
            adverb = rng.choice(opts)
            if adverb.kind == "just" and (comp[1].startswith("@") or verb.reflexive):
                adverb = None
    if adverb is None and subj.plural and form == "stmt" and rng.random() < 0.08:
        adverb = ADVERBS["together"]
    time = None
    front = False
    if form in ("stmt", "yn", "why") and rng.random() < 0.4 and TIMES.get(tense) and \
            (adverb is None or (adverb.en_pos == "main" and adverb.kind != "just")):
        time = rng.choice(TIMES[tense])
        front = form == "stmt" and rng.random() < 0.45
    c = Clause(subj, verb, comp, tense, neg, form, adverb, time, front, contract=rng.random() < 0.75)
    c.time_comma = front and rng.random() < 0.4
    return c


def clause_pair(clause):
    """(English, Spanish) of a clause without capitals or final marks."""
    en = clause.english()
    if clause.adverb and clause.adverb.kind == "probably":
        en = probably_order(en)
    return en, elide(clause.spanish())


# ---------------------------------------------------------------------------
# Families built on clauses.


def clause_sentence(rng, draw_name, female):
    """One clause: a statement, a yes/no question or a wh-question, in one of
    sixteen tenses, with an adverb or a time phrase now and then."""
    c = draw_clause(rng, draw_name, female)
    if c is None:
        return None
    return "core:" + (c.form if c.form in ("stmt", "yn") else "wh"), finish(*clause_pair(c), "." if c.form == "stmt" else "?")


def lower_first(text, keep=()):
    """Lower the first letter unless the first word is a name or "I"."""
    first = text.split(" ", 1)[0]
    if first == "I" or first.startswith("I'") or first in keep or (first[:1].isupper() and first[1:2].islower()
                                                                       and first not in _SENTENCE_WORDS):
        return text
    return text[:1].lower() + text[1:]


# Capitalised words that open clauses of this module and are not names.
_SENTENCE_WORDS = set()


def statement(rng, draw_name, female, **kw):
    """A drawn statement clause (English, Spanish), or None."""
    c = draw_clause(rng, draw_name, female, form="stmt", **kw)
    if c is None:
        return None
    c.time = None if c.front_time else c.time   # a fronted time phrase would sit mid-sentence
    return clause_pair(c)


def subordinate(rng, draw_name, female):
    """Two clauses joined by when, while, as soon as, until, unless, if,
    before or after, with the Spanish mood each needs."""
    kind = rng.choice(["when-past", "when-future", "while", "as soon as", "until", "unless", "if",
                       "before", "after"])
    main_subj = draw_subject(rng, draw_name, female)
    sub_subj = draw_subject(rng, draw_name, female)
    if kind == "when-past":
        main = draw_clause(rng, draw_name, female, tense=rng.choice(["past", "past_prog"]), form="stmt",
                           subj=main_subj)
        sub = draw_clause(rng, draw_name, female, tense="past", form="stmt", subj=sub_subj)
        en_conj, es_conj, sub_mood = "when", "cuando", None
    elif kind == "while":
        main = draw_clause(rng, draw_name, female, tense="past", form="stmt", subj=main_subj)
        sub = draw_clause(rng, draw_name, female, tense="past_prog", form="stmt", subj=sub_subj)
        en_conj, es_conj, sub_mood = "while", "mientras", "pii"
    elif kind in ("when-future", "as soon as", "until", "unless"):
        main = draw_clause(rng, draw_name, female, tense=rng.choice(["fut", "going_to"]), form="stmt",
                           subj=main_subj)
        sub = draw_clause(rng, draw_name, female, tense="pres", form="stmt", subj=sub_subj)
        en_conj, es_conj = {"when-future": ("when", "cuando"), "as soon as": ("as soon as", "en cuanto"),
                            "until": ("until", "hasta que"), "unless": ("unless", "a menos que")}[kind]
        sub_mood = "prs"
    elif kind == "if":
        main = draw_clause(rng, draw_name, female, tense=rng.choice(["fut", "going_to", "can"]), form="stmt",
                           subj=main_subj)
        sub = draw_clause(rng, draw_name, female, tense="pres", form="stmt", subj=sub_subj)
        en_conj, es_conj, sub_mood = "if", "si", None
    else:   # before / after + -ing, same subject: "antes de / después de" + infinitive
        main = draw_clause(rng, draw_name, female, tense=rng.choice(["pres", "past"]), form="stmt",
                           subj=main_subj)
        verb = rng.choice(VERBS)
        if main is None or verb.third_only or verb is main.verb or verb.en not in ACTIVITIES or main.neg:
            return None
        comp = fill_complement(main_subj, rng.choice(verb.complements))
        if comp is None or comp[1].startswith("@"):
            return None
        inf = es_verb(verb.es, "<inf>") + (REFLEXIVE[main_subj.person] if verb.reflexive else "")
        en_sub = " ".join(w for w in (kind, verb.forms["ing"], comp[0]) if w)
        es_sub = " ".join(w for w in ("antes de" if kind == "before" else "después de", inf, comp[1]) if w)
        main.time = main.adverb = None
        en_main, es_main = clause_pair(main)
        if rng.random() < 0.5:
            return "subordinate:" + kind, finish(en_main + " " + en_sub, es_main + " " + es_sub)
        return "subordinate:" + kind, finish(en_sub + ", " + lower_first(en_main, ()),
                                             es_sub + ", " + es_main[0].lower() + es_main[1:]
                                             if main_subj.pronoun else es_sub + ", " + es_main)
    if main is None or sub is None:
        return None
    for c in (main, sub):
        c.time = None
        c.adverb = None
    sub.neg = False   # "until she doesn't come", "while they weren't crying": not what people say
    if kind == "until" and (main.neg or main.verb.en not in ACTIVITIES):
        return None
    en_main, es_main = clause_pair(main)
    en_sub = sub.english()
    if sub_mood:
        sub_tense_save = sub.tense
        es_sub = spanish_mood_clause(sub, sub_mood)
        sub.tense = sub_tense_save
    else:
        es_sub = elide(sub.spanish())
    front = rng.random() < 0.5
    if front:
        en = "%s %s, %s" % (en_conj, en_sub, lower_first(en_main))
        es = "%s %s, %s" % (es_conj, es_sub, lower_es(es_main, main_subj))
    else:
        en = "%s %s %s" % (en_main, en_conj, lower_first(en_sub))
        es = "%s %s %s" % (es_main, es_conj, lower_es(es_sub, sub_subj))
    return "subordinate:" + kind.split("-")[0], finish(en, es)


def lower_es(es, subj):
    """Lower a Spanish clause's first letter unless it starts with a name."""
    if not subj.pronoun and subj.en == subj.es:   # a name
        return es
    return es[:1].lower() + es[1:]


def spanish_mood_clause(clause, mood):
    """The Spanish of a present or past progressive clause in the present
    subjunctive (mood "prs": "cuando llegue") or the imperfect (mood "pii":
    "mientras cocinaba")."""
    s, verb = clause.subj, clause.verb
    comp_es = clause.comp[1]
    clitics = verb_clitics(s, verb, comp_es)
    if comp_es.startswith("@"):
        comp_es = ""
    group = " ".join(clitics + [es_finite(verb.es, mood, s.person)])
    if clause.neg:
        group = "no " + group
    return elide(" ".join(w for w in (s.es, group, comp_es) if w))


# People, for relative clauses: English, Spanish, gender.
PEOPLE = [("the man", "el hombre", "m"), ("the woman", "la mujer", "f"), ("the boy", "el chico", "m"),
          ("the girl", "la chica", "f"), ("the old man", "el anciano", "m"), ("the lady", "la señora", "f")]
# Jobs: English, Spanish masculine (feminine by agree()).
JOBS = [("a teacher", "profesor"), ("a doctor", "médico"), ("a nurse", "enfermero"), ("a lawyer", "abogado"),
        ("an engineer", "ingeniero"), ("a waiter", "camarero"), ("a cook", "cocinero"), ("a student", "estudiante"),
        ("a writer", "escritor"), ("a farmer", "agricultor")]
# Things for "the THING that SUBJECT VERBED": English, Spanish, gender, verbs (English base, Spanish lemma).
REL_THINGS = [
    ("book", "libro", "m", [("buy", "comprar"), ("read", "leer"), ("write", "escribir")]),
    ("film", "película", "f", [("watch", "ver"), ("see", "ver"), ("choose", "elegir")]),
    ("cake", "tarta", "f", [("make", "hacer"), ("buy", "comprar"), ("bring", "traer")]),
    ("car", "coche", "m", [("buy", "comprar"), ("rent", "alquilar"), ("sell", "vender")]),
    ("hotel", "hotel", "m", [("book", "reservar"), ("find", "encontrar"), ("choose", "elegir")]),
    ("restaurant", "restaurante", "m", [("find", "encontrar"), ("choose", "elegir")]),
    ("dress", "vestido", "m", [("buy", "comprar"), ("wear", "llevar")]),
    ("song", "canción", "f", [("sing", "cantar"), ("write", "escribir"), ("hear", "oír")]),
    ("house", "casa", "f", [("buy", "comprar"), ("rent", "alquilar"), ("sell", "vender")]),
    ("wine", "vino", "m", [("bring", "traer"), ("buy", "comprar"), ("order", "pedir")]),
    ("soup", "sopa", "f", [("make", "hacer"), ("order", "pedir")]),
    ("photo", "foto", "f", [("take", "hacer"), ("send", "mandar")]),
]
REL_ADJECTIVES = [("very good", "muy {bueno}"), ("really expensive", "{carísimo}"), ("too expensive", "demasiado {caro}"),
                  ("quite cheap", "bastante {barato}"), ("very interesting", "muy {interesante}"),
                  ("a bit boring", "un poco {aburrido}"), ("really beautiful", "{precioso}"),
                  ("very old", "muy {viejo}"), ("pretty good", "bastante {bueno}"), ("great", "{genial}")]


def relative(rng, draw_name, female):
    """Relative clauses: "The man who lives next door is a doctor.", "The
    book that I bought is very good.", "I have a friend who speaks French."."""
    kind = rng.random()
    if kind < 0.4:
        en_np, es_np, g = rng.choice(PEOPLE)
        subj = Subject(en_np, es_np, P3S, g)
        c = draw_clause(rng, draw_name, female, tense=rng.choice(["pres", "past", "perfect"]), form="stmt",
                        subj=subj)
        if c is None or c.comp[1].startswith("@") or c.neg:
            return None
        c.time = c.adverb = None
        en_c, es_c = clause_pair(c)
        en_rel = en_c.replace(en_np + " ", "", 1)
        es_rel = es_c.replace(es_np + " ", "", 1)
        job_en, job_es = rng.choice(JOBS)
        pred = rng.choice([("is %s" % job_en, "es " + agree(job_es, g, False)),
                           ("is my neighbour", "es {mi} vecino"), ("is very nice", "es muy {simpático}"),
                           ("is from Italy", "es de Italia")])
        es_pred = fill_agreement(pred[1].replace("{mi}", "mi"), g, False) if "vecino" not in pred[1] else \
            "es mi " + agree("vecino", g, False)
        return "relative:who", finish("%s who %s %s" % (en_np, en_rel, pred[0]),
                                      "%s que %s %s" % (es_np, es_rel, es_pred))
    if kind < 0.75:
        thing_en, thing_es, g, verbs = rng.choice(REL_THINGS)
        v_en, v_es = rng.choice(verbs)
        subj = draw_subject(rng, draw_name, female)
        past = english_forms(v_en)["past"]
        if v_en == "book":
            past = "booked"
        es_v = es_finite(v_es, "ifi", subj.person)
        adj_en, adj_es = rng.choice(REL_ADJECTIVES)
        tense = rng.choice(["is", "was"])
        cop = "es" if tense == "is" else "era"
        that = rng.choice(["that", "which", ""])
        en = "the %s %s %s %s %s" % (thing_en, that, subj.en, past, "%s %s" % (tense, adj_en))
        es = "%s %s que %s %s %s" % ("el" if g == "m" else "la", thing_es,
                                      " ".join(w for w in (subj.es, es_v) if w), cop,
                                      fill_agreement(adj_es, g, False))
        return "relative:that", finish(re.sub(" +", " ", en), es)
    # "I have a friend who ..." / "I know someone who ..."
    lead_en, lead_es, g = rng.choice([("I have a friend who", "Tengo un amigo que", "m"),
                                      ("I have a sister who", "Tengo una hermana que", "f"),
                                      ("I know someone who", "Conozco a alguien que", "m"),
                                      ("We have a neighbour who", "Tenemos un vecino que", "m"),
                                      ("She has a cousin who", "Tiene un primo que", "m")])
    subj = Subject("X", "X", P3S, g)
    c = draw_clause(rng, draw_name, female, tense=rng.choice(["pres", "pres", "past", "perfect", "can"]),
                    form="stmt", subj=subj)
    if c is None or c.neg or c.comp[1].startswith("@"):
        return None
    c.time = c.adverb = None
    en_c, es_c = clause_pair(c)
    return "relative:who", finish("%s %s" % (lead_en, en_c[2:]), "%s %s" % (lead_es, es_c[2:]))


# Places asked for in indirect questions: English, Spanish, plural.
WHERE_THINGS = [("the station", "la estación", False), ("the bank", "el banco", False),
                ("the nearest pharmacy", "la farmacia más cercana", False), ("the post office", "la oficina de correos", False),
                ("the toilet", "el baño", False), ("my keys", "mis llaves", True), ("the museum", "el museo", False),
                ("the bus stop", "la parada de autobús", False), ("the hospital", "el hospital", False),
                ("the exit", "la salida", False), ("my glasses", "mis gafas", True), ("the car park", "el aparcamiento", False),
                ("the tourist office", "la oficina de turismo", False), ("the children", "los niños", True)]
WHEN_THINGS = [("the shop opens", "abre la tienda"), ("the train leaves", "sale el tren"),
               ("the film starts", "empieza la película"), ("the museum closes", "cierra el museo"),
               ("the bus arrives", "llega el autobús"), ("the meeting starts", "empieza la reunión"),
               ("the party ends", "termina la fiesta")]
ASKERS = [("I don't know", "no sé", "."), ("do you know", "¿sabes", "?"),
          ("can you tell me", "¿puedes decirme", "?"), ("could you tell me", "¿podrías decirme", "?"),
          ("I'm not sure", "no estoy seguro de", "."), ("I wonder", "me pregunto", "."),
          ("nobody knows", "nadie sabe", "."), ("I can't remember", "no me acuerdo de", "."),
          ("I forgot", "se me olvidó", "."), ("tell me", "dime", ".")]


def indirect_question(rng, draw_name, female):
    """"I don't know where the station is.", "Do you know what time the
    train leaves?", "I wonder why she left."."""
    asker_en, asker_es, mark = rng.choice(ASKERS)
    r = rng.random()
    if r < 0.35:
        en_x, es_x, pl = rng.choice(WHERE_THINGS)
        en_q, es_q = "where %s %s" % (en_x, "are" if pl else "is"), "dónde %s %s" % ("están" if pl else "está", es_x)
    elif r < 0.55:
        en_x, es_x = rng.choice(WHEN_THINGS)
        en_q, es_q = rng.choice([("what time %s" % en_x, "a qué hora %s" % es_x),
                                 ("when %s" % en_x, "cuándo %s" % es_x)])
        verb3 = en_x.split(" ")[-1]
        en_q = en_q if mark == "." or True else en_q
        del verb3
    elif r < 0.65:
        en_q, es_q = rng.choice([("what time it is", "qué hora es"), ("how much it costs", "cuánto cuesta"),
                                 ("what it means", "qué significa"), ("how old she is", "cuántos años tiene"),
                                 ("what his name is", "cómo se llama"), ("who that man is", "quién es ese hombre")])
    else:
        c = draw_clause(rng, draw_name, female, tense=rng.choice(["past", "pres", "fut", "perfect"]), form="stmt")
        if c is None or c.front_time or c.adverb:
            return None
        wh = rng.choice(["why", "if", "when", "where"])
        if wh == "where" and not (c.verb.where and c.comp[0]):
            return None
        if wh == "where":
            c.comp = ("", "")
        en_c, es_c = clause_pair(c)
        wh_es = {"why": "por qué", "if": "si", "when": "cuándo", "where": "dónde"}[wh]
        if wh != "if" and not c.subj.pronoun:   # "por qué se fue tu hermano": the subject after the verb
            es_c = es_c.replace(c.subj.es + " ", "", 1)
            words = es_c.split(" ", 1)
            es_c = words[0] + " " + c.subj.es + ((" " + words[1]) if len(words) > 1 else "")
            if es_c.startswith(("no ", "se ", "me ", "te ", "nos ")) or c.tense != "pres":
                return None
        en_q, es_q = "%s %s" % (wh, lower_first(en_c)), "%s %s" % (wh_es, es_c)
    if asker_es.endswith(" de") and not es_q.startswith(("dónde", "qué", "cuándo", "cuánto", "si", "por qué",
                                                          "a qué", "cómo", "quién")):
        return None
    es_body = "%s %s" % (asker_es, es_q)
    if asker_es == "no me acuerdo de" and es_q.startswith("si "):
        return None
    en = "%s %s" % (asker_en, en_q)
    if mark == "?":
        en = en[0].upper() + en[1:] + "?"
        es = es_body[0] + es_body[1].upper() + es_body[2:] + "?"
        return "indirect question", (en, elide(es))
    return "indirect question", finish(en, es_body)


# Verbs that take "something" / "anything" / "nothing" / "everything":
# English base, Spanish lemma.
THING_VERBS = [("buy", "comprar"), ("eat", "comer"), ("say", "decir"), ("hear", "oír"), ("find", "encontrar"),
               ("do", "hacer"), ("understand", "entender"), ("bring", "traer"), ("forget", "olvidar"),
               ("see", "ver"), ("need", "necesitar"), ("want", "querer"), ("know", "saber"), ("drink", "beber"),
               ("cook", "cocinar"), ("read", "leer"), ("lose", "perder"), ("remember", "recordar")]
PERSON_VERBS = [("see", "ver"), ("call", "llamar"), ("know", "conocer"), ("invite", "invitar"),
                ("help", "ayudar"), ("meet", "conocer"), ("hear", "oír"), ("ask", "preguntar")]
INTRANSITIVE_SUBJ = [("called", "llamó"), ("came", "vino"), ("knows", "lo sabe"), ("answered", "contestó"),
                     ("laughed", "se rio"), ("left early", "se fue temprano"), ("was at home", "estaba en casa"),
                     ("is waiting outside", "está esperando fuera"), ("helped us", "nos ayudó"),
                     ("understood the question", "entendió la pregunta"), ("has arrived", "ha llegado")]


def indefinite(rng, draw_name, female):
    """something / anything / nothing / everything / someone / anyone /
    nobody / everyone, with "no ... nada" and "no ... a nadie"."""
    r = rng.random()
    subj = rng.choice(PRONOUN_SUBJECTS + NOUN_SUBJECTS[:12])
    if r < 0.45:
        v_en, v_es = rng.choice(THING_VERBS)
        verb = Verb(v_en, v_es, [""])
        tense = rng.choice(["past", "past", "pres", "perfect", "fut", "can"])
        kind = rng.choice(["something", "anything-neg", "anything-q", "nothing", "everything"])
        if v_en in ("need", "want", "know", "understand", "remember", "see", "hear") and tense == "perfect":
            return None
        en_obj, es_obj, neg, form = {"something": ("something", "algo", False, "stmt"),
                                     "anything-neg": ("anything", "nada", True, "stmt"),
                                     "anything-q": ("anything", "algo", False, "yn"),
                                     "nothing": ("nothing", "nada", False, "stmt"),
                                     "everything": ("everything", "todo", False, "stmt")}[kind]
        if kind == "anything-q" and rng.random() < 0.4:
            en_obj, es_obj = rng.choice([("anything else", "algo más"), ("something", "algo")])
        if kind == "nothing" and tense not in ("past", "pres"):
            return None
        c = Clause(subj, verb, (en_obj, es_obj), tense, neg, form, contract=rng.random() < 0.8)
        en, es = clause_pair(c)
        if kind == "nothing":   # "I saw nothing." -> "No vi nada."
            es = "no " + es if subj.pronoun else es.replace(subj.es + " ", subj.es + " no ", 1)
        return "indefinite", finish(en, es, "?" if form == "yn" else ".")
    if r < 0.75:
        v_en, v_es = rng.choice(PERSON_VERBS)
        verb = Verb(v_en, v_es, [""])
        kind = rng.choice(["someone", "anyone-neg", "anyone-q", "everyone", "nobody"])
        tense = rng.choice(["past", "past", "pres", "fut"])
        en_obj, es_obj, neg, form = {"someone": (rng.choice(["someone", "somebody"]), "a alguien", False, "stmt"),
                                     "anyone-neg": (rng.choice(["anyone", "anybody"]), "a nadie", True, "stmt"),
                                     "anyone-q": (rng.choice(["anyone", "anybody"]), "a alguien", False, "yn"),
                                     "everyone": (rng.choice(["everyone", "everybody"]), "a todo el mundo", False, "stmt"),
                                     "nobody": ("nobody", "a nadie", False, "stmt")}[kind]
        if kind == "nobody" and tense != "past":
            return None
        if v_en == "know" and tense == "past":
            return None
        c = Clause(subj, verb, (en_obj, es_obj), tense, neg, form, contract=rng.random() < 0.8)
        en, es = clause_pair(c)
        if kind == "nobody":
            es = "no " + es if subj.pronoun else es.replace(subj.es + " ", subj.es + " no ", 1)
        return "indefinite", finish(en, es, "?" if form == "yn" else ".")
    if r < 0.9:
        who_en, who_es, neg = rng.choice([("someone", "alguien", False), ("somebody", "alguien", False),
                                          ("nobody", "nadie", False), ("no one", "nadie", False),
                                          ("everyone", "todo el mundo", False), ("everybody", "todo el mundo", False)])
        pred_en, pred_es = rng.choice(INTRANSITIVE_SUBJ)
        return "indefinite", finish("%s %s" % (who_en, pred_en), "%s %s" % (who_es, pred_es))
    en, es, mark = rng.choice([
        ("something happened", "pasó algo", "."), ("nothing happened", "no pasó nada", "."),
        ("what happened", "qué pasó", "?"), ("did something happen", "pasó algo", "?"),
        ("what's happening", "qué está pasando", "?"), ("something has happened", "ha pasado algo", "."),
        ("nothing will happen", "no pasará nada", "."), ("what happens next", "qué pasa después", "?"),
        ("do you want anything else", "quieres algo más", "?"), ("nothing else, thanks", "nada más, gracias", "."),
        ("let's go somewhere else", "vamos a otro sitio", "."), ("I looked everywhere", "busqué por todas partes", "."),
        ("I can't find my keys anywhere", "no encuentro mis llaves por ninguna parte", "."),
        ("is there anything to eat", "hay algo de comer", "?"), ("there's nothing in the fridge", "no hay nada en la nevera", "."),
        ("is anyone home", "hay alguien en casa", "?"), ("someone is at the door", "hay alguien en la puerta", "."),
        ("everything is ready", "todo está listo", "."), ("everyone is here", "todos están aquí", "."),
        ("I need something to drink", "necesito algo de beber", "."), ("do you want something to eat", "quieres algo de comer", "?"),
        ("ask someone else", "pregúntale a otra persona", "."), ("I want something else", "quiero otra cosa", "."),
        ("everyone else was at home", "todos los demás estaban en casa", "."),
        ("nobody else came", "no vino nadie más", "."), ("is everything okay", "va todo bien", "?")])
    return "indefinite", finish(en, es, mark)


# Countable nouns: English singular, plural, Spanish singular, gender; mass nouns: English, Spanish, gender.
COUNT_NOUNS = [("apple", "apples", "manzana", "f"), ("egg", "eggs", "huevo", "m"), ("chair", "chairs", "silla", "f"),
               ("book", "books", "libro", "m"), ("friend", "friends", "amigo", "m"), ("question", "questions", "pregunta", "f"),
               ("problem", "problems", "problema", "m"), ("ticket", "tickets", "entrada", "f"), ("bag", "bags", "bolsa", "f"),
               ("glass", "glasses", "vaso", "m"), ("photo", "photos", "foto", "f"), ("towel", "towels", "toalla", "f"),
               ("plate", "plates", "plato", "m"), ("idea", "ideas", "idea", "f"), ("cousin", "cousins", "primo", "m"),
               ("tomato", "tomatoes", "tomate", "m"), ("room", "rooms", "habitación", "f"), ("day", "days", "día", "m")]
MASS_NOUNS = [("money", "dinero", "m"), ("time", "tiempo", "m"), ("milk", "leche", "f"), ("bread", "pan", "m"),
              ("work", "trabajo", "m"), ("sugar", "azúcar", "m"), ("coffee", "café", "m"), ("food", "comida", "f"),
              ("help", "ayuda", "f"), ("information", "información", "f"), ("rice", "arroz", "m"), ("homework", "deberes", "mp")]
BUYABLE = {"apple", "egg", "chair", "book", "ticket", "bag", "glass", "towel", "plate", "tomato", "milk",
           "bread", "sugar", "coffee", "food", "rice"}
QUANT_VERBS = [("have", "tener"), ("need", "necesitar"), ("want", "querer"), ("buy", "comprar")]


def quantified_object(rng, plural, gender, kind):
    """(English quantifier, Spanish quantifier) for a noun phrase."""
    table = {"some": ("some", "unos" if plural else ""), "a few": ("a few", "unos cuantos"),
             "a lot of": ("a lot of", "mucho"), "many": ("many", "muchos"), "enough": ("enough", "suficiente"),
             "more": ("more", "más"), "another": ("another", "otro"), "two": ("two", "dos"),
             "no": ("no", ""), "any": ("any", ""), "much": ("much", "mucho"), "less": ("less", "menos")}
    en, es = table[kind]
    if es in ("unos", "unos cuantos", "mucho", "muchos", "otro"):
        es = " ".join(agree(w, gender, plural) if w in ("unos", "cuantos", "mucho", "muchos", "otro")
                      and not w.endswith("s") else (w[:-2] + "as" if gender == "f" and w.endswith("os") else w)
                      for w in es.split(" "))
    if es == "suficiente" and plural:
        es = "suficientes"
    return en, es


def quantifiers(rng, draw_name, female):
    """"We need more chairs.", "I don't have any money.", "I want another
    coffee.", "Both my sisters live in London.", "Most of my friends ..."."""
    if rng.random() < 0.3:
        group = rng.choice([("friends", "amigos", "m"), ("sisters", "hermanas", "f"), ("brothers", "hermanos", "m"),
                            ("cousins", "primos", "m"), ("colleagues", "compañeros", "m"), ("children", "hijos", "m"),
                            ("neighbours", "vecinos", "m"), ("classmates", "compañeros de clase", "m")])
        q_en, q_es, person = rng.choice([("both my", "mis dos", P3P), ("both of my", "mis dos", P3P),
                                         ("all my", "todos mis", P3P), ("some of my", "algunos de mis", P3P),
                                         ("most of my", "la mayoría de mis", P3P), ("a few of my", "algunos de mis", P3P),
                                         ("none of my", "ninguno de mis", P3S), ("two of my", "dos de mis", P3P),
                                         ("many of my", "muchos de mis", P3P)])
        if group[2] == "f":
            q_es = q_es.replace("todos", "todas").replace("algunos", "algunas").replace("ninguno", "ninguna") \
                .replace("muchos", "muchas")
        subj = Subject("%s %s" % (q_en, group[0]), "%s %s" % (q_es, group[1]), person, group[2])
        c = draw_clause(rng, draw_name, female, subj=subj, form="stmt",
                        tense=rng.choice(["pres", "past", "perfect", "fut"]))
        if c is None or c.adverb or (q_en == "none of my" and c.neg):
            return None
        if q_en == "none of my":
            subj.en = "none of my " + group[0]
        return "quantifier", finish(*clause_pair(c))
    v_en, v_es = rng.choice(QUANT_VERBS)
    verb = Verb(v_en, v_es, [""], "s")
    subj = rng.choice(PRONOUN_SUBJECTS + NOUN_SUBJECTS[:10])
    if rng.random() < 0.6:
        n_sg, n_pl, es_sg, g = rng.choice(COUNT_NOUNS)
        kind = rng.choice(["some", "a few", "a lot of", "many", "enough", "more", "another", "two", "no", "any", "any"])
        plural = kind != "another"
        en_n, es_n = (n_pl, es_plural(es_sg)) if plural else (n_sg, es_sg)
    else:
        n_sg, es_n, g = rng.choice(MASS_NOUNS)
        kind = rng.choice(["some", "a lot of", "enough", "more", "no", "any", "any", "much", "less"])
        plural = g == "mp"
        g = g[0]
        en_n = n_sg
    neg = kind in ("any", "much") and rng.random() < 0.6
    form = "yn" if kind in ("any", "much") and not neg else "stmt"
    if kind == "no":
        neg = False
    q_en, q_es = quantified_object(rng, plural, g, kind)
    if v_en == "want" and kind in ("many", "no", "less"):
        return None
    if v_en in ("buy", "want") and n_sg not in BUYABLE and not (v_en == "want" and n_sg in ("help", "time", "money")):
        return None
    c = Clause(subj, verb, ("%s %s" % (q_en, en_n), " ".join(w for w in (q_es, es_n) if w)),
               rng.choice(["pres", "pres", "past", "fut"]) if v_en != "buy" else rng.choice(["past", "fut", "going_to"]),
               neg, form, contract=rng.random() < 0.8)
    en, es = clause_pair(c)
    if kind == "no":   # "We have no bread." -> "No tenemos pan."
        es = "no " + es if subj.pronoun else es.replace(subj.es + " ", subj.es + " no ", 1)
    return "quantifier", finish(en, es, "?" if form == "yn" else ".")


# Things described with ser / estar: English, Spanish, gender, plural, whether an event (past: fue).
DESCRIBED = [("the film", "la película", "f", False, True), ("the food", "la comida", "f", False, False),
             ("the hotel", "el hotel", "m", False, False), ("the room", "la habitación", "f", False, False),
             ("the exam", "el examen", "m", False, True), ("this book", "este libro", "m", False, False),
             ("the party", "la fiesta", "f", False, True), ("the trip", "el viaje", "m", False, True),
             ("the soup", "la sopa", "f", False, False), ("the shops", "las tiendas", "f", True, False),
             ("the museum", "el museo", "m", False, False), ("your flat", "tu piso", "m", False, False),
             ("the questions", "las preguntas", "f", True, False), ("the water", "el agua", "f", False, False),
             ("this city", "esta ciudad", "f", False, False), ("the streets", "las calles", "f", True, False),
             ("the concert", "el concierto", "m", False, True), ("the weather", "el tiempo", "m", False, False)]
# Adjectives: English, Spanish masculine, copula (ser / estar), which things they fit.
DESCRIPTIONS = [("good", "bueno", "ser", "film book exam party trip concert hotel"),
                ("boring", "aburrido", "ser", "film book exam party trip concert city museum"),
                ("interesting", "interesante", "ser", "film book trip museum city questions concert"),
                ("expensive", "caro", "ser", "hotel room shops flat trip food"),
                ("cheap", "barato", "ser", "hotel room shops flat food"),
                ("easy", "fácil", "ser", "exam questions"), ("difficult", "difícil", "ser", "exam questions"),
                ("big", "grande", "ser", "hotel room flat city museum"), ("small", "pequeño", "ser", "hotel room flat"),
                ("delicious", "delicioso", "estar", "food soup"), ("cold", "frío", "estar", "soup water food room"),
                ("hot", "caliente", "estar", "soup water food"), ("closed", "cerrado", "estar", "shops museum"),
                ("open", "abierto", "estar", "shops museum"), ("full", "lleno", "estar", "hotel streets museum"),
                ("empty", "vacío", "estar", "streets hotel museum room"), ("clean", "limpio", "estar", "room streets flat water"),
                ("dirty", "sucio", "estar", "room streets flat water"), ("beautiful", "precioso", "ser", "city film room flat"),
                ("long", "largo", "ser", "film trip exam concert"), ("quiet", "tranquilo", "ser", "city hotel streets"),
                ("noisy", "ruidoso", "ser", "city hotel streets room"), ("fun", "divertido", "ser", "party trip film concert")]
DEGREES = [("very", "muy"), ("really", "muy"), ("pretty", "bastante"), ("quite", "bastante"), ("so", "tan"),
           ("too", "demasiado"), ("a bit", "un poco"), ("extremely", "extremadamente"), ("", "")]
COPULA = {("ser", "pres"): ("es", "son"), ("ser", "past"): ("era", "eran"), ("ser", "event"): ("fue", "fueron"),
          ("ser", "fut"): ("será", "serán"), ("estar", "pres"): ("está", "están"), ("estar", "past"): ("estaba", "estaban"),
          ("estar", "fut"): ("estará", "estarán")}


def described(rng, draw_name, female):
    """"The film was really good.", "The soup is too cold.", "The shops
    aren't open.", with ser or estar as the adjective needs."""
    thing_en, thing_es, g, plural, event = rng.choice(DESCRIBED)
    key = thing_en.split(" ")[-1]
    fits = [d for d in DESCRIPTIONS if key in d[3].split()]
    if not fits:
        return None
    adj_en, adj_es, cop, _ = rng.choice(fits)
    deg_en, deg_es = rng.choice(DEGREES)
    tense = rng.choice(["pres", "pres", "past", "fut"])
    neg = rng.random() < 0.25
    if neg and deg_en in ("so", "extremely", "a bit", "pretty", "quite"):
        return None
    if deg_en == "a bit" and adj_en in ("good", "beautiful", "delicious", "interesting", "fun", "easy", "clean"):
        return None
    ctense = "event" if (cop == "ser" and tense == "past" and event) else tense
    es_cop = COPULA[(cop, ctense)][1 if plural else 0]
    en_cop = {"pres": "are" if plural else "is", "past": "were" if plural else "was", "fut": "will be"}[tense]
    if neg:
        en_cop = {"are": "aren't", "is": "isn't", "were": "weren't", "was": "wasn't", "will be": "won't be"}[en_cop]
    adj = agree(adj_es, g, plural)
    en = " ".join(w for w in (thing_en, en_cop, deg_en, adj_en) if w)
    es = " ".join(w for w in (thing_es, "no" if neg else "", es_cop, deg_es, adj) if w)
    if rng.random() < 0.2 and not neg:
        return "described", finish("%s %s?" % (en_cop, " ".join(w for w in (thing_en, deg_en, adj_en) if w))
                                   if False else en, es)
    return "described", finish(en, es)


BODY = [("head", "la cabeza", False), ("back", "la espalda", False), ("leg", "la pierna", False),
        ("arm", "el brazo", False), ("foot", "el pie", False), ("stomach", "el estómago", False),
        ("feet", "los pies", True), ("eyes", "los ojos", True), ("ear", "el oído", False),
        ("throat", "la garganta", False), ("knee", "la rodilla", False), ("tooth", "la muela", False),
        ("hand", "la mano", False), ("neck", "el cuello", False), ("legs", "las piernas", True)]


def body_hurts(rng, draw_name, female):
    """"My head hurts." -> "Me duele la cabeza.", "Does your back hurt?" ->
    "¿Te duele la espalda?"."""
    part, es_part, plural = rng.choice(BODY)
    who = rng.choice([("my", "me", P1S), ("your", "te", P2S), ("his", "le", P3S), ("her", "le", P3S),
                      ("our", "nos", P1P), ("their", "les", P3P)])
    if who[2] in (P1P, P3P) and part not in ("feet", "legs", "eyes"):
        return None
    tense = rng.choice(["pres", "pres", "past", "perfect"])
    es_v = {"pres": ("duele", "duelen"), "past": ("dolía", "dolían"), "perfect": ("ha dolido", "han dolido")}[tense][plural]
    third = not plural
    form = rng.choice(["stmt", "stmt", "yn", "neg"])
    if form == "yn" and who[0] == "my":
        return None
    en_v = {"pres": "hurts" if third else "hurt", "past": "hurt", "perfect": "has hurt" if third else "have hurt"}[tense]
    if form == "stmt":
        en = "%s %s %s" % (who[0], part, en_v)
        if tense == "perfect":
            return "body", finish(en + " all day", "%s %s %s todo el día" % (who[1], es_v, es_part))
        return "body", finish(en, "%s %s %s" % (who[1], es_v, es_part))
    if form == "neg":
        if tense == "perfect":
            return None
        aux = {"pres": "doesn't" if third else "don't", "past": "didn't"}[tense]
        return "body", finish("%s %s %s hurt anymore" % (who[0], part, aux) if tense == "pres" else
                              "%s %s %s hurt" % (who[0], part, aux),
                              "ya no %s %s %s" % (who[1], es_v, es_part) if tense == "pres" else
                              "no %s %s %s" % (who[1], es_v, es_part))
    aux = {"pres": "does" if third else "do", "past": "did", "perfect": "has" if third else "have"}[tense]
    main = {"pres": "hurt", "past": "hurt", "perfect": "hurt"}[tense]
    return "body", finish("%s %s %s %s" % (aux, who[0], part, main), "%s %s %s" % (who[1], es_v, es_part), "?")


# Affirmative tú imperatives of reflexive verbs, with the accent the clitic
# brings (the generator gives "sienta", the imperative alone).
REFLEXIVE_IMPERATIVE = {"sentar": "siéntate", "levantar": "levántate", "quedar": "quédate",
                        "despertar": "despiértate", "acostar": "acuéstate", "poner": "ponte",
                        "quitar": "quítate", "vestir": "vístete", "preocupar": "preocúpate",
                        "bajar": "bájate", "subir": "súbete"}


def request(rng, draw_name, female):
    """Imperatives, "please", "Can you ...?", "Could you ...?", "Let's ...",
    "Shall we ...?", "Would you like to ...?", "Don't ...", and a name or
    "Mum" in front ("Maria, can you help me?")."""
    verb = rng.choice([v for v in VERBS if not v.no_imperative])
    you = PRONOUN_SUBJECTS[1]
    comp = fill_complement(you, rng.choice(verb.complements))
    if comp is None:
        return None
    comp_en, comp_es = comp
    clitic = comp_es[1:] if comp_es.startswith("@") else ""
    if clitic:
        comp_es = ""
    kind = rng.choice(["imperative", "imperative", "dont", "can you", "could you", "lets", "shall we",
                       "would you like", "do you want"])
    base = verb.forms["base"]
    if kind == "imperative":
        if clitic or (verb.reflexive and verb.es not in REFLEXIVE_IMPERATIVE):
            return None
        es_v = REFLEXIVE_IMPERATIVE[verb.es] if verb.reflexive else es_verb(verb.es, "<imp><p2><sg>")
        en, es, mark = " ".join(w for w in (base, comp_en) if w), " ".join(w for w in (es_v, comp_es) if w), "."
        if verb.en in ("come", "sit down", "wait", "look for", "help") and rng.random() < 0.3:
            mark = "!"
    elif kind == "dont":
        pre = " ".join(([REFLEXIVE[P2S]] if verb.reflexive else []) + ([clitic] if clitic else []))
        es_v = (pre + " " if pre else "") + es_finite(verb.es, "prs", P2S)
        en = " ".join(w for w in (rng.choice(["don't", "don't", "do not"]), base, comp_en) if w)
        es, mark = " ".join(w for w in ("no", es_v, comp_es) if w), rng.choice([".", "!"])
    elif kind in ("can you", "could you", "would you like", "do you want"):
        head = {"can you": "puedes", "could you": "podrías", "would you like": "te gustaría",
                "do you want": "quieres"}[kind]
        inf = es_verb(verb.es, "<inf>") + (REFLEXIVE[P2S] if verb.reflexive else "") + clitic
        en_head = {"would you like": "would you like to", "do you want": "do you want to"}.get(kind, kind)
        en, es, mark = " ".join(w for w in (en_head, base, comp_en) if w), " ".join(w for w in (head, inf, comp_es) if w), "?"
    else:   # let's / shall we: vamos a + infinitive, or the present ("¿Comemos fuera?")
        if clitic == "nos":
            return None
        if kind == "lets":
            if verb.es == "ir":
                es = " ".join(w for w in ("vamos", comp_es) if w)
            else:
                es = " ".join(w for w in ("vamos a", es_verb(verb.es, "<inf>") + (REFLEXIVE[P1P] if verb.reflexive else "")
                                          + clitic, comp_es) if w)
            en, mark = " ".join(w for w in ("let's", base, comp_en) if w), "."
        else:
            pre = " ".join(([REFLEXIVE[P1P]] if verb.reflexive else []) + ([clitic] if clitic else []))
            es = " ".join(w for w in (pre, es_finite(verb.es, "pri", P1P), comp_es) if w)
            en, mark = " ".join(w for w in ("shall we", base, comp_en) if w), "?"
    please = rng.random() < 0.25 and kind in ("imperative", "can you", "could you")
    if please:
        if rng.random() < 0.5 or kind != "imperative":
            en, es = en + ", please", es + ", por favor"
        else:
            en, es = "please " + en, "por favor, " + es
    cons = "request"
    if rng.random() < 0.2:   # a vocative first
        name = rng.choice([(n, n) for n in (draw_name(), draw_name())] + [("Mum", "Mamá"), ("Dad", "Papá")])
        en_out, es_out = finish(en, es, mark)
        first_es = es_out[1:2].lower() if es_out[0] in "¿¡" else ""
        es_body = (es_out[0] + first_es + es_out[2:]) if first_es else es_out[0].lower() + es_out[1:]
        return "vocative", (name[0] + ", " + en_out[0].lower() + en_out[1:], name[1] + ", " + elide(es_body))
    return cons, finish(en, es, mark)


# Fixed everyday expressions and short replies, each used once.
EXPRESSIONS = [
    ("That's great!", "¡Genial!"), ("How nice!", "¡Qué bonito!"), ("What a surprise!", "¡Qué sorpresa!"),
    ("What a pity!", "¡Qué pena!"), ("Be careful!", "¡Ten cuidado!"), ("Good luck!", "¡Buena suerte!"),
    ("Happy birthday!", "¡Feliz cumpleaños!"), ("Of course.", "Por supuesto."), ("No problem.", "No hay problema."),
    ("See you tomorrow!", "¡Hasta mañana!"), ("See you later!", "¡Hasta luego!"), ("Never mind.", "No importa."),
    ("I don't mind.", "No me importa."), ("It doesn't matter.", "No importa."), ("Don't worry.", "No te preocupes."),
    ("Hurry up!", "¡Date prisa!"), ("Come in!", "¡Pasa!"), ("Excuse me.", "Perdona."), ("Just a moment.", "Un momento."),
    ("What's wrong?", "¿Qué pasa?"), ("What's the matter?", "¿Qué te pasa?"), ("Are you okay?", "¿Estás bien?"),
    ("I'm fine, thanks.", "Estoy bien, gracias."), ("I think so.", "Creo que sí."), ("I don't think so.", "Creo que no."),
    ("I hope so.", "Eso espero."), ("Me too.", "Yo también."), ("Me neither.", "Yo tampoco."),
    ("I'm not sure.", "No estoy seguro."), ("I have no idea.", "No tengo ni idea."), ("Let me know.", "Avísame."),
    ("Let me help you.", "Déjame ayudarte."), ("Keep the change.", "Quédese con el cambio."),
    ("What do you mean?", "¿Qué quieres decir?"), ("How about tomorrow?", "¿Qué tal mañana?"),
    ("What about you?", "¿Y tú?"), ("That's very kind of you.", "Es muy amable por tu parte."),
    ("What kind of music do you like?", "¿Qué tipo de música te gusta?"), ("It's up to you.", "Tú decides."),
    ("Do you mind if I open the window?", "¿Te importa si abro la ventana?"),
    ("Can I ask you something?", "¿Puedo preguntarte algo?"), ("Take care!", "¡Cuídate!"),
    ("Have a nice day!", "¡Que tengas un buen día!"), ("Have a good trip!", "¡Buen viaje!"),
    ("Enjoy your meal!", "¡Que aproveche!"), ("Welcome home!", "¡Bienvenido a casa!"),
    ("It's not my fault.", "No es culpa mía."), ("I agree with you.", "Estoy de acuerdo contigo."),
    ("I changed my mind.", "He cambiado de opinión."), ("Whatever you want.", "Lo que tú quieras."),
    ("What a beautiful day!", "¡Qué día tan bonito!"), ("What a lovely house!", "¡Qué casa tan bonita!"),
    ("What a good idea!", "¡Qué buena idea!"), ("What a mess!", "¡Qué desastre!"), ("How strange!", "¡Qué raro!"),
    ("How exciting!", "¡Qué emocionante!"), ("That's too bad.", "Qué lástima."), ("Good job!", "¡Buen trabajo!"),
    ("It's getting late.", "Se está haciendo tarde."), ("It's time to go.", "Es hora de irse."),
    ("I'm on my way.", "Estoy de camino."), ("Here you are.", "Aquí tienes."), ("Wait a minute.", "Espera un momento."),
    ("Not yet.", "Todavía no."), ("Not really.", "La verdad es que no."), ("Maybe later.", "Quizás más tarde."),
    ("Nice to meet you.", "Encantado de conocerte."), ("How was your day?", "¿Qué tal tu día?"),
    ("How was the trip?", "¿Qué tal el viaje?"), ("What's the weather like?", "¿Qué tiempo hace?"),
    ("What is the film about?", "¿De qué trata la película?"), ("Whose bag is this?", "¿De quién es esta bolsa?"),
    ("Whose keys are these?", "¿De quién son estas llaves?"), ("Which one do you want?", "¿Cuál quieres?"),
    ("Which bus goes to the airport?", "¿Qué autobús va al aeropuerto?"), ("Which is your car?", "¿Cuál es tu coche?"),
    ("How much is it?", "¿Cuánto es?"), ("How much does it cost?", "¿Cuánto cuesta?"),
    ("How much money do you need?", "¿Cuánto dinero necesitas?"), ("How long does it take?", "¿Cuánto tiempo se tarda?"),
    ("How far is the station?", "¿A qué distancia está la estación?"), ("It's over there.", "Está allí."),
    ("The film is over.", "La película ha terminado."), ("I have the day off tomorrow.", "Mañana tengo el día libre."),
    ("There were over a hundred people.", "Había más de cien personas."), ("About twenty people came.", "Vinieron unas veinte personas."),
    ("It takes about an hour.", "Se tarda una hora más o menos."), ("I can do it myself.", "Puedo hacerlo yo mismo."),
    ("She made the cake herself.", "Hizo la tarta ella misma."), ("Did you hurt yourself?", "¿Te has hecho daño?"),
    ("He lives by himself.", "Vive solo."), ("Help yourself.", "Sírvete."), ("Go away!", "¡Vete!"),
    ("The dog ran away.", "El perro se escapó."), ("Get off the bus at the next stop.", "Bájate del autobús en la próxima parada."),
    ("I'll call you back.", "Te devuelvo la llamada."), ("Give it back to me.", "Devuélvemelo."),
    ("Put your coat on.", "Ponte el abrigo."), ("Turn the music down, please.", "Baja la música, por favor."),
    ("Slow down!", "¡Más despacio!"), ("Calm down.", "Tranquilo."), ("Cheer up!", "¡Ánimo!"),
]


def expression(rng, draw_name, female):
    en, es = rng.choice(EXPRESSIONS)
    return "expression", (en, es)


DURATION_VERBS = [("live", "vivir", "in Madrid", "en Madrid"), ("live", "vivir", "here", "aquí"),
                  ("work", "trabajar", "in this company", "en esta empresa"), ("work", "trabajar", "here", "aquí"),
                  ("study", "estudiar", "Spanish", "español"), ("know", "conocer", "her", "@la"),
                  ("know", "conocer", "him", "@lo"), ("have", "tener", "this car", "este coche"),
                  ("play", "tocar", "the guitar", "la guitarra"), ("wait", "esperar", "", "")]
DURATIONS = [("for two years", "desde hace dos años"), ("for a long time", "desde hace mucho tiempo"),
             ("since 2015", "desde 2015"), ("since Monday", "desde el lunes"), ("for three months", "desde hace tres meses"),
             ("since I was a child", "desde que era {niño}"), ("for an hour", "desde hace una hora"),
             ("since last summer", "desde el verano pasado"), ("for ten minutes", "desde hace diez minutos")]


def duration(rng, draw_name, female):
    """The present perfect of duration, which Spanish says in the present:
    "I have lived here for two years." -> "Vivo aquí desde hace dos
    años."; "How long have you lived here?" -> "¿Cuánto tiempo llevas
    viviendo aquí?"."""
    v_en, v_es, c_en, c_es = rng.choice(DURATION_VERBS)
    subj = rng.choice(PRONOUN_SUBJECTS + NOUN_SUBJECTS[:8])
    pp = english_forms(v_en)["pp"]
    if rng.random() < 0.3:   # How long ...?
        if c_es.startswith("@") or subj.person == P1S:
            return None
        aux = HAVE[subj.person]
        en = "how long %s %s %s %s" % (aux, subj.en, pp if v_en != "wait" else "been waiting", c_en)
        es = "cuánto tiempo %s %s %s" % (es_finite("llevar", "pri", subj.person), es_verb(v_es, "<ger>"), c_es)
        if not subj.pronoun:
            es = "cuánto tiempo %s %s %s %s" % (es_finite("llevar", "pri", subj.person), subj.es,
                                               es_verb(v_es, "<ger>"), c_es)
        return "duration", finish(en.strip(), es.strip(), "?")
    d_en, d_es = rng.choice(DURATIONS)
    if v_en == "wait" and not d_en.startswith("for"):
        return None
    d_es = fill_agreement(d_es, subj.gender, False)
    first = SUBJECT_CONTRACTIONS.get((subj.en, HAVE[subj.person]), "%s %s" % (subj.en, HAVE[subj.person])) \
        if rng.random() < 0.6 else "%s %s" % (subj.en, HAVE[subj.person])
    en = "%s %s %s %s" % (first, "been waiting" if v_en == "wait" else pp, c_en, d_en)
    clitic = c_es[1:] + " " if c_es.startswith("@") else ""
    obj = "" if clitic else c_es
    verb_es = clitic + es_finite(v_es, "pri", subj.person)
    es = " ".join(w for w in (subj.es, verb_es, obj, d_es) if w)
    return "duration", finish(re.sub(" +", " ", en), es)


# ---------------------------------------------------------------------------
# Words to copy.  A translator copies a name, a brand or a word it cannot
# know; a model that never saw one copied invents a Spanish-looking word
# ("Emily" -> "Comedo").  These sentences put made-up names in the places
# where names stand, and the Spanish copies them.

SYLLABLES_ONSET = ["b", "br", "d", "dr", "f", "g", "gl", "k", "kl", "l", "m", "n", "p", "pl", "qu", "r", "s",
                   "st", "t", "tr", "v", "z", "zh", "sk", "th"]
SYLLABLES_VOWEL = ["a", "e", "i", "o", "u", "ai", "ou", "ee", "y"]
SYLLABLES_CODA = ["", "", "n", "r", "l", "x", "k", "m", "sh", "t"]
COPY_FRAMES = [("I work at {X}", "trabajo en {X}"), ("we stayed at the {X} Hotel", "nos alojamos en el hotel {X}"),
               ("have you tried {X}", "has probado {X}", "?"), ("my dog is called {X}", "mi perro se llama {X}"),
               ("{X} is my new neighbour", "{X} es mi nuevo vecino"), ("do you know {X}", "conoces a {X}", "?"),
               ("I downloaded {X} yesterday", "ayer descargué {X}"), ("we flew to {X} last year", "el año pasado volamos a {X}"),
               ("{X} called you this morning", "{X} te llamó esta mañana"), ("I bought it at {X}", "lo compré en {X}"),
               ("the {X} app doesn't work", "la aplicación {X} no funciona"), ("where is {X}", "dónde está {X}", "?"),
               ("my username is {X}", "mi nombre de usuario es {X}"), ("{X} and {Y} are getting married", "{X} y {Y} se van a casar"),
               ("I'm reading a book by {X}", "estoy leyendo un libro de {X}"), ("{X} is a small town in the north",
                                                                                 "{X} es un pueblo pequeño del norte"),
               ("say hello to {X} from me", "saluda a {X} de mi parte"), ("this is {X}", "este es {X}")]


def made_up_name(rng):
    """A pronounceable word that is no English or Spanish word one knows:
    "Brelmo", "Quiblet"."""
    n = rng.choice([2, 2, 3])
    word = "".join(rng.choice(SYLLABLES_ONSET) + rng.choice(SYLLABLES_VOWEL) for _ in range(n))
    word += rng.choice(SYLLABLES_CODA)
    return word[0].upper() + word[1:]


def copied(rng, draw_name, female):
    frame = rng.choice(COPY_FRAMES)
    x, y = made_up_name(rng), made_up_name(rng)
    en = frame[0].replace("{X}", x).replace("{Y}", y)
    es = frame[1].replace("{X}", x).replace("{Y}", y)
    return "copy", finish(en, es, frame[2] if len(frame) > 2 else ".")


FAMILIES = [(clause_sentence, 40), (subordinate, 12), (relative, 7), (indirect_question, 6), (indefinite, 9),
            (quantifiers, 7), (described, 6), (body_hurts, 2), (request, 8), (duration, 3), (copied, 3)]


def sentences(rng, count, draw_name, female):
    """COUNT distinct (construction, English, Spanish) triples from all
    families, and each fixed expression once."""
    prefetch(sorted({v.es for v in VERBS} | {l for _, l in THING_VERBS + PERSON_VERBS + QUANT_VERBS} |
                    {l for _, l, _, _ in DURATION_VERBS} | {"estar", "haber", "ir", "poder", "deber", "tener",
                                                             "querer", "necesitar", "acabar", "llevar"}))
    seen, out = set(), []
    for en, es in EXPRESSIONS:
        seen.add(en)
        out.append(("expression", en, es))
    makers, weights = zip(*FAMILIES)
    tries = 0
    while len(out) < count and tries < count * 30:
        tries += 1
        made = rng.choices(makers, weights)[0](rng, draw_name, female)
        if made is None:
            continue
        cons, (en, es) = made
        if en in seen:
            continue
        seen.add(en)
        out.append((cons, en, es))
    return out[:count]

