"""Apertium, the corpus's teacher: translation, morphological analysis,
the bilingual dictionary and the English generator.

English is translated by Apertium's own eng-spa pipeline, run in three
parts so that two things can be mended between them, both because a
sentence whose Spanish is wrong fails the round trip and its words go
missing from the corpus:

  - before the tagger, a word's analyses of another part of speech are
    dropped where one of the generator's own is left (keep_known_tags):
    the tagger read "lives" in "My friend lives in Madrid." as a noun;
  - before lexical selection, the everyday Spanish sense of a few words is
    moved to the front of the dictionary's choices (prefer_senses): the
    dictionary takes "obrar" for "work" and "tono" for "key".

Without a word to mend, the split pipeline gives `apertium eng-spa`'s
output byte for byte.  Spanish goes back to English with plain
`apertium spa-eng`."""

import collections
import functools
import os
import re
import subprocess

from .common import TOKEN_RE

A_DIR = "/usr/share/apertium/apertium-eng-spa"
APERTIUM_MODES = "/usr/share/apertium/modes"
ENG_MORF = os.path.join(A_DIR, "eng-spa.automorf.bin")
ENG_GEN = os.path.join(A_DIR, "spa-eng.autogen.bin")
SPA_MORF = os.path.join(A_DIR, "spa-eng.automorf.bin")
SPA_GEN = os.path.join(A_DIR, "eng-spa.autogen.bin")
BIDIX = os.path.join(A_DIR, "eng-spa.autobil.bin")

# The generator's parts of speech as Apertium's first English tag.
ENG_POS_TAG = {"n": "n", "v": "vblex", "adj": "adj", "adv": "adv"}

# For some English words Apertium's bilingual dictionary lists several
# Spanish ones, and where no lexical-selection rule fires it takes the first,
# which is often not the everyday sense: "She works at the hospital." ->
# "Obra en el hospital." (obrar), "the train station" -> "la canal de tren",
# "the key" -> "el tono".  EVERYDAY_SENSES names, for such a word (lemma,
# Apertium part of speech), the Spanish lemma an everyday sentence means;
# each was checked by hand against the dictionary's own list
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

# An Apertium stream unit ^source/target1/target2...$ (\\ escapes ^ $ / inside).
STREAM_UNIT_RE = re.compile(r"\^((?:\\.|[^$\\])*)\$")
UNESCAPED_SLASH_RE = re.compile(r"(?<!\\)/")
# A lexical unit of lt-proc's output (no escapes in the generator's words).
LU_RE = re.compile(r"\^(.*?)\$")


def run_lines(cmd, lines, chunk=20000):
    """CMD (an lt-proc call) on LINES, one output line per input line."""
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


def run_shell(command, text):
    return subprocess.run(["bash", "-o", "pipefail", "-c", command], input=text, capture_output=True,
                          text=True, check=True).stdout


@functools.lru_cache(maxsize=None)   # the same commands for every batch of a run
def apertium_parts(mode, marks=True):
    """The pipeline that `apertium MODE` runs (modes/MODE.mode with word-bound
    blanks, no tagger option; output option -g, or -n as `apertium -u` when
    marks=False: unknown words unmarked), as three shell commands: the
    morphological analysis, the tagger up to and including the bilingual
    dictionary, and lexical selection on."""
    pipeline = subprocess.run(["apertium-wblank-mode", os.path.join(APERTIUM_MODES, mode + ".mode")],
                              capture_output=True, text=True, check=True).stdout.strip()
    pipeline = "apertium-destxt | " + pipeline.replace("$1", "-g" if marks else "-n").replace("$2", "")
    parts = []
    for program in ("apertium-tagger", "lrx-proc"):
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


def apertium_with_senses(mode, text, senses, marks=True, hints=None):
    """`apertium MODE` (marks=False: `apertium -u MODE`) on TEXT, with
    prefer_senses between the bilingual dictionary and lexical selection;
    with HINTS (one per line of TEXT), keep_known_tags before the tagger."""
    analyse_, tag_, rest = apertium_parts(mode, marks)
    analysed = run_shell(analyse_, text)
    if hints is not None:
        analysed = keep_known_tags(analysed, hints)
    return run_shell(rest, prefer_senses(run_shell(tag_, analysed), senses))


def translate(mode, lines, batch=5000, senses=None, hints=None):
    """Apertium MODE on each line, in batches; with SENSES through
    apertium_with_senses, which takes HINTS (one per line, from
    known_tag_hints, or None) too.  A batch that comes back with another
    line count is halved until it aligns; a single line that does not
    becomes "@misaligned", which the filter rejects as an unknown word."""
    out = []
    for i in range(0, len(lines), batch):
        part = lines[i:i + batch]
        out.extend(_translate_checked(mode, part, senses, hints and hints[i:i + batch]))
    return out


def _translate_checked(mode, lines, senses, hints):
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
    return (_translate_checked(mode, lines[:h], senses, hints and hints[:h]) +
            _translate_checked(mode, lines[h:], senses, hints and hints[h:]))


def clean_es(s):
    """Apertium's Spanish with single spaces, no space before punctuation,
    and a capital first letter."""
    s = re.sub(r"\s+", " ", s).strip()
    s = re.sub(r" ([.,?!:;])", r"\1", s)
    s = s.replace('" ', '"') if s.count('"') == 1 else s
    return s[:1].upper() + s[1:]


def parse_analyses(body):
    """One lexical unit of lt-proc's output -> (surface, [(lemma, tags)]),
    unknown words ("*") left out and joined words ("+") taken apart."""
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
    """For each sentence, [(token, [(lemma, tags)])] aligned with its
    TOKEN_RE tokens, or None where the analyser segments it otherwise."""
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


def bidix_lines(queries):
    """Apertium's bilingual dictionary on stream units ("^key<n><sg>$"): one
    line of choices each, the everyday sense first (prefer_senses), so that
    what the generator reads of a word (a noun's gender) is the word
    Apertium will write."""
    return [prefer_senses(line, EVERYDAY_SENSES) for line in run_lines(["lt-proc", "-b", BIDIX], queries)]


def noun_info(words):
    """{noun: (Spanish gender, English plural, Spanish lemma)}, from Apertium."""
    tr = bidix_lines(["^%s<n><sg>$" % w for w in words])
    pl = run_lines(["lt-proc", "-g", ENG_GEN], ["^%s<n><pl>$" % w for w in words])
    info = {}
    for w, t, p in zip(words, tr, pl):
        m = re.search(r"/([^/<]+)<n><([mf])>", t)
        if m and "#" not in p:
            info[w] = (m.group(2), p, m.group(1))
    return info


def bilingual_lemmas(content):
    """{(English lemma, part of speech): {Spanish lemmas}}: every translation
    the bilingual dictionary has for each content word, under each of its
    English analyses of that part of speech; the filter looks for one of
    them in the Spanish."""
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
    # "want to" and "need to" clauses check these verbs, whichever
    # translation the dictionary lists first
    table[("want", "v")].add("querer")
    table[("need", "v")].add("necesitar")
    return table
