#!/usr/bin/env python3
"""vocab_sizes.py -- choose the SentencePiece vocabulary size by measurement.

For each size, trains a BPE vocabulary on both sides of a corpus with the
settings of the app's trainer (core/text/subword_training.cpp: BPE, identity
normalisation, byte fallback, digits split, character coverage 1.0) and
reports how many of the most frequent English word forms (coverage.py's
list) are one piece, and the mean pieces per English and Spanish sentence
(longer sequences cost training time).

    python3 tools/everyday_corpus/vocab_sizes.py --train DIR/train.tsv.gz --sizes 8000,12000,16000 \\
        [--npm .npm-data/node_modules] [--top 1000] [--sample 200000] [--keep DIR]

Needs Debian's python3-sentencepiece (spm's Python module); run with
/usr/bin/python3.
"""

import argparse
import gzip
import os
import random
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import coverage   # noqa: E402  (a sibling script, run without the package)

# core/text/subword_training.cpp's arguments, less the ones the Python trainer takes from a file.
TRAINER_ARGS = dict(model_type="bpe", hard_vocab_limit=False, character_coverage=1.0, byte_fallback=True,
                    normalization_rule_name="identity", split_digits=True, pad_id=0, bos_id=1, eos_id=2,
                    unk_id=3, pad_piece="<pad>", bos_piece="<bos>", eos_piece="<eos>", unk_piece="<unk>",
                    input_sentence_size=0, shuffle_input_sentence=False, num_threads=1,
                    max_sentence_length=100000, minloglevel=2)


def read_pairs(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return [line.rstrip("\n").split("\t")[:2] for line in f if "\t" in line]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--train", required=True)
    ap.add_argument("--sizes", default="8000,12000,16000")
    ap.add_argument("--npm", default=coverage.DEFAULT_NPM)
    ap.add_argument("--top", type=int, default=1000)
    ap.add_argument("--sample", type=int, default=0,
                    help="measure pieces per sentence on this many pairs (0: all)")
    ap.add_argument("--keep", help="write the models here (size.model) instead of a temporary folder")
    args = ap.parse_args()
    import sentencepiece as spm   # Debian python3-sentencepiece
    pairs = read_pairs(args.train)
    sample = pairs if not args.sample else random.Random(1).sample(pairs, min(args.sample, len(pairs)))
    words = coverage.frequent_words(args.npm, max(args.top, 2000))
    out_dir = args.keep or tempfile.mkdtemp()
    os.makedirs(out_dir, exist_ok=True)
    text = os.path.join(out_dir, "sentences.txt")
    with open(text, "w", encoding="utf-8") as f:
        for en, es in pairs:   # the trainer's order (core/train/tasks.cpp): source, target, per pair
            f.write(en + "\n" + es + "\n")
    print("| pieces | one piece, top %d | one piece, top 2000 | pieces per English sentence | per Spanish |"
          % args.top)
    print("|---:|---:|---:|---:|---:|")
    for size in [int(s) for s in args.sizes.split(",")]:
        prefix = os.path.join(out_dir, str(size))
        spm.SentencePieceTrainer.train(input=text, model_prefix=prefix, vocab_size=size, **TRAINER_ARGS)
        sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
        whole_top = sum(sp.encode(w, out_type=str) == ["\u2581" + w] for w in words[:args.top])
        whole_2000 = sum(sp.encode(w, out_type=str) == ["\u2581" + w] for w in words[:2000])
        en_pieces = sum(len(sp.encode(en)) for en, _ in sample) / len(sample)
        es_pieces = sum(len(sp.encode(es)) for _, es in sample) / len(sample)
        print("| %d | %.1f%% | %.1f%% | %.2f | %.2f |" % (size, 100.0 * whole_top / args.top,
                                                          100.0 * whole_2000 / 2000, en_pieces, es_pieces),
              flush=True)
    if not args.keep:
        print("(models in %s)" % out_dir)


if __name__ == "__main__":
    main()
