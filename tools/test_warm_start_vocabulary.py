"""Tests of warm_start_vocabulary.py: which old rows each new piece starts from, and that a
checkpoint written and read back keeps its tensors and metadata. A small stand-in replaces the
SentencePiece processors, so the tests need numpy only."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import numpy as np
    import warm_start_vocabulary as warm
except ImportError:   # python3-numpy is not installed
    warm = None


class OldTokenizer:
    """Pieces by id; EncodeAsIds cuts text as SentencePiece would with these pieces: a word mark in
    front, then the longest known piece at each place."""

    def __init__(self, pieces):
        self.pieces = pieces

    def GetPieceSize(self):
        return len(self.pieces)

    def IdToPiece(self, i):
        return self.pieces[i]

    def EncodeAsIds(self, text):
        text = "\u2581" + text.replace(" ", "\u2581").lstrip("\u2581")
        ids, at = [], 0
        while at < len(text):
            for end in range(len(text), at, -1):
                if text[at:end] in self.pieces:
                    ids.append(self.pieces.index(text[at:end]))
                    at = end
                    break
            else:
                ids.append(3)   # <unk>
                at += 1
        return ids


@unittest.skipIf(warm is None, "needs python3-numpy")
class SourceRows(unittest.TestCase):
    OLD = ["<pad>", "<bos>", "<eos>", "<unk>", "\u2581", "\u2581si", "ster", "\u2581the", "s", "t", "e", "r"]

    def test_a_shared_piece_keeps_its_row_and_a_new_one_averages_its_cuts(self):
        rows = warm.source_rows(["<pad>", "\u2581the", "\u2581sister", "ster"], OldTokenizer(self.OLD))
        self.assertEqual(rows[0], [0])
        self.assertEqual(rows[1], [7])
        self.assertEqual(rows[2], [5, 6])      # ▁sister -> ▁si + ster
        self.assertEqual(rows[3], [6])         # a piece the old vocabulary has: its own row

    def test_a_piece_inside_a_word_drops_the_lone_word_mark(self):
        rows = warm.source_rows(["ters"], OldTokenizer(self.OLD))
        self.assertEqual(rows[0], [9, 10, 11, 8])   # t e r s, not ▁ t e r s


@unittest.skipIf(warm is None, "needs python3-numpy")
class Checkpoint(unittest.TestCase):
    def test_written_and_read_back_unchanged(self):
        tensors = {"a.weight": np.arange(6, dtype=np.float32).reshape(2, 3),
                   "tokenizer.model": np.frombuffer(b"model bytes", dtype=np.uint8)}
        metadata = {"format": "transformer-explorer/1", "config": "{}"}
        with tempfile.TemporaryDirectory() as work:
            path = os.path.join(work, "c.safetensors")
            warm.write_checkpoint(path, metadata, tensors)
            self.assertFalse(os.path.exists(path + ".tmp"))
            with open(path, "rb") as f:
                self.assertEqual(int.from_bytes(f.read(8), "little") % 8, 0)   # data 8-byte aligned
            read_metadata, read = warm.read_safetensors(path)
        self.assertEqual(read_metadata, metadata)
        self.assertEqual(list(read), list(tensors))
        for name in tensors:
            self.assertTrue(np.array_equal(read[name], tensors[name]))


if __name__ == "__main__":
    unittest.main()
