"""Sentences for the core words the rest of the corpus leaves rare.

The corpus must hold each of the most frequent word forms of spoken English
in natural use (coverage.py measures it).  Sentence families cannot promise
that for every word, so after they are drawn the generator counts its
English side and asks this module for the words under the target count.

The words come from core_lexicon_*.tsv, written and checked by hand: for each
word form its part of speech, lemma, Spanish equivalent, gender, class,
Spanish plural (nouns), feminine (adjectives), and two example sentences with
their Spanish.  From an entry this module makes the two examples and then
sentences of the word in small frames whose Spanish it writes itself with
core_words's machinery (subjects, tenses, clitics, agreement, Apertium's
verb forms): "Where is the camera?" -> "¿Dónde está la cámara?", "She looks
upset." -> "Parece disgustada.", "He killed it." -> "Lo mató.".

    entries = read_lexicon(paths)
    pairs = frame_sentences(rng, entries["camera"], count)   # (construction, English, Spanish)
"""

import csv
import os
import re

from . import core_words as cw

HERE = os.path.dirname(os.path.abspath(__file__))
LEXICON_FILES = [os.path.join(HERE, "core_lexicon_a.tsv"), os.path.join(HERE, "core_lexicon_b.tsv")]
# More hand-written sentences for the words the corpus has too few of: word<TAB>English<TAB>Spanish.
EXAMPLE_FILES = [os.path.join(HERE, "core_examples_%d.tsv" % i) for i in range(3)]
FIELDS = ("word", "pos", "en_lemma", "es", "gender", "cls", "forms", "ex1_en", "ex1_es", "ex2_en", "ex2_es")


class Entry:
    __slots__ = FIELDS + ("more",)

    def __init__(self, row):
        for name, value in zip(FIELDS, row):
            setattr(self, name, value.strip())
        self.more = []   # further (English, Spanish) examples, from EXAMPLE_FILES

    @property
    def skipped(self):
        return self.pos == "skip"

    def examples(self):
        own = [(self.ex1_en, self.ex1_es), (self.ex2_en, self.ex2_es)] if self.ex1_en != "-" else []
        return own + self.more


def tsv_rows(paths, fields, what):
    """(path, line number, fields) of each line of the existing PATHS; a line
    without FIELDS non-empty fields is an error naming its file and line."""
    for path in paths:
        if not os.path.exists(path):
            continue
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                row = [x.strip() for x in line.rstrip("\n").split("\t")]
                if len(row) != fields or not all(row):
                    raise ValueError("%s:%d: %d fields, want %s" % (path, number, len(row), what))
                yield row


def read_lexicon(paths=None, example_paths=None):
    """{word form: Entry} from the hand-written tables, with the further
    examples of EXAMPLE_FILES (a word that only has examples gets an entry
    of part of speech "other"); a malformed line is an error naming its file
    and line."""
    entries = {}
    for row in tsv_rows(paths if paths is not None else LEXICON_FILES, len(FIELDS), "%d" % len(FIELDS)):
        e = Entry(row)
        entries[e.word] = e
    for word, en, es in tsv_rows(example_paths if example_paths is not None else EXAMPLE_FILES, 3,
                                 "word<TAB>English<TAB>Spanish"):
        if word not in entries:
            entries[word] = Entry([word, "other", word] + ["-"] * (len(FIELDS) - 3))
        if not entries[word].skipped:
            entries[word].more.append((en, es))
    return entries


# ---------------------------------------------------------------------------
# Nouns.

