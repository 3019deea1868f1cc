"""The clause grammar: candidate English clauses drawn from the lexicon.

Each clause (Item) keeps its tokens with their lemmas and parts of speech,
so that the filter can check every content word and the main verb in the
Spanish.  Questions and imperatives are built as a declarative form, which
is what Apertium translates ("Do you like tea?" -> "You like tea."), and
carry the English words to write (extra["eng"]) once the clause is kept.
Sense: a verb's subjects follow its WordNet class, its objects and an
adjective's nouns the Brown counts, and nouns and verbs are drawn with
weights proportional to the square root of their frequency, so common words
come up often and rare ones now and then."""

import collections
import re

from .lexicon import NOUN_QUOTA
from .names import CITIES, CLOSED_SHARE, NAMES

PRONOUNS = {"I": (1, "sg"), "you": (2, "sg"), "he": (3, "sg"),
            "she": (3, "sg"), "we": (1, "pl"), "they": (3, "pl")}
POSS = ["my", "your", "his", "her", "our", "their"]
NUM_WORDS = ["two", "three", "four", "five", "six", "seven", "eight", "nine",
             "ten", "eleven", "twelve", "twenty"]
AUX = {"is", "are", "am", "was", "were", "will", "can", "must", "should"}
BE_PRES = {(1, "sg"): "am", (2, "sg"): "are", (3, "sg"): "is"}
BE_PAST = {(1, "sg"): "was", (2, "sg"): "were", (3, "sg"): "was"}
# adjectives that describe a state (estar) when predicative; a closed list
# of the copula choice, not of vocabulary
ESTAR_ADJ = {"tired", "sick", "ill", "busy", "ready", "angry", "bored",
             "worried", "dirty", "clean", "full", "empty", "open", "closed",
             "broken", "wet", "dry", "hot", "cold", "warm", "alive", "dead",
             "asleep", "awake", "sad", "happy", "glad", "afraid", "scared",
             "nervous", "hungry", "thirsty", "upset", "sorry", "late",
             "alone", "quiet", "calm", "excited", "drunk", "lost", "free"}
# verb classes whose subject may be an animal; the others take people
ANIMAL_SUBJ = {"verb.consumption", "verb.motion", "verb.perception",
               "verb.body", "verb.contact", "verb.emotion"}
# verb classes never in the progressive ("is knowing") or the imperative
NO_PROG = {"verb.stative", "verb.cognition", "verb.emotion", "verb.perception"}
IMP_NO = {"verb.stative", "verb.emotion", "verb.perception", "verb.cognition",
          "verb.change", "verb.competition"}
# verbs whose WordNet transitive frame is not plain English ("wait the
# bus", "listen the music": they need a preposition)
INTR_ONLY = {"wait", "listen", "look", "arrive", "talk", "laugh", "smile", "sleep"}
OBJ_ANY = tuple(c for c in NOUN_QUOTA if c != "person")
# noun classes after "in" / "on" a place, and after "to"
LOC_IN = ("place", "building", "vehicle", "container", "nature")
LOC_ON = ("furniture",)
DIR_TO = ("place", "building", "nature")
# nouns whose value a question asks for ("What is your name?"), where the
# lexicon has them; the second set is not asked in the plural.
VALUE_NOUNS = ("name", "address", "job", "problem", "plan", "idea", "question", "answer",
               "price", "number", "age", "reason", "date", "size", "color", "colour",
               "birthday", "secret", "opinion")
SINGULAR_VALUE_NOUNS = {"age", "size", "address", "price", "birthday", "opinion"}


def tk(w, lemma=None, pos=None):
    """A clause token: (word, lemma, part of speech), the last two only for
    content words ("n", "v", "adj")."""
    return (w, lemma, pos)


def be_form(tense, p, n):
    t = BE_PRES if tense in ("pres", "prog") else BE_PAST
    return t.get((p, n), "are" if tense in ("pres", "prog") else "were")


class Item:
    """One candidate clause: its construction, tokens, tense, the Spanish
    verb the filter expects (vinfo: lemma, tense tags, person, number),
    negation, subject (kind, person, number); apt is the sentence given to
    Apertium, q the question or imperative kind, fix the Spanish fixes that
    finalize applies, extra what they need; es and ana the Spanish and its
    analysis once kept, eng the English as written."""
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
    """Words as a sentence: no space before punctuation, "Anna's", capital
    first letter."""
    s = " ".join(words)
    s = re.sub(r" ([.,?!:])", r"\1", s)
    s = s.replace(" ' s ", "'s ")
    return s[:1].upper() + s[1:]


class Grammar:
    """Draws candidate clauses (Item) from the lexicon with RNG.

    N, V, A: build_lexicon's nouns, verbs and adjectives; VOBJ, ADJN, VOBJN,
    NADJ: brown_counts' verb -> object classes, adjective -> noun classes,
    verb -> object nouns and noun -> adjectives; COMPOUNDS: noun_compounds'
    table; PEOPLE, PLACES: the packaged names and places (more_names)
    besides the closed lists."""

    def __init__(self, rng, N, V, A, vobj, adjn, vobjn, nadj, compounds, people, places):
        self.rng = rng
        self.more_people, self.more_places = people, places
        self.people = NAMES + people
        self.places = CITIES + places
        self.compounds = compounds
        self.vobjn, self.nadj = vobjn, nadj
        self.N, self.V, self.A = N, V, A
        self._cumcache = {}
        self.bycls = collections.defaultdict(list)
        for w in sorted(N):
            self.bycls[N[w]["cls"]].append(w)
        self.vt, self.vi = [], []
        self.vobj = {}
        # Brown's verb + object counts decide a verb's object classes among
        # all non-person classes ("send the letter")
        obj_classes = OBJ_ANY + (("abstract",) if "abstract" in self.bycls else ())
        for w in sorted(V):
            d = V[w]
            seen = vobj.get(w, collections.Counter())
            tot = sum(seen[c] for c in obj_classes)
            if tot >= 2 and w not in INTR_ONLY:
                cl = tuple(c for c in obj_classes if seen[c] >= max(1, 0.12 * tot))
            else:
                cl = ()
            if d["trans"] and cl:
                self.vobj[w] = cl
                self.vt.append(w)
            if d["intr"]:
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
        cw = self._cumcache.get(key)
        if cw is None:
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
        """One of CLOSED CLOSED_SHARE of the time, else one of MORE, so that
        each closed-list name stays about as common as in a corpus without
        MORE ("Peter", "Pablo")."""
        return self.ch(closed) if self.r() < CLOSED_SHARE else self.ch(more)

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
        """Now and then a colour after a gradable adjective, in English order
        ("a new red bike" -> "una bici roja nueva"), so two adjectives on
        one noun are seen in training; None otherwise."""
        if not self.A[adj]["gradable"]:
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
        adj = self.wch(self.adj_by_cls[cls], lambda a: self.A[a]["f"])   # common ones often
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
        """Questions for a value: "What is your name?", "What were the
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
        if self.r() < 0.15:
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
