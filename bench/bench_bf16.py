#!/usr/bin/python3
# BF16 forward pass side by side (docs/speed.md, docs/precision.md): the base model's forward at
# each length L (batch 1, source and target L tokens, one thread), in alternating rounds, as
#   ours FP32                  `txcli bench --precision fp32`
#   ours BF16, widened         `TX_BF16=widened txcli bench --precision bf16` (FP32 FMAs on widened weights)
#   ours BF16, vdpbf16ps       `TX_BF16=vdpbf16ps txcli bench --precision bf16` (AVX512_BF16)
#   PyTorch autocast BF16      torch.autocast("cpu", dtype=torch.bfloat16), bench_forward.py's worker
#                              doing the same work, "as installed" and "tuned" (torch_peer.py)
#   PyTorch FP32, tuned        for reference
# with GFLOP/s counted from the shapes and the fraction of the unit's peak: FP32 against the FMA
# ceiling, BF16 against vdpbf16ps's, both measured by bench/fma_peak (pass --fma-peak BIN). A
# variant this CPU cannot run (vdpbf16ps without AVX512_BF16) is left out, and txcli says so.
# Usage: bench_bf16.py --txcli PATH --base CKPT [--lengths 32,128] [--rounds 5] [--repeats 10]
#        [--warmup 2] [--fma-peak BIN] [--no-torch] [--json OUT]
import argparse
import json
import os
import re
import statistics
import subprocess
import sys

from torch_peer import Peer, checkpoint_header, peer_envs

HERE = os.path.dirname(os.path.abspath(__file__))


def forward_flop(c, S, T):
    """FLOP of our forward pass (2 per multiply-add): (linear layers incl. generator, attention products)."""
    D, F, V = c["d_model"], c["d_ff"], c["tgt_vocab"]
    enc, dec = c["encoder_layers"], c["decoder_layers"]
    linear = enc * S * (4 * D * D + 2 * D * F)                          # q, k, v, out; FFN
    linear += dec * (T * (4 * D * D + 2 * D * F) + T * 2 * D * D + S * 2 * D * D)   # self, FFN; cross q/out on T, k/v on S
    linear += T * D * V                                                 # generator
    attention = enc * 2 * S * S * D + dec * (2 * T * T * D + 2 * T * S * D)   # q·kᵀ and P·V
    return 2 * linear, 2 * attention


def run_ours(txcli, ckpt, L, repeats, warmup, precision, bf16_path):
    env = dict(os.environ, OMP_NUM_THREADS="1")
    env.pop("TX_BF16", None)
    if bf16_path:
        env["TX_BF16"] = bf16_path
    proc = subprocess.run([txcli, "bench", "--checkpoint", ckpt, "--threads", "1", "--json", "--src-len", str(L),
                           "--tgt-len", str(L), "--repeats", str(repeats), "--warmup", str(warmup),
                           "--train-repeats", "0", "--precision", precision],
                          env=env, check=True, capture_output=True, text=True)
    for line in proc.stdout.splitlines():
        if line.strip().startswith("{"):
            obj = json.loads(line)
            if obj.get("backend") == "cpu":
                return obj, proc.stderr.strip()
    raise RuntimeError("txcli bench printed no cpu line:\n" + proc.stdout)