ARTICLE = {("m", False): "el", ("f", False): "la", ("m", True): "los", ("f", True): "las"}
INDEFINITE = {"m": "un", "f": "una"}
THIS = {("m", False): "este", ("f", False): "esta", ("m", True): "estos", ("f", True): "estas"}
# Frames: (English with {the}/{a}/{this}/{N}/{be}, Spanish with {el}/{un}/{este}/{N}/{estar}; classes; singular only).
NOUN_FRAMES = [
    ("where {be} the {N}", "dónde {estar} {el} {N}", "?", "thing person vehicle clothing animal food", False),
    ("the {N} {be} here", "{el} {N} {estar} aquí", ".", "thing person vehicle clothing animal food", False),
    ("I can't find the {N}", "no encuentro {el} {N}", ".", "thing vehicle clothing animal food body", False),
    ("we need a new {N}", "necesitamos {un} {N} {nuevo}", ".", "thing vehicle clothing", True),
    ("do you have a {N}", "tienes {un} {N}", "?", "thing vehicle clothing animal", True),
    ("I like this {N}", "me gusta {este} {N}", ".", "thing vehicle clothing place food animal", True),
    ("I like these {N}", "me gustan {este} {N}", ".", "thing vehicle clothing place food animal", "plural"),
    ("look at the {N}", "mira {el} {N}", ".", "thing vehicle clothing place animal", False),
    ("look at the {N}", "mira a{l} {el} {N}", ".", "person", False),
    ("the {N} {be} very old", "{el} {N} {ser} muy {viejo}", ".", "thing vehicle clothing place", False),
    ("the {N} {be} new", "{el} {N} {ser} {nuevo}", ".", "thing vehicle clothing place", False),
    ("there {be} a {N} in the kitchen", "hay {un} {N} en la cocina", ".", "thing animal food", True),
    ("I called the {N}", "llamé a{l} {N}", ".", "person", False),
    ("the {N} said no", "{el} {N} {dijo} que no", ".", "person", False),
    ("the {N} {be} very nice", "{el} {N} {ser} muy {simpático}", ".", "person", False),
    ("we talked to the {N}", "hablamos con {el} {N}", ".", "person", False),
    ("the {N} {be} waiting outside", "{el} {N} {estar} esperando fuera", ".", "person", False),
    ("we talked about the {N}", "hablamos de{l} {N}", ".", "abstract event time thing person place", False),
    ("the {N} {be} important", "{el} {N} {ser} {importante}", ".", "abstract event thing", False),
    ("I don't understand the {N}", "no entiendo {el} {N}", ".", "abstract", False),
    ("that's a good {N}", "es {un} {buen} {N}", ".", "abstract", True),
    ("the {N} {be} at nine", "{el} {N} {ser} a las nueve", ".", "event", False),
    ("the {N} was very long", "{el} {N} fue muy {largo}", ".", "event", True),
    ("my {N} hurts", "me duele {el} {N}", ".", "body", True),
    ("she hurt her {N}", "se hizo daño en {el} {N}", ".", "body", False),
    ("the {N} {be} delicious", "{el} {N} {estar} {delicioso}", ".", "food", False),
    ("we ate the {N}", "nos comimos {el} {N}", ".", "food", False),
    ("we went to the {N}", "fuimos a{l} {N}", ".", "place", False),
    ("the {N} {be} closed", "{el} {N} {estar} {cerrado}", ".", "place", False),
    ("the {N} {be} near the station", "{el} {N} {estar} cerca de la estación", ".", "place thing vehicle", False),
    ("my {N} {be} in the garden", "mi{s} {N} {estar} en el jardín", ".", "animal thing vehicle", False),
]


