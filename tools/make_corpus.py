#!/usr/bin/env python3
"""make_corpus.py -- deterministic English->Spanish parallel corpus generator.

WHAT IT IS
    Transformer Explorer trains/visualises a small translation Transformer.
    This script builds its toy English->Spanish corpus:

      1. English sentences are generated from a small hand-written grammar
         whose lexicon carries semantic classes (person / animal / food /
         drink / thing / place), so that subjects can actually do what the
         verb says (people read books, dogs do not) and objects fit the verb
         (you eat food, drink drinks, visit places).  Constructions:
         transitive / intransitive verbs, present / past / future ("will"),
         negation ("does not", "did not", "will not"), singular / plural
         nouns, 0-2 adjectives, prepositional phrases, adverbs, pronoun
         subjects, possessives, predicative adjectives and yes/no questions.
      2. They are translated with Apertium (mode `eng-spa`) in big batches and
         the Spanish is translated back (mode `spa-eng`).  A pair is kept only
         if the back-translation equals the English exactly (see
         `roundtrip_ok` for the two Spanish ambiguities we tolerate), no
         unknown-word marks (*, #, @) appear, and the Spanish passes a
         morphological check (every English content word has a Spanish word
         whose lemma is a dictionary translation with the right part of
         speech, and the main verb has the right tense/person/number).
         Yes/no questions are translated through their declarative form
         ("Do you see the dog?" -> "You see the dog." -> "Ves el perro." ->
         "¿Ves el perro?"), because Apertium cannot translate English
         do-support questions; Spanish yes/no questions need no inversion.
      3. Everything is deterministic from --seed.

HOW TO RUN
    Needs the Debian packages `apertium` and `apertium-eng-spa` and plain
    python3 (stdlib only).  Apertium is only needed to REGENERATE the corpus;
    the app never calls it.

        python3 tools/make_corpus.py                    # defaults below
        python3 tools/make_corpus.py --seed 1 --train 120000 --valid 2000 \
            --test 2000 --out assets/corpus/en-es

    Runs in a few minutes on one core (Apertium does ~4000 lines/s).

OUTPUTS (in --out, default assets/corpus/en-es/; UTF-8, '\n' line ends,
no header, no tabs inside sentences)
    train.tsv, valid.tsv, test.tsv
        one pair per line:   English<TAB>Spanish
    test.align.tsv
        one line per test.tsv line, same order:
        English<TAB>Spanish<TAB>pairs
        pairs = space-separated "s-e" = Spanish word index s <-> English word
        index e (0-based), words = tokens of the Python regex r"\\w+|[^\\w\\s]"
        on each side (so "¿" and "." are words).  Only content words (nouns,
        lexical verbs, adjectives, adverbs) are linked, only 1-to-1
        unambiguous links; "pairs" may be empty.
    stats.txt
        the filter statistics printed at the end of the run.
    (README.md next to these files is written by hand/updated from stats.)
"""

import argparse
import collections
import os
import random
import re
import subprocess
import sys
import time

APERTIUM_DIR = "/usr/share/apertium/apertium-eng-spa"
ENG_MORF = os.path.join(APERTIUM_DIR, "eng-spa.automorf.bin")
ENG_SPA_BIDIX = os.path.join(APERTIUM_DIR, "eng-spa.autobil.bin")
SPA_MORF = os.path.join(APERTIUM_DIR, "spa-eng.automorf.bin")

TOKEN_RE = re.compile(r"\w+|[^\w\s]")

