#!/usr/bin/python3
"""The PyTorch peer of `txcli train --task translate --preset translate` (docs/design.md §10).

Same data, same batches, same model and loss as ours:
- Data: source<TAB>target pairs (core/text/parallel_corpus.cpp), tokenized with the SentencePiece model
  of one of our checkpoints (the U8 tensor "tokenizer.model"; --tokenizer-from), so ids are ours.
  Pairs longer than max_len - 1 tokens on either side are skipped; the held-out set is the first
  eval_sequences pairs of the valid file that fit, distinct inputs (with --data alone, every 20th
  pair of it, as txcli does); training pairs whose input is held out are dropped (Task::load_pairs).
- Batches: Task::refill_length_batches ported exactly (splitmix64 Rng, Lemire's uniform, mix_seed,
  the TRAIN stream): each epoch shuffles the pairs, sorts pools of 50 batches by (source length,
  target length) with a stable sort, and shuffles the pool's batches. `--print-batches K` prints
  the first K batches' source ids (EOS included) as JSON, one batch a line, to compare with ours.
- Model: 128/4/512, 3+3 Post-LN layers without final norms (nn.TransformerEncoderLayer /
  nn.TransformerDecoderLayer), embeddings × √d_model, sinusoidal PE, dropout 0.1, generator =
  linear + log-softmax, V = the SentencePiece vocabulary; Xavier-uniform on every matrix (PyTorch's
  defaults for biases, as ours). max_len 64.
- Loss: label-smoothed KL per non-PAD target token, as core/ops/ops_loss.cpp: the target distribution
  puts 1 - ε on the target, ε / (V - 2) on every other token except PAD, 0 on PAD (ε = 0.1).
- Adam(β 0.9/0.98, ε 1e-9), Noam lr = 1.0 · 128^-0.5 · min(s^-0.5, s · 1500^-1.5), batch 64.
Timed: the training steps only (forward, loss, backward, update, and turning the batch's id lists
into tensors, which ours also counts); evaluation is excluded, like ours. --minutes M trains for
M minutes of that time, then evaluates (BLEU after the same training time). --eval decodes the
held-out set greedily at the end (batches of 200, at most the batch's longest output + 1 tokens,
as core/train/evaluation.cpp) and scores corpus BLEU with NLTK over ours' bleu_words split (core/include/tx/bleu.h)
of ours' detokenisation (core/text/sentencepiece_tokenizer.cpp: UNK reads "<unk>").

Prints one JSON line: {"impl": "pytorch", "tokens_per_s": ..., "bleu": ..., ...}; tokens = non-PAD
targets (EOS included), as ours. Threads: --threads N sets torch's intra-op pool and OpenBLAS's own.
"""
import argparse
import json
import math
import os
import sys
import time

from torch_peer import checkpoint_u8, pin_threads

PAD, BOS, EOS, UNK = 0, 1, 2, 3
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MASK64 = (1 << 64) - 1
TRAIN_STREAM = 0x545241494E   # "TRAIN", core/train/tasks.cpp


# --- core/train/tasks.cpp: Rng (splitmix64), Lemire's uniform, mix_seed -------------------------------

class Rng:
    def __init__(self, seed):
        self.state = seed & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self, n):   # in [0, n): the high 64 bits of the 128-bit product
        return (self.next() * n) >> 64


def mix_seed(a, b):
    rng = Rng(((a * 0xD1B54A32D192ED03) & MASK64) ^ ((b + 0x8CB92BA72F3D8DD7) & MASK64))
    rng.next()
    return rng.next()


# --- data ---------------------------------------------------------------------------------------

def find_asset(path):
    """As core/train/tasks.cpp find_asset: the path as given, else under the working directory's parents or ROOT."""
    if os.path.isabs(path) or os.path.exists(path):
        return path
    d = os.getcwd()
    for _ in range(5):
        if os.path.exists(os.path.join(d, path)):
            return os.path.join(d, path)
        d = os.path.dirname(d)
    return os.path.join(ROOT, path) if os.path.exists(os.path.join(ROOT, path)) else path