def _noun_frame(entry, plural, frame):
    en, es, mark, classes, only = frame
    if classes and entry.cls not in classes.split():
        return None
    if only is True and plural or only == "plural" and not plural:
        return None
    g = entry.gender if entry.gender in ("m", "f") else "m"
    es_noun = entry.forms if plural else entry.es
    if plural and (not es_noun or es_noun == "-"):
        return None
    if g == "f" and not plural and re.match(r"h?[aá]", entry.es) and re.match(r"h?á|h?a[^aeiouáéíóú]*[aeiou]?$", entry.es):
        return None   # "el agua", "el hacha": the article of a stressed initial a is not worth the risk
    be_en = "are" if plural else "is"
    if mark == "?" and en.startswith("where"):
        pass
    text_en = en.replace("{be}", be_en).replace("{N}", entry.word)
    if plural and (" a {N}" in en or "this {N}" in en):
        return None
    art = ARTICLE[(g, plural)]
    text_es = es.replace("{N}", es_noun).replace("{el}", art).replace("{un}", INDEFINITE[g]) \
        .replace("{este}", THIS[(g, plural)])
    text_es = text_es.replace("{estar}", "están" if plural else "está").replace("{ser}", "son" if plural else "es")
    text_es = text_es.replace("de{l} el ", "del ").replace("a{l} el ", "al ").replace("de{l} ", "de ") \
        .replace("a{l} ", "a ")
    text_es = text_es.replace("mi{s}", "mis" if plural else "mi").replace("{dijo}", "dijeron" if plural else "dijo")
    text_es = text_es.replace("{buen}", "buen" if g == "m" else "buena")
    text_es = cw.fill_agreement(text_es, g, plural)
    if "my {N} hurts" == en and plural:
        return None
    return text_en, text_es, mark


# ---------------------------------------------------------------------------
# Adjectives.

ADJ_SUBJECTS = [("he", "", "m", False, "is", "was"), ("she", "", "f", False, "is", "was"),
                ("they", "", "m", True, "are", "were"), ("my sister", "mi hermana ", "f", False, "is", "was"),
                ("my brother", "mi hermano ", "m", False, "is", "was"), ("the children", "los niños ", "m", True, "are", "were"),
                ("you", "", "m", False, "are", "were")]
COPULA = {("ser", False, "pres"): "es", ("ser", True, "pres"): "son", ("ser", False, "past"): "era",
          ("ser", True, "past"): "eran", ("estar", False, "pres"): "está", ("estar", True, "pres"): "están",
          ("estar", False, "past"): "estaba", ("estar", True, "past"): "estaban"}
SECOND = {("ser", "pres"): "eres", ("ser", "past"): "eras", ("estar", "pres"): "estás", ("estar", "past"): "estabas"}


def adjective_form(entry, gender, plural):
    base = entry.es
    if gender == "f":
        base = entry.forms if entry.forms and entry.forms != "-" else base
    if plural:
        base = " ".join(cw.es_plural(w) if i == len(base.split()) - 1 else w for i, w in enumerate(base.split()))
    return base


def adjective_sentences(rng, entry, count):
    out = []
    copula = entry.cls if entry.cls in ("ser", "estar") else None
    for _ in range(count * 6):
        if len(out) >= count:
            break
        en_s, es_s, g, pl, be_pres, be_past = rng.choice(ADJ_SUBJECTS)
        adj = adjective_form(entry, g, pl)
        kind = rng.choice(["look", "look", "be", "be", "very", "how", "neg", "q"])
        if kind in ("be", "very", "neg", "q") and copula is None:
            kind = "look"
        you = en_s == "you"
        if kind == "look":
            looks = "look" if pl or you else "looks"
            es_v = "pareces" if you else ("parecen" if pl else "parece")
            deg_en, deg_es = rng.choice([("", ""), ("very ", "muy "), ("a bit ", "un poco "), ("so ", "tan ")])
            tense = rng.choice(["pres", "past"])
            if tense == "past":
                looks, es_v = "looked", {"pareces": "parecías", "parecen": "parecían", "parece": "parecía"}[es_v]
            en = "%s %s %s%s" % (en_s, looks, deg_en, entry.word)
            es = "%s%s %s%s" % (es_s, es_v, deg_es, adj)
        elif kind == "how":
            en, es = "how %s" % entry.word, "qué %s" % adj
            out.append(("word:adj", *cw.finish(en, es, "!")))
            continue
        else:
            tense = rng.choice(["pres", "past"])
            be = be_pres if tense == "pres" else be_past
            es_cop = SECOND[(copula, tense)] if you else COPULA[(copula, pl, tense)]
            deg_en, deg_es = ("very ", "muy ") if kind == "very" else ("", "")
            if kind == "q":
                en = "%s %s %s%s" % (be, en_s, deg_en, entry.word)
                es = "%s%s %s%s" % (es_s, es_cop, deg_es, adj)
                out.append(("word:adj", *cw.finish(en, es, "?")))
                continue
            neg_en = " not" if kind == "neg" else ""
            en = "%s %s%s %s%s" % (en_s, be, neg_en, deg_en, entry.word)
            es = "%s%s%s %s%s" % (es_s, "no " if kind == "neg" else "", es_cop, deg_es, adj)
        out.append(("word:adj", *cw.finish(en, es)))
    return out