# ---------------------------------------------------------------------------
# Lexicon.
# Nouns: (singular, plural or None for mass nouns, class)
# ---------------------------------------------------------------------------
NOUNS = [
    # people
    ("man", "men", "person"), ("woman", "women", "person"),
    ("boy", "boys", "person"), ("girl", "girls", "person"),
    ("doctor", "doctors", "person"), ("student", "students", "person"),
    ("brother", "brothers", "person"), ("sister", "sisters", "person"),
    ("father", "fathers", "person"), ("mother", "mothers", "person"),
    ("king", "kings", "person"), ("queen", "queens", "person"),
    ("farmer", "farmers", "person"), ("worker", "workers", "person"),
    ("writer", "writers", "person"), ("singer", "singers", "person"),
    ("neighbour", "neighbours", "person"), ("cook", "cooks", "person"),
    ("son", "sons", "person"), ("daughter", "daughters", "person"),
    ("uncle", "uncles", "person"), ("aunt", "aunts", "person"),
    ("soldier", "soldiers", "person"), ("lawyer", "lawyers", "person"),
    ("nurse", "nurses", "person"), ("artist", "artists", "person"),
    # animals
    ("dog", "dogs", "animal"), ("cat", "cats", "animal"),
    ("horse", "horses", "animal"), ("bird", "birds", "animal"),
    ("cow", "cows", "animal"), ("mouse", "mice", "animal"),
    ("rabbit", "rabbits", "animal"), ("pig", "pigs", "animal"),
    ("duck", "ducks", "animal"), ("lion", "lions", "animal"),
    ("bear", "bears", "animal"), ("goat", "goats", "animal"),
    ("wolf", "wolves", "animal"), ("monkey", "monkeys", "animal"),
    ("chicken", "chickens", "animal"), ("donkey", "donkeys", "animal"),
    # food (eatable)
    ("apple", "apples", "food"), ("bread", None, "food"),
    ("cake", "cakes", "food"), ("egg", "eggs", "food"),
    ("orange", "oranges", "food"), ("cheese", None, "food"),
    ("soup", None, "food"),
    ("rice", None, "food"), ("banana", "bananas", "food"),
    ("sandwich", "sandwiches", "food"), ("potato", "potatoes", "food"),
    ("tomato", "tomatoes", "food"), ("cookie", "cookies", "food"),
    ("pear", "pears", "food"), ("carrot", "carrots", "food"),
    ("fish", None, "food"),
    # drinks
    ("water", None, "drink"), ("milk", None, "drink"),
    ("coffee", None, "drink"), ("tea", None, "drink"),
    ("juice", None, "drink"), ("wine", None, "drink"),
    ("beer", None, "drink"),
    # things (movable objects)
    ("book", "books", "thing"), ("pen", "pens", "thing"),
    ("box", "boxes", "thing"), ("bag", "bags", "thing"),
    ("ball", "balls", "thing"),
    ("hat", "hats", "thing"), ("chair", "chairs", "thing"),
    ("table", "tables", "thing"), ("car", "cars", "vehicle"),
    ("bicycle", "bicycles", "vehicle"), ("clock", "clocks", "thing"),
    ("picture", "pictures", "thing"), ("lamp", "lamps", "thing"),
    ("shoe", "shoes", "thing"), ("shirt", "shirts", "thing"),
    ("door", "doors", "thing"), ("window", "windows", "thing"),
    ("newspaper", "newspapers", "thing"), ("song", "songs", "song"),
    ("map", "maps", "thing"), ("bed", "beds", "thing"),
    ("computer", "computers", "thing"), ("umbrella", "umbrellas", "thing"),
    ("dress", "dresses", "thing"), ("knife", "knives", "thing"),
    ("flower", "flowers", "thing"), ("tree", "trees", "plant"),
    ("boat", "boats", "vehicle"), ("train", "trains", "vehicle"),
    # places
    ("house", "houses", "place"), ("garden", "gardens", "place"),
    ("park", "parks", "place"), ("city", "cities", "place"),
    ("school", "schools", "place"), ("church", "churches", "place"),
    ("street", "streets", "place"), ("river", "rivers", "place"),
    ("forest", "forests", "place"), ("village", "villages", "place"),
    ("beach", "beaches", "place"),
    ("office", "offices", "place"), ("library", "libraries", "place"),
    ("hospital", "hospitals", "place"), ("museum", "museums", "place"),
    ("restaurant", "restaurants", "place"), ("hotel", "hotels", "place"),
    ("bridge", "bridges", "place"), ("castle", "castles", "place"),
    ("mountain", "mountains", "place"), ("lake", "lakes", "place"),
]

# Places that can follow "in the" / "near the" / "to the" sensibly (all do).
# Things that can be a location for "under the X" / "on the X".
# "in the X" (places you can be inside / at), "on the X", "under the X",
# "behind the X"; "to the X" takes any place.
IN_PLACES = ["house", "garden", "park", "city", "school", "church", "village",
             "office", "library", "hospital", "museum", "restaurant", "hotel",
             "castle", "forest", "beach"]
ON_THINGS = ["bed", "chair", "boat", "train"]
UNDER_THINGS = ["table", "tree", "bridge", "bed"]
BEHIND_THINGS = ["house", "school", "church", "castle", "hotel", "tree"]

ANIMATE = ("person", "animal")
EDIBLE = ("food",)