def read_pairs(path):
    """core/text/parallel_corpus.cpp read_parallel_corpus: lines split at '\\n', a trailing '\\r' and a
    first-line BOM dropped, empty lines skipped, exactly one tab and two non-blank sides."""
    with open(find_asset(path), "rb") as f:
        raw = f.read()
    pairs = []
    lines = raw.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for number, line in enumerate(lines, 1):
        if line.endswith(b"\r"):
            line = line[:-1]
        if number == 1 and line.startswith(b"\xef\xbb\xbf"):
            line = line[3:]
        if not line:
            continue
        parts = line.split(b"\t")
        if len(parts) != 2 or not parts[0].strip(b" ") or not parts[1].strip(b" "):
            sys.exit(f"{path}:{number}: not a source<TAB>target pair")
        pairs.append((parts[0].decode("utf-8"), parts[1].decode("utf-8")))
    if not pairs:
        sys.exit(f"{path}: no sentence pairs")
    return pairs


class Task:
    """core/train/tasks.cpp Task for TaskKind::Translate: load_pairs, restart, next_batch."""

    def __init__(self, sp, data, valid, eval_sequences, max_len, seed):
        self.sp = sp
        fit = max_len - 1   # room for EOS (source) or BOS (decoder input)
        train = read_pairs(data)
        if valid:
            held = read_pairs(valid)
        else:   # one file: every 20th pair is held out
            held = [p for i, p in enumerate(train) if i % 20 == 19]
            train = [p for i, p in enumerate(train) if i % 20 != 19]
            if not held:
                sys.exit(f"{data} has fewer than 20 pairs")

        def encode(p):
            src, tgt = sp.encode(p[0]), sp.encode(p[1])
            ok = 0 < len(src) <= fit and 0 < len(tgt) <= fit
            return ok, (src, tgt)

        self.held_out, held_inputs = [], set()
        for p in held:
            if len(self.held_out) >= eval_sequences:
                break
            ok, e = encode(p)
            if ok and tuple(e[0]) not in held_inputs:
                held_inputs.add(tuple(e[0]))
                self.held_out.append(e)
        self.pairs, self.skipped = [], 0
        for p in train:
            ok, e = encode(p)
            if not ok:
                self.skipped += 1
            elif tuple(e[0]) not in held_inputs:
                self.pairs.append(e)
        if not self.pairs or not self.held_out:
            sys.exit("no sentence pair fits max_len for " + ("training" if not self.pairs else "evaluation"))
        self.rng = Rng(mix_seed(TRAIN_STREAM, seed))
        self.queue, self.next_index = [], 0

    def refill(self, rows):
        """Task::refill_length_batches: the batches of one epoch, in the order they are taken."""
        rng, pairs = self.rng, self.pairs
        order = list(range(len(pairs)))
        for i in range(len(order), 1, -1):
            j = rng.uniform(i)
            order[i - 1], order[j] = order[j], order[i - 1]
        pool = 50 * rows
        self.queue, self.next_index = [], 0
        for begin in range(0, len(order), pool):
            # sorted() is stable, as std::stable_sort
            part = sorted(order[begin:begin + pool], key=lambda k: (len(pairs[k][0]), len(pairs[k][1])))
            batches = [part[i:i + rows] for i in range(0, len(part), rows)]
            for i in range(len(batches), 1, -1):
                j = rng.uniform(i)
                batches[i - 1], batches[j] = batches[j], batches[i - 1]
            self.queue.extend(batches)

    def next_batch(self, rows):
        if self.next_index >= len(self.queue):
            self.refill(rows)
        b = self.queue[self.next_index]
        self.next_index += 1
        return [self.pairs[k] for k in b]


def to_tensors(torch, examples):
    """make_batch: src = input + EOS, decoder input = BOS + output, targets = output + EOS, PAD after."""
    S = max(len(s) for s, _ in examples) + 1
    T = max(len(t) for _, t in examples) + 1
    src = torch.tensor([s + [EOS] + [PAD] * (S - len(s) - 1) for s, _ in examples])
    tgt = torch.tensor([[BOS] + t + [PAD] * (T - len(t) - 1) for _, t in examples])
    y = torch.tensor([t + [EOS] + [PAD] * (T - len(t) - 1) for _, t in examples])
    return src, tgt, y


# --- evaluation text: core/text/sentencepiece_tokenizer.cpp decode, core/metrics/bleu.cpp bleu_words ----------

WORD_MARK = "\u2581".encode("utf-8")


def append_bytes(out, data):
    """Byte pieces' bytes: valid UTF-8 sequences as they are, every other byte as U+FFFD."""
    i = 0
    while i < len(data):
        b0 = data[i]
        n = 1 if b0 < 0x80 else 2 if (b0 >> 5) == 6 else 3 if (b0 >> 4) == 14 else 4 if (b0 >> 3) == 30 else 0
        ok = n > 0 and i + n <= len(data) and all((data[i + k] & 0xC0) == 0x80 for k in range(1, n))
        if ok:
            out += data[i:i + n]
            i += n
        else:
            out += "\ufffd".encode("utf-8")
            i += 1