def machine_line(txcli, ckpt, bf16_path):
    """txcli bench's '# CPU: …; BF16 products: …' line for a BF16 path (its table output names it)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", TX_BF16=bf16_path)
    out = subprocess.run([txcli, "bench", "--checkpoint", ckpt, "--threads", "1", "--src-len", "4", "--tgt-len", "4",
                          "--repeats", "1", "--warmup", "0", "--train-repeats", "0", "--precision", "bf16"],
                         env=env, check=True, capture_output=True, text=True)
    lines = [l for l in out.stdout.splitlines() if l.startswith("# CPU")]
    return (lines[0][2:] if lines else "?"), out.stderr.strip()


def peaks(binary):
    """(FP32 FMA GFLOP/s 512-bit or 256-bit, vdpbf16ps GFLOP/s or None, the tool's output)."""
    if not binary:
        return None, None, ""
    out = subprocess.run([binary, "300"], check=True, capture_output=True, text=True).stdout
    fp32 = re.findall(r"FP32 FMA, (?:256|512)-bit: ([0-9.]+) GFLOP/s", out)
    bf16 = re.search(r"BF16 vdpbf16ps, 512-bit: ([0-9.]+) GFLOP/s", out)
    return (max(map(float, fp32)) if fp32 else None), (float(bf16.group(1)) if bf16 else None), out.strip()


def summary(values):
    return statistics.median(values), min(values), max(values)


def fmt(values, digits=2):
    med, lo, hi = summary(values)
    return f"{med:.{digits}f} [{lo:.{digits}f}–{hi:.{digits}f}]"


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--txcli", required=True)
    ap.add_argument("--base", required=True, help="checkpoint of the base model (512/8/2048, 2+2)")
    ap.add_argument("--lengths", default="32,128")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=10)
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument("--fma-peak", help="bench/fma_peak binary: measures the FP32 and vdpbf16ps peaks first")
    ap.add_argument("--no-torch", action="store_true", help="ours only")
    ap.add_argument("--json", help="also write all raw results here")
    args = ap.parse_args()

    fp32_peak, bf16_peak, peak_text = peaks(args.fma_peak)
    if peak_text:
        print("# bench/fma_peak:\n#   " + peak_text.replace("\n", "\n#   "))
    line, warning = machine_line(args.txcli, args.base, "vdpbf16ps")
    has_dp = "BF16 products: vdpbf16ps" in line
    print(f"# {line}" + (f"\n# ({warning})" if warning else ""))
    ours = [("ours FP32", "fp32", None), ("ours BF16 widened", "bf16", "widened")]
    if has_dp:
        ours.append(("ours BF16 vdpbf16ps", "bf16", "vdpbf16ps"))
    peers = []
    if not args.no_torch:
        base_env, tuned_env, notes = peer_envs()
        script = os.path.join(HERE, "bench_forward.py")
        peers = [("PyTorch autocast BF16, as installed", Peer("as installed", base_env, script), "bf16"),
                 ("PyTorch autocast BF16, tuned", Peer("tuned", tuned_env, script), "bf16"),
                 ("PyTorch FP32, tuned", None, "fp32")]
        print("# tuned peer: " + ", ".join(notes))
    c, _ = checkpoint_header(args.base)
    lengths = [int(x) for x in args.lengths.split(",")]
    names = [n for n, _, _ in ours] + [n for n, _, _ in peers]
    results = {L: {n: [] for n in names} for L in lengths}
    loads = []
    torch_version = "?"
    try:
        for round_ in range(args.rounds):
            loads.append(loadavg())
            for L in lengths:
                order = list(range(len(names)))
                if round_ % 2:
                    order.reverse()   # neither side always runs on a warmer (or quieter) machine
                for i in order:
                    name = names[i]
                    if i < len(ours):
                        _, precision, path = ours[i]
                        o, _ = run_ours(args.txcli, args.base, L, args.repeats, args.warmup, precision, path)
                        results[L][name].append(o["forward_ms"]["median"])
                    else:
                        _, peer, precision = peers[i - len(ours)]
                        peer = peer or peers[1][1]   # FP32 on the tuned worker
                        req = {"d_model": c["d_model"], "heads": c["heads"], "d_ff": c["d_ff"],
                               "layers": c["encoder_layers"], "vocab": c["tgt_vocab"], "src_len": L, "tgt_len": L,
                               "repeats": args.repeats, "warmup": args.warmup, "precision": precision}
                        p = peer.run(req)
                        torch_version = p.get("torch", torch_version)
                        results[L][name].append(p["forward_ms"]["median"])
                print(f"round {round_ + 1}/{args.rounds} L={L} (load {loads[-1]:.2f}): " +
                      ", ".join(f"{n} {results[L][n][-1]:.2f}" for n in names), file=sys.stderr)
    finally:
        for _, peer, _ in peers:
            if peer:
                peer.close()

    print(f"\nBase model forward ({c['d_model']}/{c['heads']}/{c['d_ff']}, {c['encoder_layers']}+"
          f"{c['decoder_layers']} layers, V {c['tgt_vocab']}), batch 1, source = target = L tokens, 1 thread; "
          f"{args.rounds} alternating rounds × {args.repeats} timed runs each; PyTorch {torch_version}. "
          f"Median of the rounds' medians [min–max over rounds], ms; load average at the rounds' starts "
          f"{min(loads):.2f}–{max(loads):.2f}.")
    if fp32_peak:
        print(f"Peaks (bench/fma_peak): FP32 FMA {fp32_peak:.0f} GFLOP/s" +
              (f", vdpbf16ps {bf16_peak:.0f} GFLOP/s" if bf16_peak else ", no vdpbf16ps"))
    print("GFLOP/s and the share of the peak from the median round and, after the slash, from the fastest "
          "(the least disturbed on a shared machine).")
    print("\n| L | variant | ms | GFLOP/s | of its unit's peak | ours BF16 vdpbf16ps is × faster |")
    print("|---|---|---|---|---|---|")
    for L in lengths:
        lin, att = forward_flop(c, L, L)
        total = lin + att
        best = "ours BF16 vdpbf16ps" if has_dp else "ours BF16 widened"
        for n in names:
            ms = results[L][n]
            if not ms:
                continue
            gflops = total / (statistics.median(ms) * 1e-3) / 1e9
            best_gflops = total / (min(ms) * 1e-3) / 1e9
            # the unit that does the products: vdpbf16ps for ours on that path and for PyTorch's
            # autocast (oneDNN's AVX512_BF16 kernels), FP32 FMAs for the rest
            on_bf16_unit = "vdpbf16ps" in n or n.startswith("PyTorch autocast")
            peak = bf16_peak if on_bf16_unit and bf16_peak else fp32_peak
            frac = f"{100 * gflops / peak:.0f}% / {100 * best_gflops / peak:.0f}% of {peak:.0f}" if peak else "–"
            ratio = ("–" if n == best else fmt([a / b for a, b in zip(ms, results[L][best])]) + "×")
            print(f"| {L} | {n} | {fmt(ms)} | {gflops:.0f} / {best_gflops:.0f} | {frac} | {ratio} |")
        print(f"| {L} | (FLOP counted: linear {lin / 1e9:.3f} G, attention {att / 1e9:.3f} G) | | | | |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"config": c, "loads": loads, "fp32_peak": fp32_peak, "bf16_peak": bf16_peak,
                       "results": {str(L): r for L, r in results.items()}}, f, indent=1)


if __name__ == "__main__":
    main()