# Transitive verbs: (base, 3sg, past, subject classes, object classes)
# Objects are never people (Spanish would need the personal "a", which
# Apertium does not insert).
VERBS_T = [
    ("see", "sees", "saw", ANIMATE, ("animal", "thing", "place", "food", "vehicle", "plant")),
    ("eat", "eats", "ate", ANIMATE, ("food",)),
    ("drink", "drinks", "drank", ANIMATE, ("drink",)),
    ("want", "wants", "wanted", ANIMATE, ("food", "drink", "thing", "car", "bicycle")),
    ("find", "finds", "found", ANIMATE, ("thing", "food", "animal")),
    ("buy", "buys", "bought", ("person",), ("food", "drink", "thing", "animal", "car", "bicycle", "boat")),
    ("sell", "sells", "sold", ("person",), ("food", "drink", "thing", "animal", "car", "bicycle", "boat")),
    ("read", "reads", "read", ("person",), ("book", "newspaper", "map")),
    ("write", "writes", "wrote", ("person",), ("book", "song")),
    ("open", "opens", "opened", ("person",), ("door", "window", "box", "bag", "bottle", "book")),
    ("close", "closes", "closed", ("person",), ("door", "window", "box", "bag", "book")),
    ("lose", "loses", "lost", ("person",), ("pen", "bag", "hat", "shoe", "map", "book", "umbrella", "newspaper", "knife", "ball", "picture")),
    ("visit", "visits", "visited", ("person",), ("place",)),
    ("clean", "cleans", "cleaned", ("person",), ("thing", "vehicle", "house", "office", "school", "church", "hotel", "restaurant", "street")),
    ("cook", "cooks", "cooked", ("person",), ("soup", "rice", "fish", "egg", "potato", "carrot", "tomato")),
    ("paint", "paints", "painted", ("person",), ("chair", "table", "door", "window", "box", "bed", "car", "bicycle", "boat", "house", "church", "school", "picture", "flower", "tree")),
    ("wash", "washes", "washed", ("person",), ("shirt", "dress", "hat", "shoe", "car", "bicycle", "window", "door", "table", "chair", "dog", "horse", "cat", "apple", "pear", "potato", "carrot", "tomato")),
    ("build", "builds", "built", ("person",), ("house", "school", "church", "bridge", "castle", "hotel", "boat", "table", "chair", "farm", "shop")),
    ("need", "needs", "needed", ("person",), ("thing", "food", "drink", "car", "bicycle")),
    ("use", "uses", "used", ("person",), ("pen", "computer", "map", "knife", "umbrella", "car", "bicycle", "book", "lamp", "box", "bag")),
    ("break", "breaks", "broke", ("person",), ("window", "door", "chair", "table", "clock", "lamp", "computer", "umbrella", "pen", "bicycle", "car", "box")),
    ("bring", "brings", "brought", ("person",), ("thing", "food", "drink")),
    ("prepare", "prepares", "prepared", ("person",), ("food", "coffee", "tea", "juice")),
    ("hear", "hears", "heard", ANIMATE, ("animal", "song", "train", "clock")),
    ("feed", "feeds", "fed", ("person",), ("animal",)),
    ("follow", "follows", "followed", ANIMATE, ("animal", "vehicle", "river", "street")),
    ("sing", "sings", "sang", ("person",), ("song",)),
    ("draw", "draws", "drew", ("person",), ("animal", "thing", "place", "vehicle", "plant")),
]

# Intransitive verbs: (base, 3sg, past, subject classes, kinds of PP allowed)
# PP kinds: "loc" (in/on/under/behind, see IN_PLACES etc. below),
#           "dir" (to the PLACE)
VERBS_I = [
    ("sleep", "sleeps", "slept", ANIMATE, ("loc",)),
    ("run", "runs", "ran", ANIMATE, ("loc", "dir")),
    ("walk", "walks", "walked", ANIMATE, ("loc", "dir")),
    ("sing", "sings", "sang", ("person", "bird"), ("loc",)),
    ("laugh", "laughs", "laughed", ("person",), ("loc",)),

    ("arrive", "arrives", "arrived", ANIMATE, ()),
    ("go", "goes", "went", ANIMATE, ("dir",)),
    ("live", "lives", "lived", ANIMATE, ("loc",)),
    ("eat", "eats", "ate", ANIMATE, ("loc",)),
    ("rest", "rests", "rested", ANIMATE, ("loc",)),
    ("study", "studies", "studied", ("person",), ("loc",)),
    ("travel", "travels", "travelled", ("person",), ("dir",)),
    ("return", "returns", "returned", ANIMATE, ("dir",)),
    ("write", "writes", "wrote", ("person",), ("loc",)),
    ("read", "reads", "read", ("person",), ("loc",)),
]

# Adjectives: (word, category, noun classes it fits, predicative?)
# Category gives English order (opinion < size < age < colour) and at most
# one adjective per category is used.
ADJ_ORDER = {"opinion": 0, "size": 1, "age": 2, "colour": 3}
ALL = ("person", "animal", "food", "drink", "thing", "place")
ADJS = [
    ("beautiful", "opinion", ("person", "animal", "thing", "place"), True),
    ("expensive", "opinion", ("thing", "food", "drink"), True),
    ("cheap", "opinion", ("thing", "food", "drink"), True),
    ("clean", "opinion", ("thing", "vehicle", "place"), False),
    ("happy", "opinion", ("person", "animal"), True),
    ("sad", "opinion", ("person", "animal"), True),
    ("tired", "opinion", ("person", "animal"), False),
    ("hot", "opinion", ("soup", "coffee", "tea", "water", "milk", "rice"), False),
    ("cold", "opinion", ("soup", "coffee", "tea", "water", "milk", "juice", "beer", "wine"), False),
    ("fresh", "opinion", ("food", "juice", "milk", "water"), True),
    ("sweet", "opinion", ("cake", "apple", "orange", "banana", "pear", "cookie", "wine", "juice", "tea", "coffee"), True),
    ("heavy", "opinion", ("box", "bag", "table", "chair", "bed", "computer", "book", "lamp", "car", "boat"), True),
    ("strong", "opinion", ("person", "animal", "coffee", "tea", "wine", "beer"), True),
    ("famous", "opinion", ("person", "place"), True),
    ("poor", "opinion", ("person",), True),
    ("rich", "opinion", ("person",), True),
    ("dangerous", "opinion", ("lion", "bear", "wolf", "dog", "horse", "river", "street", "forest", "mountain", "lake", "city", "bridge", "knife"), True),
    ("big", "size", ("person", "animal", "thing", "vehicle", "plant", "place", "food"), True),
    ("small", "size", ("person", "animal", "thing", "vehicle", "plant", "place", "food"), True),
    ("tall", "size", ("person", "tree"), True),
    ("long", "size", ("river", "street", "bridge", "train", "dress", "table", "boat", "book", "song", "knife"), True),
    ("old", "age", ("person", "animal", "thing", "vehicle", "plant", "place", "song"), True),
    ("young", "age", ("person", "animal"), True),
    ("new", "age", ("thing", "vehicle", "place", "song"), True),
    ("red", "colour", ("thing", "vehicle", "apple", "tomato", "wine", "house", "door"), True),
    ("white", "colour", ("thing", "vehicle", "animal", "house", "church", "castle", "hotel", "wine"), True),
    ("black", "colour", ("thing", "vehicle", "animal"), True),
    ("green", "colour", ("thing", "vehicle", "apple", "pear", "tree"), True),
    ("blue", "colour", ("thing", "vehicle", "house", "door"), True),
    ("yellow", "colour", ("thing", "vehicle", "banana", "pear", "house"), True),
    ("brown", "colour", ("thing", "animal"), True),
]

