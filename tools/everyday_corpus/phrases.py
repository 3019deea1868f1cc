"""Everyday phrases whose Spanish the corpus generator writes itself
(--phrase-share of all pairs).

Some of what people type most is idiom that a word-by-word teacher gets wrong
or that the clause grammar never builds: "I'm hungry." is "Tengo hambre."
(tener, not estar), "She is ten years old." is "Tiene diez años.", "It's
cold today." is "Hoy hace frío." / "Hace frío hoy.", "My name is Ana." is
"Me llamo Ana.", "I like cats." is "Me gustan los gatos.", and greetings and
thanks are fixed expressions.  Each family below draws English sentences from
small tables and writes the Spanish from the same draw: the verb tables give
the person and tense, the subject gives gender and number, so agreement
("Es española", "veintiún años", "Me gustan") is right by construction and
no round trip is needed.

Every function takes a random.Random and returns (construction, English,
Spanish) triples; `phrases` draws a given number of distinct ones from all
families.  "you" is tú throughout, as in the rest of the corpus, and a
Spanish subject pronoun is dropped, as Apertium drops it.
"""

# Verb tables by person: 1sg, 2sg (tú), 3sg, 1pl, 3pl.
P1S, P2S, P3S, P1P, P3P = range(5)
BE_PRES = ["am", "are", "is", "are", "are"]
BE_PAST = ["was", "were", "was", "were", "were"]
PRON_EN = ["I", "you", None, "we", "they"]          # 3sg: he or she, by gender
CONTRACTED_BE = {"I am": "I'm", "you are": "you're", "he is": "he's", "she is": "she's",
                 "we are": "we're", "they are": "they're"}
ES = {
    "tener": {"pres": ["tengo", "tienes", "tiene", "tenemos", "tienen"],
              "past": ["tenía", "tenías", "tenía", "teníamos", "tenían"],
              "fut": ["tendré", "tendrás", "tendrá", "tendremos", "tendrán"]},
    "ser": {"pres": ["soy", "eres", "es", "somos", "son"]},
    "estar": {"pres": ["estoy", "estás", "está", "estamos", "están"]},
    "hablar": {"pres": ["hablo", "hablas", "habla", "hablamos", "hablan"],
               "past": ["hablé", "hablaste", "habló", "hablamos", "hablaron"]},
    "estudiar": {"pres": ["estudio", "estudias", "estudia", "estudiamos", "estudian"],
                 "past": ["estudié", "estudiaste", "estudió", "estudiamos", "estudiaron"]},
    "aprender": {"pres": ["aprendo", "aprendes", "aprende", "aprendemos", "aprenden"],
                 "past": ["aprendí", "aprendiste", "aprendió", "aprendimos", "aprendieron"]},
    "saber": {"pres": ["sé", "sabes", "sabe", "sabemos", "saben"]},
    "nacer": {"past": ["nací", "naciste", "nació", "nacimos", "nacieron"]},
    "llamarse": {"pres": ["me llamo", "te llamas", "se llama", "nos llamamos", "se llaman"]},
}
# English verbs: (base, 3sg present, past)
EN_VERB = {"hablar": ("speak", "speaks", "spoke"), "estudiar": ("study", "studies", "studied"),
           "aprender": ("learn", "learns", "learned")}
# The indirect-object pronoun of gustar / encantar for each person.
ES_DATIVE = ["me", "te", "le", "nos", "les"]

# Family nouns: English singular and plural, Spanish singular and plural, gender.
FAMILY = [("brother", "brothers", "hermano", "hermanos", "m"), ("sister", "sisters", "hermana", "hermanas", "f"),
          ("mother", None, "madre", None, "f"), ("father", None, "padre", None, "m"),
          ("friend", "friends", "amigo", "amigos", "m"), ("son", "sons", "hijo", "hijos", "m"),
          ("daughter", "daughters", "hija", "hijas", "f"), ("grandmother", None, "abuela", None, "f"),
          ("grandfather", None, "abuelo", None, "m"), ("uncle", None, "tío", None, "m"),
          ("aunt", None, "tía", None, "f"), ("cousin", "cousins", "primo", "primos", "m"),
          ("neighbour", "neighbours", "vecino", "vecinos", "m"), ("boss", None, "jefe", None, "m"),
          ("wife", None, "mujer", None, "f"), ("husband", None, "marido", None, "m"),
          ("teacher", "teachers", "profesor", "profesores", "m"), ("children", None, "hijos", None, "m"),
          ("parents", None, "padres", None, "m"), ("grandparents", None, "abuelos", None, "m")]
PLURAL_ONLY = {"children", "parents", "grandparents"}
POSSESSIVE = [("my", "mi", "mis"), ("your", "tu", "tus"), ("his", "su", "sus"), ("her", "su", "sus"),
              ("our", "nuestro", "nuestros"), ("their", "su", "sus")]
OTHER_PEOPLE = [("the baby", "el bebé", P3S, "m"), ("the boy", "el niño", P3S, "m"),
                ("the girl", "la niña", P3S, "f"), ("the children", "los niños", P3P, "m"),
                ("the students", "los estudiantes", P3P, "m"), ("the old man", "el anciano", P3S, "m"),
                ("the old woman", "la anciana", P3S, "f"), ("the twins", "los gemelos", P3P, "m")]

