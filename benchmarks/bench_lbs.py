"""LBS throughput: shared-prefix scoring (image + question once per item) vs one full pass per option.

Builds a random Gemma 3 locally (no network) whose image tokens dominate the sequence,
as with real VLMs (Gemma 3: 256 image tokens, a question of a few dozen), scores the
four options of N items with both implementations and prints items/s, the ratio and
the largest disagreement between them. Target: shared-prefix at least 3x faster.

    .venv/bin/python benchmarks/bench_lbs.py                      # CPU default, < 2 minutes on 2 cores
    .venv/bin/python benchmarks/bench_lbs.py --device cuda --items 64 --batch-size 16 \\
        --hidden 1024 --layers 8 --vision-hidden 512 --vision-layers 8 --image-size 448 --patch-size 14
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--device", default="cpu", help="cpu, cuda, cuda:1, ... (default: cpu)")
    p.add_argument(
        "--dtype", default="auto", choices=["auto", "bfloat16", "float16", "float32"], help="auto: bf16 on GPU, fp32 on CPU"
    )
    p.add_argument("--items", type=int, default=8, help="items to score (each with 4 options)")
    p.add_argument("--batch-size", type=int, default=4, help="items per shared-prefix batch")
    p.add_argument("--image-size", type=int, default=224, help="vision tower input size (pixels)")
    p.add_argument("--patch-size", type=int, default=14, help="vision patch size; (image/patch)^2 patches")
    p.add_argument("--mm-tokens", type=int, default=256, help="image tokens per image in the language model (a square number)")
    p.add_argument("--hidden", type=int, default=128, help="language model hidden size")
    p.add_argument("--layers", type=int, default=2, help="language model layers")
    p.add_argument("--vision-hidden", type=int, default=128, help="vision tower hidden size")
    p.add_argument("--vision-layers", type=int, default=2, help="vision tower layers")
    p.add_argument("--threads", type=int, default=0, help="torch CPU threads (0: torch's default)")
    p.add_argument("--repeats", type=int, default=3, help="timed passes per implementation (best is reported)")
    return p.parse_args(argv)


def make_requests(n: int, seed: int = 0):
    import random

    from PIL import Image

    from evaluator.prompts import lbs_prompt
    from evaluator.vlm import Request
    from leaderboard.benchmark import LANGS, SAMPLE_DATASET, load_dataset

    rng = random.Random(seed)
    items = load_dataset(SAMPLE_DATASET).items
    requests = []
    for i in range(n):
        item, lang = items[(i * 7) % len(items)], LANGS[i % 2]
        size = (rng.randint(400, 800), rng.randint(300, 600))
        image = Image.frombytes("RGB", size, rng.randbytes(size[0] * size[1] * 3))
        requests.append(Request(lbs_prompt(item, lang), image, item.options[lang]))
    return requests


def timed(fn, repeats: int, device: str) -> tuple[float, object]:
    import torch

    best, result = float("inf"), None
    for _ in range(repeats):
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        start = time.perf_counter()
        result = fn()
        if device.startswith("cuda"):
            torch.cuda.synchronize()
        best = min(best, time.perf_counter() - start)
    return best, result


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    import torch

    from evaluator.lbs import score_plain, score_shared
    from evaluator.tiny import build_tiny_gemma3
    from evaluator.vlm import context_text, encode, load

    if args.threads:
        torch.set_num_threads(args.threads)
    with tempfile.TemporaryDirectory() as tmp:
        folder = build_tiny_gemma3(
            Path(tmp) / "model",
            hidden=args.hidden,
            layers=args.layers,
            heads=max(2, args.hidden // 64),
            vision_hidden=args.vision_hidden,
            vision_layers=args.vision_layers,
            image_size=args.image_size,
            patch_size=args.patch_size,
            mm_tokens=args.mm_tokens,
            sliding_window=4096,
        )
        lm = load(str(folder), dtype=args.dtype, device=args.device)
    requests = make_requests(args.items)
    enc = encode(lm.processor, context_text(lm.processor, requests[0].prompt), requests[0].image)
    ids = enc["input_ids"][0]
    n_image = int((ids == lm.model.config.image_token_id).sum())
    option_tokens = [len(lm.tokenizer(o, add_special_tokens=False)["input_ids"]) for r in requests for o in r.options]

    def shared():
        out = []
        for i in range(0, len(requests), args.batch_size):
            out += score_shared(lm, requests[i : i + args.batch_size])
        return out

    def plain():
        return score_plain(lm, requests)

    score_shared(lm, requests[:2])  # warm-up: allocator, kernels
    score_plain(lm, requests[:1])
    t_shared, res_shared = timed(shared, args.repeats, args.device)
    t_plain, res_plain = timed(plain, args.repeats, args.device)
    diff = max(abs(a.logprob - b.logprob) for x, y in zip(res_shared, res_plain, strict=True) for a, b in zip(x, y, strict=True))
    same_tokens = all(a.tokens == b.tokens for x, y in zip(res_shared, res_plain, strict=True) for a, b in zip(x, y, strict=True))

    print(f"device {lm.info['hardware']} ({args.device}, {lm.info['dtype']}), torch threads {torch.get_num_threads()}")
    print(
        f"model: LM hidden {args.hidden} x {args.layers} layers, vision hidden {args.vision_hidden} x {args.vision_layers} layers, "
        f"{lm.info['parameters'] / 1e6:.2f}M parameters"
    )
    print(
        f"sequence: {len(ids)} context tokens of which {n_image} image tokens ({n_image / len(ids):.0%}); "
        f"options {sum(option_tokens) / len(option_tokens):.1f} tokens on average; {args.items} items x 4 options"
    )
    print(f"shared-prefix LBS: {args.items / t_shared:8.2f} items/s  ({t_shared:.2f} s, batch {args.batch_size})")
    print(f"plain LBS:         {args.items / t_plain:8.2f} items/s  ({t_plain:.2f} s, one pass per option)")
    print(f"speed-up: {t_plain / t_shared:.2f}x (target >= 3x)")
    print(f"max |logprob difference|: {diff:.2e}; token counts equal: {same_tokens}")


if __name__ == "__main__":
    main()