# Adverbs: manner (sentence-final), frequency (before the verb), time (final).
ADV_MANNER = ["quickly", "slowly", "quietly", "carefully", "well", "again"]
# verbs that take no manner adverb (states, not actions)
STATIVE = {"see", "want", "need", "hear", "find", "lose", "live", "arrive"}
ADV_FREQ = ["often", "always", "sometimes", "never", "usually"]
# time adverb -> tenses it is compatible with
ADV_TIME = {"today": ("pres", "past", "fut"), "yesterday": ("past",),
            "tomorrow": ("fut",), "now": ("pres",)}

PRONOUNS = {  # subject pronoun -> (person, number)
    "I": (1, "sg"), "you": (2, "sg"), "he": (3, "sg"), "she": (3, "sg"),
    "we": (1, "pl"), "they": (3, "pl"),
}
POSSESSIVES = ["my", "your", "his", "her", "our", "their"]

NOUN_BY_WORD = {n[0]: n for n in NOUNS}
PLACES = [n for n in NOUNS if n[2] == "place"]


def fits(noun, classes):
    """A noun fits a class list if its class or its own word is listed."""
    return noun[2] in classes or noun[0] in classes


# ---------------------------------------------------------------------------
# Sentence building.  A sentence is a list of tokens (word, lemma, pos) where
# pos is one of n / v / adj / adv for content words and None otherwise.
# ---------------------------------------------------------------------------
def tok(word, lemma=None, pos=None):
    return (word, lemma, pos)