def decode_text(sp, ids):
    out, pending = bytearray(), bytearray()
    for i in ids:
        if i in (PAD, BOS, EOS):
            continue
        piece = sp.id_to_piece(i)
        if sp.is_byte(i) and len(piece) == 6 and piece.startswith("<0x") and piece.endswith(">"):
            pending.append(int(piece[3:5], 16))
            continue
        append_bytes(out, pending)
        pending.clear()
        out += b"<unk>" if i == UNK else piece.encode("utf-8").replace(WORD_MARK, b" ")
    append_bytes(out, pending)
    return bytes(out[1:] if out[:1] == b" " else out)


PUNCT = {0xA1, 0xBF, 0xAB, 0xBB, 0x2013, 0x2014, 0x2018, 0x2019, 0x201C, 0x201D, 0x2026}


def next_code_point(text, i):
    b = text[i]
    if b < 0x80:
        return b, 1
    if (b & 0xE0) == 0xC0:
        n, cp = 2, b & 0x1F
    elif (b & 0xF0) == 0xE0:
        n, cp = 3, b & 0x0F
    elif (b & 0xF8) == 0xF0:
        n, cp = 4, b & 0x07
    else:
        return -1, 1
    if i + n > len(text):
        return -1, 1
    for k in range(1, n):
        if (text[i + k] & 0xC0) != 0x80:
            return -1, 1
        cp = (cp << 6) | (text[i + k] & 0x3F)
    return cp, n


def bleu_words(text):
    """core/include/tx/bleu.h: runs of letters/digits and single punctuation characters; whitespace dropped."""
    words, word, i = [], b"", 0
    while i < len(text):
        cp, n = next_code_point(text, i)
        if cp < 0:
            kind = "w"
        elif cp <= 0x20 or cp == 0x7F:
            kind = "s"
        elif cp < 0x80:
            kind = "w" if chr(cp).isascii() and chr(cp).isalnum() else "p"
        else:
            kind = "p" if cp in PUNCT else "w"
        if kind == "w":
            word += text[i:i + n]
        else:
            if word:
                words.append(word)
            word = b""
            if kind == "p":
                words.append(text[i:i + n])
        i += n
    if word:
        words.append(word)
    return words


def corpus_bleu(hypotheses, references):
    import warnings
    from nltk.translate.bleu_score import corpus_bleu as nltk_bleu
    if not hypotheses:
        return 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return float(nltk_bleu([[r] for r in references], hypotheses))


# --- training and evaluation (the model is bench_train.py's) ---------------------------------------

def smoothed_kl(lp, y, smoothing):
    """Σ over non-PAD rows of KL(t || p), t = 1-ε on y, ε/(V-2) on the others but PAD, 0 on PAD
    (core/ops/ops_loss.cpp), written in closed form: Σ_v t_v log t_v - Σ_v t_v lp_v."""
    V = lp.shape[-1]
    lp = lp.reshape(-1, V)
    y = y.reshape(-1)
    keep = y != PAD
    lp, y = lp[keep], y[keep]
    on = 1.0 - smoothing
    off = smoothing / (V - 2) if V > 2 else 0.0
    const = (on * math.log(on) if on > 0 else 0.0) + ((V - 2) * off * math.log(off) if off > 0 else 0.0)
    lp_y = lp.gather(1, y[:, None])[:, 0]
    rows = const - on * lp_y
    if off > 0:
        rows = rows - off * (lp.sum(-1) - lp[:, PAD] - lp_y)
    return rows.sum(), int(keep.sum())