# ---------------------------------------------------------------------------
# Verbs: the word form decides the tense ("killed" -> past, "killing" ->
# progressive); the object, where the verb takes one, is "it", "them" or
# "something".

OBJECTS = [("it", "@lo"), ("them", "@los"), ("something", "algo")]


def verb_tenses(entry):
    """The tenses in which the word form appears."""
    forms = cw.english_forms(entry.en_lemma)
    w = entry.word
    tenses = []
    if w == forms["base"]:
        tenses += ["pres", "fut", "can", "want_to", "going_to", "have_to", "need_to", "should"]
    if w == forms["s"]:
        tenses.append("pres3")
    if w == forms["past"]:
        tenses.append("past")
    if w == forms["pp"]:
        tenses.append("perfect")
    if w == forms["ing"]:
        tenses += ["prog", "past_prog"]
    return tenses


def verb_sentences(rng, entry, count, draw_name, female):
    # "disculparse": a reflexive verb; "darse cuenta", "echar de menos": a verb
    # and a fixed tail, used without an object ("No me di cuenta.").
    head, _, tail = entry.es.partition(" ")
    reflexive = head.endswith("se")
    lemma = head[:-2] if reflexive else head
    if not lemma.endswith(("ar", "er", "ir", "ír")):
        return []
    tenses = verb_tenses(entry)
    if not tenses:
        return []
    if tail:
        comps = [("", tail)]
    else:
        comps = [("", "")] if entry.cls == "i" else (OBJECTS if entry.cls == "t" else OBJECTS + [("", "")])
    verb = cw.Verb(entry.en_lemma, lemma, ["%s|%s" % c if any(c) else "" for c in comps], "r" if reflexive else "")
    try:
        cw.prefetch([lemma])
        cw.es_verb(lemma, "<inf>")
    except (KeyError, RuntimeError):
        return []
    out, seen = [], set()
    for _ in range(count * 8):
        if len(out) >= count:
            break
        tense = rng.choice(tenses)
        subj = None
        if tense == "pres3":
            tense = "pres"
            subj = rng.choice([s for s in cw.PRONOUN_SUBJECTS if s.person == cw.P3S] +
                              [s for s in cw.NOUN_SUBJECTS if s.person == cw.P3S])
        elif tense == "pres":
            subj = rng.choice([s for s in cw.PRONOUN_SUBJECTS + cw.NOUN_SUBJECTS if s.person != cw.P3S])
        c = cw.draw_clause(rng, draw_name, female, verb=verb, tense=tense, subj=subj)
        if c is None or (c.comp[0] == "something" and (c.neg or c.form != "stmt")):
            continue
        try:
            en, es_text = cw.clause_pair(c)
        except (KeyError, ValueError):
            continue
        if not re.search(r"\b%s\b" % re.escape(entry.word), en):
            continue
        if en in seen:
            continue
        seen.add(en)
        out.append(("word:verb", *cw.finish(en, es_text, "." if c.form == "stmt" else "?")))
    return out


POSSESSIVES = [("my", "mi", "mi"), ("your", "tu", "tu"), ("his", "su", "su"), ("her", "su", "su"),
               ("our", "nuestro", "nuestra"), ("their", "su", "su")]