class Gen:
    def __init__(self, rng):
        self.rng = rng

    def choice(self, seq):
        return self.rng.choice(seq)

    def adjectives(self, noun, max_n=2):
        r = self.rng.random()
        n = 0 if r < 0.5 else (1 if r < 0.85 else 2)
        n = min(n, max_n)
        cands = [a for a in ADJS if fits(noun, a[2])
                 and not (noun[1] is None and a[1] == "size")]
        chosen, cats = [], set()
        for _ in range(n):
            opts = [a for a in cands if a[1] not in cats]
            if not opts:
                break
            a = self.choice(opts)
            chosen.append(a)
            cats.add(a[1])
        chosen.sort(key=lambda a: ADJ_ORDER[a[1]])
        return chosen

    def np(self, noun, feats, allow_plural=True, allow_poss=True,
           det_kinds=("the", "a", "poss", "bare")):
        """Noun phrase for `noun`. Returns (tokens, number)."""
        plural = noun[1] is not None and allow_plural and self.rng.random() < 0.35
        mass = noun[1] is None
        adjs = self.adjectives(noun)
        if adjs:
            feats.add("adj%d" % len(adjs))
        r = self.rng.random()
        if allow_poss and "poss" in det_kinds and r < 0.2:
            det = self.choice(POSSESSIVES)
            feats.add("possessive")
        elif (mass or plural) and "bare" in det_kinds and r < 0.4:
            det = None
        elif not (mass or plural) and "a" in det_kinds and r < 0.45:
            first = (adjs[0][0] if adjs else noun[0])
            det = "an" if first[0] in "aeiou" else "a"
        else:
            det = "the"
        toks = []
        if det:
            toks.append(tok(det))
        for a in adjs:
            toks.append(tok(a[0], a[0], "adj"))
        word = noun[1] if plural else noun[0]
        toks.append(tok(word, noun[0], "n"))
        if plural:
            feats.add("plural")
        return toks, ("pl" if plural else "sg")

    def subject(self, classes, feats, pron_ok=True):
        """Subject: a pronoun (people only) or a noun phrase."""
        if pron_ok and "person" in classes and self.rng.random() < 0.3:
            p = self.choice(sorted(PRONOUNS))
            feats.add("pronoun")
            person, number = PRONOUNS[p]
            return [tok(p)], person, number
        nouns = [n for n in NOUNS if fits(n, classes)]
        noun = self.choice(nouns)
        toks, number = self.np(noun, feats, det_kinds=("the", "a", "poss"))
        return toks, 3, number

    def pp(self, kinds, feats):
        kind = self.choice(kinds)
        feats.add("pp")
        if kind == "dir":
            prep = "to"
            noun = self.choice(PLACES)
        else:
            r = self.rng.random()
            prep, words = (("in", IN_PLACES) if r < 0.6 else
                           ("on", ON_THINGS) if r < 0.75 else
                           ("under", UNDER_THINGS) if r < 0.9 else
                           ("behind", BEHIND_THINGS))
            noun = NOUN_BY_WORD[self.choice(words)]
        toks, _ = self.np(noun, feats, allow_plural=False,
                          det_kinds=("the", "poss"))
        return [tok(prep)] + toks

    # -- verb group -------------------------------------------------------
    @staticmethod
    def verb_forms(verb, tense, neg, person, number, question):
        """Tokens of the verb group. For questions returns (aux, rest)."""
        base, s3, past = verb[0], verb[1], verb[2]
        v = lambda w: tok(w, base, "v")
        third_sg = (person == 3 and number == "sg")
        if tense == "fut":
            aux = [tok("will")]
            rest = ([tok("not")] if neg else []) + [v(base)]
        elif neg or question:
            aux = [tok(("does" if third_sg else "do") if tense == "pres" else "did")]
            rest = ([tok("not")] if neg else []) + [v(base)]
        else:
            aux = []
            rest = [v(s3 if (tense == "pres" and third_sg) else
                      (base if tense == "pres" else past))]
        return aux, rest

    def sentence(self):
        """Returns (construction, feats, english_tokens, declarative_tokens,
        is_question, verb_info) where verb_info = (lemma, tense, person,
        number); lemma 'be' for predicative sentences."""
        rng = self.rng
        feats = set()
        r = rng.random()
        construction = "svo" if r < 0.42 else ("sv" if r < 0.72 else "pred")
        question = rng.random() < 0.15
        tense = rng.choice(["pres", "pres", "past", "fut"])
        neg = (not question) and rng.random() < 0.2
        if construction == "pred":
            return self.predicative(feats, tense, neg, question)
        if construction == "svo":
            verb = self.choice(VERBS_T)
        else:
            verb = self.choice(VERBS_I)
        subj, person, number = self.subject(verb[3], feats)
        aux, rest = self.verb_forms(verb, tense, neg, person, number, question)
        tail = []
        if construction == "svo":
            objs = [n for n in NOUNS if fits(n, verb[4])]
            obj, _ = self.np(self.choice(objs), feats)
            tail += obj
        elif verb[4] == ("dir",) or (verb[4] and rng.random() < 0.6):
            # motion verbs ("go", "travel") always say where to
            tail += self.pp(verb[4], feats)
        # adverbs: one of frequency (pre-verbal) / manner / time (final)
        pre = []
        ra = rng.random()
        if ra < 0.12 and not neg and not question and tense != "fut":
            a = self.choice(ADV_FREQ)
            pre = [tok(a, a, "adv")]
            feats.add("adverb")
        elif ra < 0.30 and verb[0] not in STATIVE:
            a = self.choice(ADV_MANNER)
            tail += [tok(a, a, "adv")]
            feats.add("adverb")
        elif ra < 0.45:
            opts = [a for a, ts in sorted(ADV_TIME.items()) if tense in ts]
            a = self.choice(opts)
            tail += [tok(a, a, "adv")]
            feats.add("adverb")
        decl_aux, decl_rest = self.verb_forms(verb, tense, neg, person, number, False)
        decl = subj + pre + decl_aux + decl_rest + tail + [tok(".")]
        if question:
            eng = aux + subj + rest + tail + [tok("?")]
        else:
            eng = decl
        return (construction, feats, eng, decl, question,
                (verb[0], tense, person, number), neg)

    def predicative(self, feats, tense, neg, question):
        rng = self.rng
        # subject: noun phrase or (people) a pronoun
        classes = ("person", "animal", "food", "drink", "thing", "place")
        noun = None
        if rng.random() < 0.25:
            subj, person, number = self.subject(("person",), feats)
            if "pronoun" not in feats:
                noun = NOUN_BY_WORD.get(subj[-1][1])
        else:
            noun = self.choice(NOUNS)
            subj, number = self.np(noun, feats, det_kinds=("the", "poss"))
            person = 3
        if noun is None:
            noun = ("", None, "person")
        prior = {a[1] for a in ADJS for t in subj if t[2] == "adj" and t[1] == a[0]}
        adjs = [a for a in ADJS if a[3] and fits(noun, a[2]) and a[1] not in prior
                and not (noun[1] is None and a[1] == "size")]
        if not adjs:   # e.g. "the hot rice": no other adjective fits; retry
            return self.predicative(set(), tense, neg, question)
        adj = self.choice(adjs)
        be_pres = {(1, "sg"): "am", (2, "sg"): "are", (3, "sg"): "is"}
        be_past = {(1, "sg"): "was", (2, "sg"): "were", (3, "sg"): "was"}
        key = (person, number)
        if tense == "fut":
            aux, rest = [tok("will")], ([tok("not")] if neg else []) + [tok("be")]
        else:
            table = be_pres if tense == "pres" else be_past
            form = table.get(key, "are" if tense == "pres" else "were")
            aux, rest = [tok(form)], ([tok("not")] if neg else [])
        a = [tok(adj[0], adj[0], "adj")]
        decl = subj + aux + rest + a + [tok(".")]
        if question:
            eng = aux + subj + rest + a + [tok("?")]
        else:
            eng = decl
        return ("pred", feats, eng, decl, question, ("be", tense, person, number), neg)


