#!/usr/bin/python3
# GPU benchmarks, ours against PyTorch eager on the same GPU in one run (float32):
#   1. base model forward (512/8/2048, 2+2), batch 1 and 32, lengths 32/128/512, eval mode:
#      `txcli bench --backend cuda` (steps queued back to back) vs the same work in PyTorch
#      (embeddings × √D + PE, nn.Transformer with a causal target mask, generator, log-softmax);
#   2. attention alone, 8 heads, dk 64, lengths 512-4096: our fused kernel and our step-by-step
#      ops (bench/attention_bench) vs torch.nn.functional.scaled_dot_product_attention;
#   3. training on the Annotated copy task (`--preset annotated`): tokens/s of `txcli train
#      --backend cuda` vs bench/bench_train.py --device cuda;
#   4. KV-cached greedy generation, batch 1, a 16-id source, exactly n tokens (encoder included):
#      `txcli bench --backend cuda --decode` vs bench_generate.py's hand-written cached loop
#      (nn.Transformer has no cache), run here on the GPU with the same checkpoint's weights.
# Usage: bench_cuda.py --txcli PATH --attention-bench PATH [--repeats 30] [--train-steps 200]
#        [--decode 32,128,256]
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

from bench_forward import peer_forward, peer_model
from bench_generate import cached_greedy, load_weights
from torch_peer import sinusoidal_pe, wall_ms

HERE = os.path.dirname(os.path.abspath(__file__))


def torch_forward_ms(B, L, repeats):
    """Median ms of bench_forward.py's peer forward on the GPU, base model, batch B, length L."""
    import torch
    D, V = 512, 2008
    dev = torch.device("cuda")
    m = peer_model(D, 8, 2048, 2, V).to(dev)
    pe = sinusoidal_pe(L, D).to(dev)
    src = torch.randint(4, V, (B, L), device=dev)
    tgt = torch.randint(4, V, (B, L), device=dev)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(L).to(dev)
    return cuda_median_ms(lambda: peer_forward(m, src, tgt, pe, mask), repeats)


def cuda_median_ms(f, repeats):
    import torch
    with torch.inference_mode():
        for _ in range(5):
            f()
        times = []
        for _ in range(repeats):
            start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            f()
            stop.record()
            stop.synchronize()
            times.append(start.elapsed_time(stop))
    return statistics.median(times)


def torch_sdpa_ms(B, H, L, dk, repeats):
    import torch
    q, k, v = (torch.randn(B, H, L, dk, device="cuda") for _ in range(3))
    return cuda_median_ms(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v), repeats)


def torch_generate_ms(ckpt, n, repeats):
    """Median ms of bench_generate.py's cached greedy loop on the GPU, the same code as on the CPU."""
    import torch

    dev = torch.device("cuda")
    generate = cached_greedy(*load_weights(ckpt, dev), n, dev)

    def synced():   # the wall time holds the GPU's work too
        generate()
        torch.cuda.synchronize()

    with torch.inference_mode():
        return statistics.median(wall_ms(synced, repeats, warmup=1))


def ours_generate(txcli, ckpt, lengths, repeats):
    """{n: (cached tok/s, full tok/s, same ids)} from `txcli bench --decode`'s table (batch 1)."""
    out = subprocess.run([txcli, "bench", "--checkpoint", ckpt, "--backend", "cuda", "--decode",
                          ",".join(map(str, lengths)), "--repeats", str(repeats), "--src-len", "16"],
                         check=True, capture_output=True, text=True).stdout
    result = {}
    for line in out.splitlines():
        f = line.split()
        # tokens, full ms, [min-max], full tok/s, cached ms, [min-max], cached tok/s, speed-up, same ids
        if len(f) == 9 and f[0].isdigit():
            result[int(f[0])] = (float(f[6]), float(f[3]), f[8])
    return result