def possessive_variants(en, es, gender, plural):
    """The frame with "the" replaced by each possessive: "where is my
    camera" -> "dónde está mi cámara"."""
    out = []
    art = ARTICLE[(gender, plural)]
    if " the " not in " " + en + " " or (" " + art + " ") not in (" " + es + " "):
        return out
    for p_en, p_m, p_f in POSSESSIVES:
        p_es = p_f if gender == "f" else p_m
        if plural:
            p_es += "s"
        en2 = re.sub(r"\bthe\b", p_en, en, count=1)
        es2 = re.sub(r"\b%s\b" % art, p_es, es, count=1)
        es2 = es2.replace(" al %s" % p_es, " a %s" % p_es).replace(" del %s" % p_es, " de %s" % p_es)
        out.append((en2, es2))
    return out


def noun_sentences(rng, entry, count):
    plural = entry.word != entry.en_lemma and entry.word.endswith("s")
    g = entry.gender if entry.gender in ("m", "f") else "m"
    frames = []
    for fr in NOUN_FRAMES:
        made = _noun_frame(entry, plural, fr)
        if made:
            frames.append(made)
            if entry.cls != "abstract":
                frames += [(e, s, made[2]) for e, s in possessive_variants(made[0], made[1], g, plural)]
    rng.shuffle(frames)
    return [("word:noun", *cw.finish(en, es, mark)) for en, es, mark in frames[:count]]


def frame_sentences(rng, entry, count, draw_name, female):
    """Up to COUNT (construction, English, Spanish) triples for one word,
    its two examples first."""
    if entry.skipped:
        return []
    out = [("word:example", en, es) for en, es in entry.examples()]
    rng.shuffle(out)
    if entry.pos == "noun":
        out += noun_sentences(rng, entry, count)
    elif entry.pos == "adj" and entry.en_lemma == entry.word:
        out += adjective_sentences(rng, entry, count)
    elif entry.pos == "verb":
        out += verb_sentences(rng, entry, count, draw_name, female)
    seen, unique = set(), []
    for item in out:
        if item[1] not in seen:
            seen.add(item[1])
            unique.append(item)
    return unique[:count]


WORD = re.compile(r"\w+")


def english_counts(pairs):
    """Counter of lower-cased word tokens of the English side of
    (construction, English, Spanish) triples."""
    import collections
    c = collections.Counter()
    for _, en, _ in pairs:
        c.update(WORD.findall(en.lower()))
    return c


def top_up(rng, pairs, words, targets, draw_name, female, entries=None, partners=None):
    """Sentences for each word form of WORDS that PAIRS hold fewer times
    than its target (TARGETS: one per word): its examples and frames, up to
    the difference; where those run out, its examples again, each at most
    JOIN_LIMIT times, joined to a short sentence of PARTNERS ((English,
    Spanish) pairs) as people type two sentences in a row.  For the words
    the hand-written lexicon has; new English sentences only."""
    entries = read_lexicon() if entries is None else entries
    counts = english_counts(pairs)
    seen = {en for _, en, _ in pairs}
    out = []
    for w, target in zip(words, targets):
        missing = target - counts[w]
        if missing <= 0 or w not in entries:
            continue
        made = 0
        for cons, en, es in frame_sentences(rng, entries[w], missing, draw_name, female):
            if en not in seen:
                seen.add(en)
                out.append((cons, en, es))
                made += len(re.findall(r"\b%s\b" % re.escape(w), en.lower()))
        examples = [x for x in entries[w].examples() if re.search(r"\b%s\b" % re.escape(w), x[0].lower())]
        for _ in range(JOIN_LIMIT):
            if made >= missing or not examples or not partners:
                break
            for en, es in examples:
                if made >= missing:
                    break
                p_en, p_es = rng.choice(partners)
                joined = (en + " " + p_en, es + " " + p_es) if rng.random() < 0.5 else (p_en + " " + en, p_es + " " + es)
                if joined[0] not in seen:
                    seen.add(joined[0])
                    out.append(("word:joined", joined[0], joined[1]))
                    made += 1
    return out


JOIN_LIMIT = 4