def render(tokens):
    """Token list -> sentence string with a capital first letter."""
    words = [t[0] for t in tokens]
    s = " ".join(words[:-1]) + words[-1]
    return s[0].upper() + s[1:]


def english_tokens_for_regex(tokens):
    """Our tokens are single regex words already; check and return them."""
    return tokens


# ---------------------------------------------------------------------------
# Apertium helpers.
# ---------------------------------------------------------------------------
def run_lines(cmd, lines):
    """Run `cmd` on lines (one per line), return output lines; checks count."""
    text = "\n".join(lines) + "\n"
    out = subprocess.run(cmd, input=text, capture_output=True, text=True,
                         check=True).stdout
    res = out.split("\n")
    if res and res[-1] == "":
        res.pop()
    return res


def translate(mode, lines, batch=5000):
    """Translate lines with Apertium `mode`, one process per batch.

    Line alignment is verified per batch (same number of lines out as in).
    If a batch ever comes back with a different count, it is split in halves
    recursively until counts match (a single line that still fails gets an
    '@' mark, so the pair is filtered out)."""
    out = []
    for i in range(0, len(lines), batch):
        out.extend(_translate_checked(mode, lines[i:i + batch]))
    return out


def _translate_checked(mode, lines):
    res = run_lines(["apertium", mode], lines)
    if len(res) == len(lines):
        return [r.strip() for r in res]
    if len(lines) == 1:
        return ["@misaligned"]
    sys.stderr.write("warning: %s batch of %d lines came back as %d, splitting\n"
                     % (mode, len(lines), len(res)))
    h = len(lines) // 2
    return _translate_checked(mode, lines[:h]) + _translate_checked(mode, lines[h:])


LU_RE = re.compile(r"\^(.*?)\$")


def parse_analyses(body):
    """'surface/lemma<t1><t2>/...' -> (surface, [(lemma, [tags])...])."""
    parts = body.split("/")
    surface, analyses = parts[0], []
    for a in parts[1:]:
        if a.startswith("*"):
            continue
        for sub in a.split("+"):   # e.g. 'al' = a<pr>+el<det>
            m = re.match(r"([^<]*)((?:<[^>]*>)*)(.*)", sub)
            lemma = (m.group(1) + m.group(3).replace("#", "")).strip().lower()
            tags = re.findall(r"<([^>]*)>", m.group(2))
            analyses.append((lemma, tags))
    return surface, analyses


def analyse_spanish(sentences):
    """For each sentence: list of (token, [(lemma, tags)...]) aligned with
    TOKEN_RE tokens, or None if the analyser's segmentation disagrees."""
    out = run_lines(["lt-proc", SPA_MORF], sentences)
    if len(out) != len(sentences):
        raise SystemExit("lt-proc line count mismatch (%d vs %d)"
                         % (len(out), len(sentences)))
    result = []
    for sent, line in zip(sentences, out):
        toks = []
        for m in LU_RE.finditer(line):
            surface, analyses = parse_analyses(m.group(1))
            for t in TOKEN_RE.findall(surface):
                toks.append((t, analyses))
        if [t for t, _ in toks] != TOKEN_RE.findall(sent):
            result.append(None)
        else:
            result.append(toks)
    return result


ENG_POS_TAG = {"n": "n", "v": "vblex", "adj": "adj", "adv": "adv"}
SPA_POS_OK = {"n": {"n"}, "v": {"vblex", "vbmod", "vbser", "vbhaver"},
              "adj": {"adj", "vblex"}, "adv": {"adv"}}


def bilingual_lemmas(content):
    """{(lemma, pos)} -> {(lemma, pos): set(spanish lemmas)} via the English
    analyser (to get the tag string the bilingual dictionary expects, e.g.
    big<adj><sint>) and `lt-proc -b` on the bilingual dictionary."""
    keys = sorted(content)
    analysed = run_lines(["lt-proc", ENG_MORF], [k[0] for k in keys])
    queries, owners = [], []
    for key, line in zip(keys, analysed):
        lemma, pos = key
        tag = ENG_POS_TAG[pos]
        seen = set()
        for m in LU_RE.finditer(line):
            _, analyses = parse_analyses(m.group(1))
            for alemma, tags in analyses:
                if alemma == lemma and tags and tags[0] == tag:
                    q = "^%s%s$" % (lemma, "".join("<%s>" % t for t in tags))
                    if q not in seen:
                        seen.add(q)
                        queries.append(q)
                        owners.append(key)
        # always also try the bare lemma<pos>
        q = "^%s<%s>$" % (lemma, tag)
        if q not in seen:
            queries.append(q)
            owners.append(key)
    res = run_lines(["lt-proc", "-b", ENG_SPA_BIDIX], queries)
    table = collections.defaultdict(set)
    for key, line in zip(owners, res):
        for m in LU_RE.finditer(line):
            parts = m.group(1).split("/")[1:]
            for p in parts:
                if p.startswith("@"):
                    continue
                lem = re.sub(r"<[^>]*>", "", p).replace("#", "").strip().lower()
                if lem:
                    table[key].add(lem)
    return table