def evaluate(torch, model, task, max_len, dev, batch=200):
    """core/train/evaluation.cpp: batched greedy decoding, exact match and corpus BLEU over the held-out set."""
    model.eval()
    exact, hyps, refs = 0, [], []
    for i in range(0, len(task.held_out), batch):
        part = task.held_out[i:i + batch]
        src, _, _ = to_tensors(torch, part)
        ys = model.greedy(src.to(dev), min(max(len(t) for _, t in part) + 1, max_len - 1))
        for r, (_, want) in enumerate(part):
            out = ys[r, 1:].tolist()
            out = out[: out.index(EOS)] if EOS in out else [t for t in out if t != PAD]
            exact += out == want
            hyps.append(bleu_words(decode_text(task.sp, out)))
            refs.append(bleu_words(decode_text(task.sp, want)))
    model.train()
    return exact / len(task.held_out), corpus_bleu(hyps, refs)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", help="training pairs (default assets/corpus/en-es/train.tsv with valid.tsv held out)")
    ap.add_argument("--valid", help="held-out pairs (default: with --data, every 20th pair of it, as txcli)")
    ap.add_argument("--tokenizer-from", required=True, metavar="CHECKPOINT",
                    help="one of our .safetensors checkpoints trained on the same data (its tokenizer.model)")
    ap.add_argument("--steps", type=int, default=0, help="training steps (0: only --minutes limits)")
    ap.add_argument("--minutes", type=float, default=0.0, help="train for M minutes of training time, then evaluate")
    ap.add_argument("--eval", action="store_true", help="greedy-decode the held-out set at the end: exact match, BLEU")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--label", default="pytorch")
    ap.add_argument("--device", default="cpu", help="cpu or cuda (float32, eager)")
    ap.add_argument("--print-batches", type=int, default=0, metavar="K",
                    help="print the first K batches' source ids (EOS included) as JSON lines and exit")
    ap.add_argument("--d-model", type=int, default=128)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--d-ff", type=int, default=512)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--max-len", type=int, default=64)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1.0)
    ap.add_argument("--warmup", type=int, default=1500)
    ap.add_argument("--smoothing", type=float, default=0.1)
    ap.add_argument("--eval-sequences", type=int, default=500)
    a = ap.parse_args()
    if a.steps <= 0 and a.minutes <= 0 and not a.print_batches:
        ap.error("give --steps N and/or --minutes M")
    wall0 = time.perf_counter()
    if a.data is None:
        data, valid = "assets/corpus/en-es/train.tsv", a.valid or "assets/corpus/en-es/valid.tsv"
    else:
        data, valid = a.data, a.valid

    import sentencepiece
    sp = sentencepiece.SentencePieceProcessor(model_proto=checkpoint_u8(a.tokenizer_from, "tokenizer.model"))
    if [sp.id_to_piece(i) for i in range(4)] != ["<pad>", "<bos>", "<eos>", "<unk>"]:
        sys.exit("the SentencePiece model's first pieces are not <pad> <bos> <eos> <unk>")
    task = Task(sp, data, valid, a.eval_sequences, a.max_len, a.seed)
    if a.print_batches:
        print(f"pairs {len(task.pairs)} held {len(task.held_out)} skipped {task.skipped}", file=sys.stderr)
        for _ in range(a.print_batches):
            print(json.dumps([s + [EOS] for s, _ in task.next_batch(a.batch)]))
        return

    import torch
    from bench_train import Model
    dev = torch.device(a.device)
    sync = torch.cuda.synchronize if dev.type == "cuda" else (lambda: None)
    pin_threads(a.threads)
    torch.manual_seed(a.seed)
    V = sp.get_piece_size()
    model = Model(V, a.d_model, a.heads, a.d_ff, a.layers, a.dropout, a.max_len).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=0.0, betas=(0.9, 0.98), eps=1e-9)
    model.train()
    limit_s = a.minutes * 60.0
    train_s, tokens, step, loss_value = 0.0, 0, 0, float("nan")
    while (a.steps <= 0 or step < a.steps) and (limit_s <= 0 or train_s < limit_s):
        examples = task.next_batch(a.batch)
        sync()
        t0 = time.perf_counter()
        src, tgt, y = (t.to(dev) for t in to_tensors(torch, examples))
        s = step + 1
        lr = a.lr * a.d_model ** -0.5 * min(s ** -0.5, s * a.warmup ** -1.5)
        for g in opt.param_groups:
            g["lr"] = lr
        lp = model(src, tgt)
        total, ntok = smoothed_kl(lp, y, a.smoothing)
        loss = total / ntok
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        sync()
        train_s += time.perf_counter() - t0
        tokens += ntok
        step = s
        loss_value = loss.item()
    em, bleu = (None, None)
    if a.eval:
        em, bleu = evaluate(torch, model, task, a.max_len, dev)
    print(json.dumps({"impl": a.label, "steps": step, "loss": round(loss_value, 6),
                      "tokens_per_s": round(tokens / train_s, 1) if train_s > 0 else 0.0,
                      "train_s": round(train_s, 3), "wall_s": round(time.perf_counter() - wall0, 3),
                      "bleu": bleu, "exact_match": em, "threads": a.threads, "vocab": V,
                      "pairs": len(task.pairs), "held_out": len(task.held_out), "device": a.device,
                      "torch": torch.__version__}))


if __name__ == "__main__":
    main()