def run_json(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--txcli", required=True)
    ap.add_argument("--attention-bench", required=True)
    ap.add_argument("--repeats", type=int, default=30)
    ap.add_argument("--train-steps", type=int, default=200)
    ap.add_argument("--decode", default="32,128,256")
    a = ap.parse_args()
    import torch
    print(f"GPU: {torch.cuda.get_device_name(0)}; torch {torch.__version__}; float32, no TF32 "
          f"(allow_tf32 = {torch.backends.cuda.matmul.allow_tf32})")
    with tempfile.TemporaryDirectory() as work:
        ckpt = os.path.join(work, "base.safetensors")
        subprocess.run([a.txcli, "init", "--out", ckpt, "--d-model", "512", "--heads", "8", "--d-ff", "2048",
                        "--layers", "2", "--max-len", "512"], check=True, capture_output=True)
        # each section on its own: one that fails (its error printed) leaves the others' figures
        for section in (forward_section, attention_section, training_section, generation_section):
            try:
                section(a, ckpt)
            except Exception as e:   # noqa: BLE001 - report and go on
                detail = getattr(e, "stderr", "") or ""
                print(f"\n{section.__name__} FAILED: {e}\n{detail[-2000:]}", flush=True)


def forward_section(a, ckpt):
    print("\n## Base model forward (ms, median); ours steps / ours fused / PyTorch eager")
    print(f"{'B':>3} {'L':>4} {'ours':>9} {'fused':>9} {'pytorch':>9} {'speed-up':>9}")
    for B in (1, 32):
        for L in (32, 128, 512):
            ours = {}
            for attention in ("steps", "fused"):
                r = run_json([a.txcli, "bench", "--checkpoint", ckpt, "--backend", "cuda", "--batch", str(B),
                              "--src-len", str(L), "--tgt-len", str(L), "--attention", attention,
                              "--repeats", str(a.repeats), "--train-repeats", "0", "--json"])[0]
                ours[attention] = r["forward_ms"]["median"]
            peer = torch_forward_ms(B, L, a.repeats)
            best = min(ours.values())
            print(f"{B:>3} {L:>4} {ours['steps']:>9.3f} {ours['fused']:>9.3f} {peer:>9.3f} {peer / best:>8.2f}x",
                  flush=True)


def attention_section(a, ckpt):
    print("\n## Attention alone, batch 1, 8 heads, dk 64 (ms, median)")
    print(f"{'L':>5} {'fused':>9} {'steps':>9} {'sdpa':>9} {'fused/sdpa':>11}")
    rows = run_json([a.attention_bench, "--backend", "cuda", "--repeats", str(a.repeats), "512", "1024", "2048",
                     "4096"])
    for r in rows:
        sdpa = torch_sdpa_ms(1, 8, r["length"], 64, a.repeats)
        print(f"{r['length']:>5} {r['fused_ms']:>9.3f} {r['steps_ms']:>9.3f} {sdpa:>9.3f} {r['fused_ms'] / sdpa:>10.2f}x",
              flush=True)


def training_section(a, ckpt):
    print(f"\n## Training, Annotated copy task, {a.train_steps} steps (target tokens/s)")
    ours = run_json([a.txcli, "train", "--task", "copy", "--preset", "annotated", "--backend", "cuda", "--steps",
                     str(a.train_steps), "--json", "--quiet"])[0]
    peer = run_json([sys.executable, os.path.join(HERE, "bench_train.py"), "--device", "cuda", "--steps",
                     str(a.train_steps)])[0]
    print(f"ours {ours['tokens_per_s']:.0f} tok/s (exact match {ours['exact_match']:.3f}); "
          f"PyTorch {peer['tokens_per_s']:.0f} tok/s (exact match {peer['exact_match']:.3f}); "
          f"{ours['tokens_per_s'] / peer['tokens_per_s']:.2f}x", flush=True)


def generation_section(a, ckpt):
    print("\n## KV-cached greedy generation, batch 1, 16-id source, encoder included (tokens/s)")
    lengths = [int(x) for x in a.decode.split(",")]
    mine = ours_generate(a.txcli, ckpt, lengths, 5)
    print(f"{'tokens':>6} {'ours cached':>12} {'ours full':>10} {'pytorch':>9} {'ours/pytorch':>13} {'same ids':>9}")
    for n in lengths:
        cached, full, same = mine[n]
        peer = 1000.0 * n / torch_generate_ms(ckpt, n, 5)
        print(f"{n:>6} {cached:>12.0f} {full:>10.0f} {peer:>9.0f} {cached / peer:>12.2f}x {same:>9}", flush=True)


if __name__ == "__main__":
    main()