# ---------------------------------------------------------------------------
# Filtering and alignment.
# ---------------------------------------------------------------------------
# Spanish drops subject pronouns and has one possessive "su" for
# his/her/their, so spa-eng can only give "It ..." / "his": we compare after
# mapping he/she -> it and her/their -> his (on both sides).
NORM = {"He": "It", "She": "It", "her": "his", "Her": "His",
        "their": "his", "Their": "His"}


def norm(s):
    return " ".join(NORM.get(w, w) for w in s.split())


def roundtrip_ok(english_decl, spanish, back):
    if any(c in spanish or c in back for c in "*#@"):
        return False
    if "  " in spanish or " ." in spanish or " ?" in spanish:
        return False
    return norm(back.strip()) == norm(english_decl)


TENSE_TAGS = {"pres": {"pri"}, "past": {"ifi", "pii"}, "fut": {"fti"}}


def content_links(eng_tokens, spa_analysis, bidix):
    """Candidate links (s, e) between Spanish token s and English content
    token e whose lemma the dictionary translates to one of s's lemmas with
    a compatible part of speech."""
    links = []
    for e, (w, lemma, pos) in enumerate(eng_tokens):
        if pos is None:
            continue
        targets = bidix.get((lemma, pos), set())
        for s, (st, analyses) in enumerate(spa_analysis):
            for alemma, tags in analyses:
                if alemma in targets and tags and tags[0] in SPA_POS_OK[pos]:
                    links.append((s, e))
                    break
    return links


def verb_ok(verb_info, spa_analysis, bidix):
    """Main verb in Spanish has the right lemma, tense, person, number."""
    lemma, tense, person, number = verb_info
    targets = {"ser", "estar"} if lemma == "be" else bidix.get((lemma, "v"), set())
    want = TENSE_TAGS[tense]
    ptag, ntag = "p%d" % person, number
    for st, analyses in spa_analysis:
        for alemma, tags in analyses:
            if (alemma in targets and want & set(tags) and ptag in tags
                    and ntag in tags):
                return True
    return False


def unambiguous(links):
    s_count = collections.Counter(s for s, _ in links)
    e_count = collections.Counter(e for _, e in links)
    return sorted((s, e) for s, e in set(links)
                  if s_count[s] == 1 and e_count[e] == 1)


def spanish_question(decl_es):
    """'Ves el perro.' -> '¿Ves el perro?'"""
    body = decl_es[:-1] if decl_es.endswith(".") else decl_es
    return "¿" + body + "?"


