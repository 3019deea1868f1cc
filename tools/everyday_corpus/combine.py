"""Sentences built from kept clauses: time phrases, coordination,
subordinate clauses, quoted speech, and what people type.

A clause that passed the filter has a Spanish translation that is known to
be right, so longer sentences are joined from two of them with fixed
Spanish words (y/e, o/u, pero, porque, cuando, si, dijo/dice) and a table
of time phrases, and need no filter of their own.  "If" clauses are
present tense with a present or future main clause; "when" joins clauses
that are both past or both present.  A small share of all pairs is written
as people type (lowercase first letter, no final mark), mirrored on the
Spanish side."""

import re

from .names import es_lower_first, lower_first

# Tenses a time phrase fits.
PAST, PRES, FUT, ANY = ("past", "pastprog"), ("pres",), ("fut",), \
    ("pres", "past", "fut")
# (English, Spanish, tenses it fits)
TIME_PHRASES = [
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
# the other months, and a few more
MONTHS = [("January", "enero"), ("February", "febrero"), ("March", "marzo"),
          ("April", "abril"), ("June", "junio"), ("August", "agosto"),
          ("September", "septiembre"), ("October", "octubre"),
          ("November", "noviembre")]
TIME_PHRASES += [("in %s" % e, "en %s" % s, ANY) for e, s in MONTHS] + [
    ("this morning", "esta mañana", PAST + FUT),
    ("in the evening", "por la tarde", ANY),
    ("at the weekend", "el fin de semana", PAST),
    ("last month", "el mes pasado", PAST), ("next month", "el próximo mes", FUT),
    ("every year", "todos los años", PRES), ("on Monday", "el lunes", PAST + FUT),
    ("on Friday", "el viernes", PAST + FUT), ("in the spring", "en primavera", PRES),
    ("in autumn", "en otoño", PRES),
]


def courtesy_clauses(kept, names):
    """(English, Spanish) of the kept statements and questions, first
    letters lowered where they are not NAMES, for a greeting or "I'm
    sorry," to open (phrases.courtesy)."""
    clauses = []
    for it in kept:
        if it.cons in ("statement", "predicative", "location") or it.q is not None:
            s = it.es[0] + es_lower_first(it.es[1:], names) if it.es[0] in "¿¡" else \
                es_lower_first(it.es, names)
            clauses.append((lower_first(it.eng, names), s))
    return clauses


def combined(kept, rng, person_name, names, want, eng_seen, held_eng, stats):
    """About WANT (construction, English, Spanish) pairs joined from the KEPT
    declarative clauses: a clause with a time phrase, two clauses joined by
    a conjunction, "NAME said, \"...\"", or a typing variant.  English in
    ENG_SEEN (which grows) or HELD_ENG is not made twice or at all;
    PERSON_NAME draws the speaker of a quote; STATS counts each pair as
    generated and kept."""
    base = [it for it in kept if it.q is None and it.cons in ("statement", "predicative", "location")]
    decl_pron = [it for it in base if it.subj and it.subj[0] == "pron"]
    derived = []
    tries = 0
    while len(derived) < want and tries < want * 5:
        tries += 1
        r = rng.random()
        a = rng.choice(base)
        if r < 0.35:
            # time adjunct
            if a.tense is None or a.eng.endswith("?") or a.cons != "statement":
                continue
            opts = [t for t in TIME_PHRASES if a.tense in t[2]]
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
            be_, bs = lower_first(b.eng[:-1], names), es_lower_first(b.es[:-1], names)
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
                e = "When %s, %s." % (lower_first(ae, names), be_)
                s = "Cuando %s, %s." % (es_lower_first(as_, names), bs)
            else:  # if: condition present, result future or present
                if a.tense != "pres" or b.tense not in ("fut", "pres"):
                    continue
                e = "If %s, %s." % (lower_first(ae, names), be_)
                s = "Si %s, %s." % (es_lower_first(as_, names), bs)
            cons = "coordination" if conj in ("and", "but", "or") else "subordinate:" + conj.split("-")[0]
        elif r < 0.90:
            if a.subj is None or a.subj[0] != "pron":
                continue
            name = person_name()
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
                e, s = lower_first(e, names), es_lower_first(s, names)
            else:
                e, s = e[:-1], s[:-1]
            cons = "typing variant"
        if e in eng_seen or e in held_eng:
            continue
        eng_seen.add(e)
        derived.append((cons, e, s))
        stats[cons][0] += 1
        stats[cons][1] += 1
    return derived


def vary_typing(pairs, rng, names, held_eng):
    """PAIRS with about 2 % written with a small first letter and 2 %
    without their final mark, mirrored in the Spanish, as people type; an
    English sentence that comes twice, or is in HELD_ENG, is left out."""
    out = []
    seen = set()
    for cons, e, s in pairs:
        r = rng.random()
        if r < 0.02 and not e.startswith("I ") and not e.startswith("I'"):
            e2, s2 = lower_first(e, names), es_lower_first(s.lstrip("¿¡"), names) if s[0] not in "¿¡" \
                else s[0] + es_lower_first(s[1:], names)
            e, s = e2, s2
        elif r < 0.04 and e[-1] in ".?!" and s[-1] in ".?!":
            e, s = e[:-1], s[:-1]
        if e in seen or e in held_eng:
            continue
        seen.add(e)
        out.append((cons, e, s))
    return out