UNITS_EN = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen").split()
TENS_EN = {2: "twenty", 3: "thirty", 4: "forty", 5: "fifty", 6: "sixty", 7: "seventy", 8: "eighty",
           9: "ninety"}
UNITS_ES = ("cero uno dos tres cuatro cinco seis siete ocho nueve diez once doce trece catorce "
            "quince dieciséis diecisiete dieciocho diecinueve veinte veintiuno veintidós veintitrés "
            "veinticuatro veinticinco veintiséis veintisiete veintiocho veintinueve").split()
TENS_ES = {3: "treinta", 4: "cuarenta", 5: "cincuenta", 6: "sesenta", 7: "setenta", 8: "ochenta",
           9: "noventa"}


def number_en(n):
    """1..100 in English words: 21 -> "twenty-one", 100 -> "a hundred"."""
    if n == 100:
        return "a hundred"
    if n < 20:
        return UNITS_EN[n]
    tens, unit = divmod(n, 10)
    return TENS_EN[tens] + ("-" + UNITS_EN[unit] if unit else "")


def number_es(n, before_masculine_noun=False):
    """1..100 in Spanish words; before a masculine noun "uno" loses its
    last vowel: "un año", "veintiún años", "treinta y un años"."""
    if n == 100:
        word = "cien"
    elif n < 30:
        word = UNITS_ES[n]
    else:
        tens, unit = divmod(n, 10)
        word = TENS_ES[tens] + (" y " + UNITS_ES[unit] if unit else "")
    if before_masculine_noun:
        if word.endswith("veintiuno"):
            word = word[:-len("veintiuno")] + "veintiún"
        elif word.endswith("uno"):
            word = word[:-1]
    return word


def capitalise(text):
    """First letter upper case, after any opening ¿ or ¡."""
    for i, ch in enumerate(text):
        if ch.isalpha():
            return text[:i] + ch.upper() + text[i + 1:]
    return text


class Subject:
    """Who a phrase is about: English words, Spanish words ("" for a dropped
    pronoun), person index into the verb tables, gender, and whether it is a
    pronoun (which may contract: "I'm", "she isn't")."""

    def __init__(self, en, es, person, gender, pronoun=False):
        self.en, self.es, self.person, self.gender, self.pronoun = en, es, person, gender, pronoun

    @property
    def plural(self):
        return self.person in (P1P, P3P)