# ---------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--train", type=int, default=120000)
    ap.add_argument("--valid", type=int, default=2000)
    ap.add_argument("--test", type=int, default=2000)
    ap.add_argument("--out", default="assets/corpus/en-es")
    ap.add_argument("--batch", type=int, default=5000,
                    help="lines per Apertium process")
    args = ap.parse_args()
    t0 = time.time()
    rng = random.Random(args.seed)
    gen = Gen(rng)
    need = args.train + args.valid + args.test

    # Lexicon content words -> Spanish lemmas (bilingual dictionary).
    content = set()
    for n in NOUNS:
        content.add((n[0], "n"))
    for v in VERBS_T + VERBS_I:
        content.add((v[0], "v"))
    for a in ADJS:
        content.add((a[0], "adj"))
    for a in ADV_MANNER + ADV_FREQ + sorted(ADV_TIME):
        content.add((a, "adv"))
    bidix = bilingual_lemmas(content)

    seen = set()           # English sentences already generated
    kept = []              # (eng, spa, eng_tokens, spa_tokens_analysis, cons)
    stats = collections.defaultdict(lambda: [0, 0])   # key -> [gen, kept]
    reasons = collections.Counter()
    word_stats = collections.defaultdict(lambda: [0, 0])
    forms = set()
    round_no = 0
    while len(kept) < need:
        round_no += 1
        want = int((need - len(kept)) * (2.2 if round_no == 1 else 2.5)) + 1000
        cands = []
        while len(cands) < want:
            c = gen.sentence()
            eng = render(c[2])
            if eng in seen:
                continue
            seen.add(eng)
            cands.append((eng, render(c[3])) + c)
        decls = sorted({c[1] for c in cands})
        es = translate("eng-spa", decls, args.batch)
        es = [s[:1].upper() + s[1:] for s in es]
        back = translate("spa-eng", es, args.batch)
        tr = {d: (s, b) for d, s, b in zip(decls, es, back)}
        # morphological analysis of the Spanish sides that passed round trip
        ok_decl = sorted(d for d in decls if roundtrip_ok(d, *tr[d]))
        ana = dict(zip(ok_decl, analyse_spanish([tr[d][0] for d in ok_decl])))
        for (eng, decl, cons, feats, etoks, dtoks, question, vinfo, neg) in cands:
            keys = [cons, "tense:" + vinfo[1]] + sorted(feats)
            if question:
                keys.append("question")
            if neg:
                keys.append("negation")
            for k in keys:
                stats[k][0] += 1
            stats["ALL"][0] += 1
            content_words = [t[1] for t in etoks if t[2]]
            for w in content_words:
                word_stats[w][0] += 1
            spa, bk = tr[decl]
            if decl not in ana:
                reasons["roundtrip"] += 1
                continue
            a = ana[decl]
            if a is None:
                reasons["segmentation"] += 1
                continue
            if not verb_ok(vinfo, a, bidix):
                reasons["verb form"] += 1
                continue
            links = content_links(dtoks, a, bidix)
            linked = {e for _, e in links}
            if any(t[2] and i not in linked for i, t in enumerate(dtoks)):
                reasons["content word"] += 1
                continue
            if question:
                spa = spanish_question(spa)
                a = [("¿", [])] + a[:-1] + [("?", [])]
            reasons["kept"] += 1
            for k in keys:
                stats[k][1] += 1
            stats["ALL"][1] += 1
            for w in content_words:
                word_stats[w][1] += 1
            kept.append((eng, spa, etoks, a, cons))
            forms.update(w.lower() for w in TOKEN_RE.findall(eng))
        print("round %d: %d candidates, %d kept so far (%.0fs)"
              % (round_no, len(cands), len(kept), time.time() - t0), flush=True)

    # Split: shuffle deterministically; identical Spanish sentences (e.g.
    # "He reads." / "She reads." -> "Lee.") never end up in two splits.
    rng.shuffle(kept)
    sizes = {"test": args.test, "valid": args.valid, "train": args.train}
    splits = {k: [] for k in sizes}
    where = {}
    order = ["test", "valid", "train"]
    for item in kept:
        spa = item[1]
        if spa in where:
            target = where[spa]
            if len(splits[target]) < sizes[target]:
                splits[target].append(item)
            continue
        for name in order:
            if len(splits[name]) < sizes[name]:
                splits[name].append(item)
                where[spa] = name
                break
    os.makedirs(args.out, exist_ok=True)
    for name in order:
        with open(os.path.join(args.out, name + ".tsv"), "w",
                  encoding="utf-8", newline="\n") as f:
            for eng, spa, *_ in splits[name]:
                assert "\t" not in eng + spa
                f.write("%s\t%s\n" % (eng, spa))

    # Alignments for the test split.
    n_linked, n_links = 0, 0
    with open(os.path.join(args.out, "test.align.tsv"), "w",
              encoding="utf-8", newline="\n") as f:
        for eng, spa, etoks, a, cons in splits["test"]:
            low = lambda ws: [w.lower() for w in ws]
            assert low(t[0] for t in etoks) == low(TOKEN_RE.findall(eng))
            assert low(t for t, _ in a) == low(TOKEN_RE.findall(spa))
            links = unambiguous(content_links(etoks, a, bidix))
            n_linked += bool(links)
            n_links += len(links)
            f.write("%s\t%s\t%s\n" % (eng, spa, " ".join("%d-%d" % l for l in links)))

    # Statistics.
    lines = []
    lines.append("seed %d; %d rounds; %d candidates generated; %d kept; "
                 "%d distinct English word forms in kept corpus"
                 % (args.seed, round_no, stats["ALL"][0], len(kept), len(forms)))
    lines.append("split sizes: " + ", ".join("%s %d" % (k, len(splits[k])) for k in order))
    lines.append("rejections: " + ", ".join("%s %d" % kv for kv in sorted(reasons.items())))
    lines.append("")
    lines.append("%-16s %9s %9s %7s" % ("construction", "generated", "kept", "% kept"))
    for k in sorted(stats, key=lambda k: (k != "ALL", k)):
        g, kk = stats[k]
        lines.append("%-16s %9d %9d %6.1f%%" % (k, g, kk, 100.0 * kk / max(g, 1)))
    lines.append("")
    nt = max(len(splits["test"]), 1)
    lines.append("test alignments: %d/%d sentences with >=1 link, %.2f links/sentence"
                 % (n_linked, len(splits["test"]), n_links / nt))
    low = sorted((kk / g, w, g) for w, (g, kk) in word_stats.items() if g >= 30)
    lines.append("lowest-keeping content words: " + ", ".join(
        "%s %.0f%%" % (w, 100 * r) for r, w, g in low[:25]))
    lines.append("runtime %.0fs" % (time.time() - t0))
    report = "\n".join(lines)
    print(report)
    with open(os.path.join(args.out, "stats.txt"), "w", encoding="utf-8") as f:
        f.write(report + "\n")


if __name__ == "__main__":
    main()