class Phrases:
    """The families; `draw_name` returns one of the first names the corpus
    uses (as often as the corpus uses it), and `female` says which are
    women's (for "Es española")."""

    def __init__(self, rng, draw_name, female):
        self.rng, self.draw_name, self.female = rng, draw_name, frozenset(female)

    def ch(self, seq):
        return self.rng.choice(seq)

    def r(self):
        return self.rng.random()

    # subjects -----------------------------------------------------------
    def pronoun(self):
        person = self.ch([P1S, P2S, P3S, P3S, P1P, P3P])
        # he or she; the others masculine, as Apertium writes them ("Soy español")
        gender = self.ch("mf") if person == P3S else "m"
        en = PRON_EN[person] or ("he" if gender == "m" else "she")
        return Subject(en, "", person, gender, pronoun=True)

    def name(self):
        n = self.draw_name()
        return Subject(n, n, P3S, "f" if n in self.female else "m")

    def family(self):
        en_sg, en_pl, es_sg, es_pl, gender = self.ch(FAMILY)
        poss_en, poss_es_sg, poss_es_pl = self.ch(POSSESSIVE)
        plural = en_sg in PLURAL_ONLY or (en_pl is not None and self.r() < 0.3)
        if plural:
            en, es = en_pl or en_sg, es_pl or es_sg
            if poss_es_pl == "nuestros" and gender == "f":
                poss_es_pl = "nuestras"
            return Subject("%s %s" % (poss_en, en), "%s %s" % (poss_es_pl, es), P3P, gender)
        if poss_es_sg == "nuestro" and gender == "f":
            poss_es_sg = "nuestra"
        return Subject("%s %s" % (poss_en, en_sg), "%s %s" % (poss_es_sg, es_sg), P3S, gender)

    def other(self):
        en, es, person, gender = self.ch(OTHER_PEOPLE)
        return Subject(en, es, person, gender)

    def subject(self):
        r = self.r()
        if r < 0.4:
            return self.pronoun()
        if r < 0.65:
            return self.name()
        if r < 0.9:
            return self.family()
        return self.other()

    # English "be" with optional contraction and negation ------------------
    def be(self, subj, tense, negative=False):
        """ "I'm", "she isn't", "my brother was not" ... """
        form = (BE_PRES if tense == "pres" else BE_PAST)[subj.person]
        text = "%s %s" % (subj.en, form)
        if negative:
            if self.r() < 0.6 and form != "am":   # no "amn't"
                return text + "n't"
            if subj.pronoun and tense == "pres" and self.r() < 0.5:
                return CONTRACTED_BE.get(text, text) + " not"
            return text + " not"
        if subj.pronoun and tense == "pres" and self.r() < 0.6:
            return CONTRACTED_BE.get(text, text)
        return text

    @staticmethod
    def es_clause(subj, verb, negative=False):
        """Spanish subject (if any), "no", verb: "Mi hermano no tiene"."""
        return " ".join(w for w in (subj.es, "no" if negative else "", verb) if w)

    # families -------------------------------------------------------------
    FEELINGS = [("hungry", "hambre", "f"), ("thirsty", "sed", "f"), ("cold", "frío", "m"),
                ("hot", "calor", "m"), ("sleepy", "sueño", "m"), ("afraid", "miedo", "m"),
                ("scared", "miedo", "m"), ("in a hurry", "prisa", "f"), ("lucky", "suerte", "f")]

    def feeling(self):
        """ "I'm very hungry." -> "Tengo mucha hambre." (tener + noun)."""
        subj = self.subject()
        en_adj, es_noun, gender = self.ch(self.FEELINGS)
        very = self.r() < 0.3 and en_adj != "in a hurry"
        es_obj = (("mucha " if gender == "f" else "mucho ") if very else "") + es_noun
        en_adj = ("very " if very else "") + en_adj
        r = self.r()
        if r < 0.2 and subj.person != P1S:   # question
            be = (BE_PRES if self.r() < 0.8 else BE_PAST)
            tense = "pres" if be is BE_PRES else "past"
            form = be[subj.person]
            en = "%s %s %s?" % (capitalise(form), subj.en, en_adj)
            verb = ES["tener"][tense][subj.person]
            es = "¿%s %s?" % (self.es_clause(subj, verb), es_obj)
            return "phrase: feeling", en, capitalise(es)
        tense = "pres" if r < 0.7 else "past"
        negative = self.r() < 0.25
        en = "%s %s." % (self.be(subj, tense, negative), en_adj)
        es = "%s %s." % (self.es_clause(subj, ES["tener"][tense][subj.person], negative), es_obj)
        return "phrase: feeling", capitalise(en), capitalise(es)

    def age(self):
        """ "My son is three years old." -> "Mi hijo tiene tres años."; "How old ...?" """
        subj = self.subject()
        n = self.rng.randint(1, 100) if self.r() < 0.5 else self.rng.randint(2, 12)
        if self.r() < 0.5:
            n_en = n_es = str(n)
        else:
            n_en, n_es = number_en(n), number_es(n, before_masculine_noun=True)
        years_en, years_es = ("year", "año") if n == 1 else ("years", "años")
        r = self.r()
        if r < 0.2 and subj.person != P1S:
            en = "How old %s %s?" % (BE_PRES[subj.person], subj.en)
            es = "¿Cuántos años %s?" % " ".join(w for w in (ES["tener"]["pres"][subj.person], subj.es) if w)
            return "phrase: age", en, es
        if r < 0.85:
            tense = "pres" if r < 0.65 else "past"
            en = "%s %s %s old." % (self.be(subj, tense), n_en, years_en)
            es = "%s %s %s." % (self.es_clause(subj, ES["tener"][tense][subj.person]), n_es, years_es)
        else:
            en = "%s will be %s next year." % (subj.en, n_en)
            es = "%s %s %s el próximo año." % (self.es_clause(subj, ES["tener"]["fut"][subj.person]), n_es,
                                                years_es)
        return "phrase: age", capitalise(en), capitalise(es)

    WEATHER = [("cold", "frío"), ("hot", "calor"), ("sunny", "sol"), ("windy", "viento")]
    WHEN = {"pres": [("today", "hoy"), ("in winter", "en invierno"), ("in summer", "en verano"),
                     ("here", "aquí"), ("at night", "por la noche"), ("in the mountains", "en las montañas"),
                     ("in the north", "en el norte"), ("in the south", "en el sur"), ("", "")],
            "past": [("yesterday", "ayer"), ("last night", "anoche"), ("last week", "la semana pasada"),
                     ("", "")],
            "fut": [("tomorrow", "mañana"), ("tonight", "esta noche"), ("at the weekend", "el fin de semana"),
                    ("", "")]}
    RAIN = [("rain", "raining", "rained", "llover", "lloviendo", "llueve", "llovió", "lloverá"),
            ("snow", "snowing", "snowed", "nevar", "nevando", "nieva", "nevó", "nevará")]

    def weather(self):
        """ "It's very cold today." -> "Hace mucho frío hoy."; rain and snow."""
        r = self.r()
        if r < 0.5:
            en_adj, es_noun = self.ch(self.WEATHER)
            tense = self.ch(["pres", "pres", "past", "fut"])
            when_en, when_es = self.ch(self.WHEN[tense])
            very = self.r() < 0.3
            negative = tense != "fut" and self.r() < 0.2
            es_noun = ("mucho " if very else "") + es_noun
            en_adj = ("very " if very else "") + en_adj
            verb = {"pres": "hace", "past": "hacía", "fut": "hará"}[tense]
            if tense == "fut":
                en = "It will be %s" % en_adj
            elif negative:
                en = "It %s %s" % ("isn't" if tense == "pres" else "wasn't", en_adj)
            else:
                en = "%s %s" % ("It's" if tense == "pres" and self.r() < 0.5 else
                                "It is" if tense == "pres" else "It was", en_adj)
            es = capitalise("%s%s %s" % ("No " if negative else "", verb, es_noun))
        else:
            base, ing, past, inf, ger, pres3, past3, fut3 = self.ch(self.RAIN)
            kind = self.ch(["prog", "prog", "habit", "past", "fut", "going", "question"])
            tense = {"prog": "pres", "habit": "pres", "past": "past", "fut": "fut", "going": "fut",
                     "question": "pres"}[kind]
            when_en, when_es = self.ch(self.WHEN[tense])
            if kind in ("prog", "question"):
                when_en, when_es = self.ch([("now", "ahora"), ("today", "hoy"), ("", "")])
            if kind == "prog":
                negative = self.r() < 0.2
                en = ("It isn't %s" if negative else self.ch(["It is %s", "It's %s"])) % ing
                es = "%sstá %s" % ("No e" if negative else "E", ger)
            elif kind == "question":
                en = "Is it %s" % ing
                es = "¿Está %s" % ger
            elif kind == "habit":
                a_lot = self.r() < 0.5
                negative = not a_lot and self.r() < 0.3
                en = "It %s%s" % ("doesn't " + base if negative else base + "s", " a lot" if a_lot else "")
                es = capitalise("%s%s%s" % ("No " if negative else "", pres3, " mucho" if a_lot else ""))
            elif kind == "past":
                negative = self.r() < 0.2
                en = "It %s" % ("didn't " + base if negative else past)
                es = capitalise("%s%s" % ("no " if negative else "", past3))
            elif kind == "fut":
                en, es = "It will %s" % base, capitalise(fut3)
            else:
                en, es = "It's going to %s" % base, "Va a %s" % inf
            if kind == "question":
                return "phrase: weather", en + (" " + when_en if when_en else "") + "?", \
                    es + (" " + when_es if when_es else "") + "?"
        if when_en:
            en, es = en + " " + when_en, es + " " + when_es
        return "phrase: weather", en + ".", es + "."

    DAYS = [("Monday", "lunes"), ("Tuesday", "martes"), ("Wednesday", "miércoles"), ("Thursday", "jueves"),
            ("Friday", "viernes"), ("Saturday", "sábado"), ("Sunday", "domingo")]
    MONTHS = [("January", "enero"), ("February", "febrero"), ("March", "marzo"), ("April", "abril"),
              ("May", "mayo"), ("June", "junio"), ("July", "julio"), ("August", "agosto"),
              ("September", "septiembre"), ("October", "octubre"), ("November", "noviembre"),
              ("December", "diciembre")]
    SEASONS = [("spring", "la primavera"), ("summer", "el verano"), ("autumn", "el otoño"),
               ("winter", "el invierno")]

    def calendar(self):
        """Days, months and seasons: "Today is Friday." -> "Hoy es viernes."."""
        r = self.r()
        if r < 0.35:
            day_en, day_es = self.ch(self.DAYS)
            en, es = self.ch([("Today is %s.", "Hoy es %s."), ("Tomorrow is %s.", "Mañana es %s."),
                              ("Yesterday was %s.", "Ayer fue %s."), ("It's %s today.", "Hoy es %s."),
                              ("Is today %s?", "¿Hoy es %s?"), ("The party is on %s.", "La fiesta es el %s."),
                              ("The exam is on %s.", "El examen es el %s."),
                              ("%s is my favourite day.", "El %s es mi día favorito.")])
            return "phrase: calendar", capitalise(en % day_en), capitalise(es % day_es)
        if r < 0.7:
            month_en, month_es = self.ch(self.MONTHS)
            owner = self.subject()
            if owner.pronoun:
                poss = self.ch(POSSESSIVE)
                en_own, es_own = "%s birthday" % poss[0], "%s cumpleaños" % poss[1]
            else:
                if owner.plural:   # "my parents' birthday": not one day
                    return self.calendar()
                en_own, es_own = "%s's birthday" % owner.en, "el cumpleaños de %s" % owner.es
            if self.r() < 0.2:
                return "phrase: calendar", "When is %s?" % en_own, "¿Cuándo es %s?" % es_own
            return "phrase: calendar", capitalise("%s is in %s." % (en_own, month_en)), \
                capitalise("%s es en %s." % (es_own, month_es))
        season_en, season_es = self.ch(self.SEASONS)
        en, es = self.ch([("%s is my favourite season.", "%s es mi estación favorita."),
                          ("%s is coming.", "%s está llegando."),
                          ("I love %s.", "Me encanta %s."), ("I don't like %s.", "No me gusta %s."),
                          ("Do you like %s?", "¿Te gusta %s?")])
        return "phrase: calendar", capitalise(en % season_en), capitalise(es % season_es)

    # gustar: "I like X" -> "Me gusta(n) X" (the thing liked is the Spanish subject)
    LIKED = [("coffee", "el café", False), ("tea", "el té", False), ("chocolate", "el chocolate", False),
             ("fish", "el pescado", False), ("meat", "la carne", False), ("fruit", "la fruta", False),
             ("milk", "la leche", False), ("pizza", "la pizza", False), ("music", "la música", False),
             ("football", "el fútbol", False), ("the sea", "el mar", False), ("rice", "el arroz", False),
             ("cheese", "el queso", False), ("bread", "el pan", False), ("this city", "esta ciudad", False),
             ("this song", "esta canción", False), ("your house", "tu casa", False),
             ("cats", "los gatos", True), ("dogs", "los perros", True), ("apples", "las manzanas", True),
             ("vegetables", "las verduras", True), ("films", "las películas", True),
             ("books", "los libros", True), ("horses", "los caballos", True), ("flowers", "las flores", True),
             ("eggs", "los huevos", True), ("tomatoes", "los tomates", True), ("cakes", "los pasteles", True)]

    def liking(self):
        """ "My sister doesn't like fish." -> "A mi hermana no le gusta el pescado." """
        subj = self.subject()
        thing_en, thing_es, plural = self.ch(self.LIKED)
        love = self.r() < 0.25
        verb_es = ("encanta" if love else "gusta") + ("n" if plural else "")
        verb_en = "love" if love else "like"
        negative = not love and self.r() < 0.3
        question = self.r() < 0.15 and subj.person == P2S
        dative = ES_DATIVE[subj.person]
        a_subject = "" if subj.pronoun else "a %s " % subj.es   # "A mi hermana le gusta"
        if question:
            return "phrase: liking", "Do you %s %s?" % (verb_en, thing_en), \
                "¿Te %s %s?" % (verb_es, thing_es)
        third = subj.person == P3S
        if negative:
            en = "%s %s %s %s." % (subj.en, "doesn't" if third else "don't", verb_en, thing_en)
            es = "%sno %s %s %s." % (a_subject, dative, verb_es, thing_es)
        else:
            en = "%s %s %s." % (subj.en, verb_en + ("s" if third else ""), thing_en)
            es = "%s%s %s %s." % (a_subject, dative, verb_es, thing_es)
        return "phrase: liking", capitalise(en), capitalise(es)

    COURTESY = [("Thank you", "Gracias"), ("Thank you very much", "Muchas gracias"), ("Thanks", "Gracias"),
                ("Thanks a lot", "Muchas gracias"), ("You're welcome", "De nada"), ("Sorry", "Perdón"),
                ("I'm sorry", "Lo siento"), ("I'm very sorry", "Lo siento mucho"), ("Excuse me", "Perdona"),
                ("Hello", "Hola"), ("Hi", "Hola"), ("Goodbye", "Adiós"), ("Bye", "Adiós"),
                ("See you later", "Hasta luego"), ("See you tomorrow", "Hasta mañana"),
                ("See you soon", "Hasta pronto"), ("Good morning", "Buenos días"),
                ("Good afternoon", "Buenas tardes"), ("Good evening", "Buenas tardes"),
                ("Good night", "Buenas noches"), ("Welcome", "Bienvenido"), ("Good luck", "Buena suerte"),
                ("Congratulations", "Enhorabuena"), ("Happy birthday", "Feliz cumpleaños"),
                ("Merry Christmas", "Feliz Navidad"), ("Happy New Year", "Feliz Año Nuevo"),
                ("Take care", "Cuídate"), ("Of course", "Claro"), ("No problem", "No hay problema"),
                ("Don't worry", "No te preocupes"), ("It doesn't matter", "No importa"),
                ("I don't know", "No lo sé"), ("I don't understand", "No entiendo"),
                ("I agree", "Estoy de acuerdo"), ("Me too", "Yo también"), ("Yes, please", "Sí, por favor"),
                ("No, thank you", "No, gracias"), ("I'm fine, thanks", "Estoy bien, gracias"),
                ("Wait a moment", "Espera un momento"), ("Have a nice day", "Que tengas un buen día")]
    QUESTIONS = [("How are you?", "¿Cómo estás?"), ("And you?", "¿Y tú?"), ("Can you help me?", "¿Puedes ayudarme?"),
                 ("Can you repeat that, please?", "¿Puedes repetirlo, por favor?"),
                 ("What time is it?", "¿Qué hora es?"), ("Where is the toilet?", "¿Dónde está el baño?"),
                 ("How much is it?", "¿Cuánto es?"), ("Are you OK?", "¿Estás bien?"),
                 ("What's the weather like?", "¿Qué tiempo hace?"), ("Where are you from?", "¿De dónde eres?")]

    GREETINGS = [("Hello", "Hola"), ("Hi", "Hola"), ("Good morning", "Buenos días"),
                 ("Good afternoon", "Buenas tardes"), ("Excuse me", "Perdona"), ("Sorry", "Perdona"),
                 ("I'm sorry", "Lo siento")]
    OPENERS = [("I'm sorry", "Lo siento"), ("Sorry", "Perdona"), ("Excuse me", "Perdona"),
               ("Thank you", "Gracias"), ("Don't worry", "No te preocupes"), ("Hello", "Hola"),
               ("Yes", "Sí"), ("No", "No"), ("OK", "Vale"), ("Well", "Bueno")]

    def courtesy(self, clauses=()):
        """Greetings, thanks and apologies: alone ("Thank you!"), to someone
        ("Thank you, Anna."), before a question ("Hello, how are you?") or
        before a sentence of the corpus ("I'm sorry, I didn't see you.";
        CLAUSES: (English, Spanish) pairs with their first letter lowered)."""
        r = self.r()
        if r < 0.3:
            en, es = self.ch(self.COURTESY)
            end = "!" if self.r() < 0.3 else "."
            return "phrase: courtesy", en + end, ("¡" if end == "!" else "") + es + end
        if r < 0.55:
            en, es = self.ch(self.COURTESY)
            if self.r() < 0.8:
                who_en = who_es = self.draw_name()
            else:
                who_en, who_es = self.ch([("Mum", "mamá"), ("Dad", "papá")])
            return "phrase: courtesy", "%s, %s." % (en, who_en), "%s, %s." % (es, who_es)
        if r < 0.75 or not clauses:
            en, es = self.ch(self.GREETINGS)
            q_en, q_es = self.ch(self.QUESTIONS)
            return "phrase: courtesy", "%s, %s%s" % (en, q_en[0].lower(), q_en[1:]), \
                "%s, %s%s%s" % (es, q_es[0], q_es[1].lower(), q_es[2:])
        c_en, c_es = self.ch(clauses)
        en, es = self.ch(self.GREETINGS if c_en.endswith("?") else self.OPENERS)
        return "phrase: courtesy", "%s, %s" % (en, c_en), "%s, %s" % (es, c_es)

    # Apposition nouns, Spanish (masculine, feminine): "my friend Jorge" -> "mi amigo Jorge".
    APPOSITION = {"friend": ("amigo", "amiga"), "brother": ("hermano", None), "sister": (None, "hermana"),
                  "cousin": ("primo", "prima"), "neighbour": ("vecino", "vecina"), "uncle": ("tío", None),
                  "aunt": (None, "tía"), "boss": ("jefe", "jefa"), "son": ("hijo", None),
                  "daughter": (None, "hija")}

    def naming(self):
        """ "My name is Ana." -> "Me llamo Ana."; "This is my friend Jorge." """
        name = self.draw_name()
        fem = name in self.female
        r = self.r()
        if r < 0.45:
            who = self.ch([("My name is", P1S, ""), ("Your name is", P2S, ""), ("His name is", P3S, ""),
                           ("Her name is", P3S, ""), ("I'm", P1S, "soy"), ("I am", P1S, "soy")])
            en_head, person, ser = who
            if en_head in ("His name is",) and fem or en_head == "Her name is" and not fem:
                return self.naming()
            if ser:
                return "phrase: name", "%s %s." % (en_head, name), "Soy %s." % name
            return "phrase: name", "%s %s." % (en_head, name), capitalise("%s %s." % (ES["llamarse"]["pres"][person], name))
        noun_en = self.ch(sorted(self.APPOSITION))
        es_m, es_f = self.APPOSITION[noun_en]
        es_noun = es_f if fem else es_m
        if es_noun is None:
            return self.naming()
        poss_en, poss_es, _ = self.ch(POSSESSIVE)
        if poss_es == "nuestro" and fem:
            poss_es = "nuestra"
        if r < 0.75:
            return "phrase: name", "This is %s %s %s." % (poss_en, noun_en, name), \
                "%s es %s %s %s." % ("Esta" if fem else "Este", poss_es, es_noun, name)
        # "My friend's name is Jorge." -> "Mi amigo se llama Jorge."
        return "phrase: name", capitalise("%s %s's name is %s." % (poss_en, noun_en, name)), \
            capitalise("%s %s se llama %s." % (poss_es, es_noun, name))

    LANGUAGES = [("English", "inglés"), ("Spanish", "español"), ("French", "francés"), ("German", "alemán"),
                 ("Italian", "italiano"), ("Portuguese", "portugués"), ("Chinese", "chino"),
                 ("Japanese", "japonés"), ("Arabic", "árabe"), ("Russian", "ruso"), ("Greek", "griego")]
    COUNTRIES = [("Spain", "España"), ("France", "Francia"), ("England", "Inglaterra"), ("Germany", "Alemania"),
                 ("Italy", "Italia"), ("Portugal", "Portugal"), ("Mexico", "México"), ("Argentina", "Argentina"),
                 ("Peru", "Perú"), ("Chile", "Chile"), ("Colombia", "Colombia"), ("Brazil", "Brasil"),
                 ("Japan", "Japón"), ("China", "China"), ("Canada", "Canadá"), ("Ireland", "Irlanda"),
                 ("Scotland", "Escocia"), ("Greece", "Grecia"), ("Morocco", "Marruecos"), ("Russia", "Rusia"),
                 ("Cuba", "Cuba"), ("Sweden", "Suecia"), ("Poland", "Polonia"), ("Egypt", "Egipto"),
                 ("Australia", "Australia")]
    # nationality: English, Spanish masculine, feminine, masculine plural, feminine plural
    NATIONALITIES = [("Spanish", "español", "española", "españoles", "españolas"),
                     ("English", "inglés", "inglesa", "ingleses", "inglesas"),
                     ("French", "francés", "francesa", "franceses", "francesas"),
                     ("German", "alemán", "alemana", "alemanes", "alemanas"),
                     ("Italian", "italiano", "italiana", "italianos", "italianas"),
                     ("Portuguese", "portugués", "portuguesa", "portugueses", "portuguesas"),
                     ("Mexican", "mexicano", "mexicana", "mexicanos", "mexicanas"),
                     ("Japanese", "japonés", "japonesa", "japoneses", "japonesas"),
                     ("Irish", "irlandés", "irlandesa", "irlandeses", "irlandesas"),
                     ("Brazilian", "brasileño", "brasileña", "brasileños", "brasileñas"),
                     ("Canadian", "canadiense", "canadiense", "canadienses", "canadienses"),
                     ("Chinese", "chino", "china", "chinos", "chinas")]

    def language(self):
        """Languages, countries and nationalities: "She speaks French." ->
        "Habla francés."; "I'm from Peru." -> "Soy de Perú."; "They are
        Italian." -> "Son italianos."."""
        subj = self.subject()
        r = self.r()
        third = subj.person == P3S
        if r < 0.45:
            lang_en, lang_es = self.ch(self.LANGUAGES)
            verb = self.ch(["hablar", "hablar", "estudiar", "aprender"])
            base, s_form, past = EN_VERB[verb]
            kind = self.ch(["pres", "pres", "neg", "past", "prog", "can", "question"])
            if kind == "question":
                if subj.person == P1S:
                    return self.language()
                aux = "Does" if third else "Do"
                en = "%s %s %s %s?" % (aux, subj.en, base, lang_en)
                es = "¿%s %s?" % (self.es_clause(subj, ES[verb]["pres"][subj.person]), lang_es)
                return "phrase: language", en, capitalise(es)
            if kind == "pres":
                en = "%s %s %s." % (subj.en, s_form if third else base, lang_en)
                es = "%s %s." % (self.es_clause(subj, ES[verb]["pres"][subj.person]), lang_es)
            elif kind == "neg":
                en = "%s %s %s %s." % (subj.en, "doesn't" if third else "don't", base, lang_en)
                es = "%s %s." % (self.es_clause(subj, ES[verb]["pres"][subj.person], negative=True), lang_es)
            elif kind == "past":
                en = "%s %s %s." % (subj.en, past, lang_en)
                es = "%s %s." % (self.es_clause(subj, ES[verb]["past"][subj.person]), lang_es)
            elif kind == "prog":
                ger = {"hablar": "hablando", "estudiar": "estudiando", "aprender": "aprendiendo"}[verb]
                ing = {"hablar": "speaking", "estudiar": "studying", "aprender": "learning"}[verb]
                en = "%s %s %s." % (self.be(subj, "pres"), ing, lang_en)
                es = "%s %s %s." % (self.es_clause(subj, ES["estar"]["pres"][subj.person]), ger, lang_es)
            else:
                if verb != "hablar":
                    return self.language()
                en = "%s can speak %s." % (subj.en, lang_en)
                es = "%s hablar %s." % (self.es_clause(subj, ES["saber"]["pres"][subj.person]), lang_es)
            return "phrase: language", capitalise(en), capitalise(es)
        if r < 0.75:
            country_en, country_es = self.ch(self.COUNTRIES)
            kind = self.ch(["from", "from", "born", "where"])
            if kind == "where":
                if subj.person == P1S:
                    return self.language()
                en = "Where %s %s from?" % (BE_PRES[subj.person], subj.en)
                es = "¿De dónde %s %s?" % (ES["ser"]["pres"][subj.person], subj.es) if subj.es else \
                    "¿De dónde %s?" % ES["ser"]["pres"][subj.person]
                return "phrase: language", en, es
            if kind == "from":
                en = "%s from %s." % (self.be(subj, "pres"), country_en)
                es = "%s de %s." % (self.es_clause(subj, ES["ser"]["pres"][subj.person]), country_es)
            else:
                en = "%s born in %s." % (self.be(subj, "past"), country_en)
                es = "%s en %s." % (self.es_clause(subj, ES["nacer"]["past"][subj.person]), country_es)
            return "phrase: language", capitalise(en), capitalise(es)
        nat = self.ch(self.NATIONALITIES)
        index = (1 if subj.gender == "m" else 2) + (2 if subj.plural else 0)
        negative = self.r() < 0.2
        en = "%s %s." % (self.be(subj, "pres", negative), nat[0])
        es = "%s %s." % (self.es_clause(subj, ES["ser"]["pres"][subj.person], negative), nat[index])
        return "phrase: language", capitalise(en), capitalise(es)

    PRICED = [("The ticket", "El billete", False), ("The book", "El libro", False),
              ("This shirt", "Esta camisa", False), ("The coffee", "El café", False),
              ("A bottle of water", "Una botella de agua", False), ("The room", "La habitación", False),
              ("The bus ticket", "El billete de autobús", False), ("The bread", "El pan", False),
              ("The menu", "El menú", False), ("This bag", "Este bolso", False),
              ("These shoes", "Estos zapatos", True), ("The tickets", "Los billetes", True),
              ("The apples", "Las manzanas", True), ("These glasses", "Estas gafas", True), ("It", "", False)]
    CURRENCY = [("euros", "euros"), ("dollars", "dólares"), ("pounds", "libras")]
    COUNTED = [("people", "personas"), ("students", "estudiantes"), ("children", "niños"), ("cars", "coches"),
               ("books", "libros"), ("houses", "casas")]
    COUNT_PLACE = [("at the party", "en la fiesta"), ("in my class", "en mi clase"), ("in the room", "en la habitación"),
                   ("on the bus", "en el autobús"), ("in the street", "en la calle"), ("in the village", "en el pueblo")]

    def numbers(self):
        """Prices, phone numbers, counts and clock times, in digits and words."""
        r = self.r()
        if r < 0.3:
            what_en, what_es, plural = self.ch(self.PRICED)
            cur_en, cur_es = self.ch(self.CURRENCY)
            if self.r() < 0.4:
                whole, cents = self.rng.randint(0, 20), self.ch([50, 20, 99, 75, 10])
                amount_en, amount_es = "%d.%02d" % (whole, cents), "%d,%02d" % (whole, cents)
            else:
                n = self.rng.randint(2, 100)
                amount_en = amount_es = str(n)
            if self.r() < 0.25:
                return "phrase: number", "How much %s %s%s cost?" % ("do" if plural else "does", what_en[0].lower(),
                                                                    what_en[1:]), \
                    "¿%s?" % " ".join(w for w in ("Cuánto", "cuestan" if plural else "cuesta",
                                                   what_es[:1].lower() + what_es[1:]) if w)
            en = "%s %s %s %s." % (what_en, "cost" if plural else "costs", amount_en, cur_en)
            es = " ".join(w for w in (what_es, "cuestan" if plural else "cuesta", amount_es, cur_es) if w) + "."
            return "phrase: number", en, capitalise(es)
        if r < 0.45:
            digits = self.ch(["%03d %03d %03d", "%03d-%03d-%03d", "%03d %02d %02d %02d"])
            parts = digits.count("%")
            number = digits % tuple(self.rng.randint(10, 999) if i == 0 else self.rng.randint(0, 99)
                                    for i in range(parts))
            owner = self.ch(POSSESSIVE)
            return "phrase: number", "%s phone number is %s." % (capitalise(owner[0]), number), \
                "%s número de teléfono es %s." % (capitalise(owner[1]), number)
        if r < 0.75:
            thing_en, thing_es = self.ch(self.COUNTED)
            place_en, place_es = self.ch(self.COUNT_PLACE)
            n = self.rng.randint(2, 100)
            if n % 10 == 1 and n != 11:
                n += 1   # "veintiuna personas", "veintiún coches": leave the agreement out
            n_en, n_es = (str(n), str(n)) if self.r() < 0.4 else (number_en(n), number_es(n))
            tense = self.ch([("There are", "Hay"), ("There were", "Había"), ("There will be", "Habrá")])
            return "phrase: number", "%s %s %s %s." % (tense[0], n_en, thing_en, place_en), \
                "%s %s %s %s." % (tense[1], n_es, thing_es, place_es)
        hour = self.rng.randint(1, 12)
        hour_en = number_en(hour)
        article = "la" if hour == 1 else "las"
        verb = "Es" if hour == 1 else "Son"
        hour_es = "una" if hour == 1 else number_es(hour)
        kind = self.ch(["oclock", "half", "quarter", "to"])
        if kind == "oclock":
            return "phrase: number", "It's %s o'clock." % hour_en, "%s %s %s." % (verb, article, hour_es)
        if kind == "half":
            return "phrase: number", "It's half past %s." % hour_en, "%s %s %s y media." % (verb, article, hour_es)
        if kind == "quarter":
            return "phrase: number", "It's a quarter past %s." % hour_en, \
                "%s %s %s y cuarto." % (verb, article, hour_es)
        return "phrase: number", "It's a quarter to %s." % hour_en, "%s %s %s menos cuarto." % (verb, article, hour_es)

    FAMILIES = ("feeling", "age", "weather", "calendar", "liking", "courtesy", "naming", "language", "numbers")

    def draw(self, clauses=()):
        family = self.ch(self.FAMILIES)
        if family == "courtesy":
            return self.courtesy(clauses)
        return getattr(self, family)()


def phrases(rng, count, draw_name, female, clauses=()):
    """COUNT distinct (construction, English, Spanish) triples from all
    families.  CLAUSES: (English, Spanish) sentences of the corpus, first
    letters lowered where they are not names, that a courtesy phrase may open
    ("I'm sorry, ...")."""
    maker = Phrases(rng, draw_name, female)
    seen, out = set(), []
    tries = 0
    while len(out) < count and tries < count * 20:
        tries += 1
        cons, en, es = maker.draw(clauses)
        if en in seen:
            continue
        seen.add(en)
        out.append((cons, en, es))
    return out
