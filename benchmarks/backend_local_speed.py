"""Local backend speed: tokens/s through SkillOpt next to raw llama-cpp-python, and
the latency of a call-cache hit.

    python benchmarks/backend_local_speed.py [--tokens 128] [--reps 5] [--hits 200]

Both sides run the same GGUF (the bundled SmolLM2 unless --gguf), the same chat
prompt, greedy decoding, the same context size and thread count, and both start each
generation from an empty KV cache (the backend does so for repeatable output). The
SkillOpt side goes through ``skillopt.calls.ModelClient`` with the cache off, so the
figure includes the whole call pipeline. Repetitions alternate between the two sides
so that load from other processes hits both alike; medians are reported. Prints a
summary on stderr and JSON on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

PROMPT = "Explain in a few short paragraphs why the sky is blue, for a curious ten-year-old."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=128, help="max tokens per generation")
    parser.add_argument("--reps", type=int, default=5, help="generations per side")
    parser.add_argument("--hits", type=int, default=200, help="cache hits to time")
    parser.add_argument("--gguf", type=Path, default=None, help="model file (default: the bundled SmolLM2)")
    args = parser.parse_args(argv)

    from llama_cpp import Llama

    from skillopt.backends import BackendSettings
    from skillopt.calls import CallCache, Ledger, ModelClient
    from skillopt.records import CompletionRequest, Message
    from skillopt_backends.local import DEFAULT_CONTEXT, LocalBackend, bundled_gguf

    gguf = args.gguf or bundled_gguf()
    if gguf is None:
        print("no GGUF: install skillopt-backends[local] or pass --gguf", file=sys.stderr)
        return 2
    threads = int(os.environ.get("SKILLOPT_LOCAL_THREADS", "0")) or (os.cpu_count() or 2)
    raw = Llama(model_path=str(gguf), n_ctx=DEFAULT_CONTEXT, n_threads=threads, verbose=False, seed=0)
    backend = LocalBackend(BackendSettings(name="local", local_path=str(gguf)))
    client = ModelClient(backend, role="target", ledger=Ledger(), cache=None, cache_mode="off")
    request = CompletionRequest(messages=(Message(role="user", content=PROMPT),), max_tokens=args.tokens, timeout_s=600)
    messages = [{"role": "user", "content": PROMPT}]

    def run_raw() -> tuple[float, int]:
        raw.reset()
        started = time.perf_counter()
        out = raw.create_chat_completion(messages=messages, max_tokens=args.tokens, temperature=0.0, seed=0)
        return time.perf_counter() - started, out["usage"]["completion_tokens"]

    def run_skillopt() -> tuple[float, int]:
        started = time.perf_counter()
        completion = client.complete(request)
        return time.perf_counter() - started, completion.usage.completion_tokens

    run_raw(), run_skillopt()  # warm-up: first-call allocations on both sides
    raw_rates, ours_rates, raw_tokens, ours_tokens = [], [], set(), set()
    for rep in range(args.reps):
        order = (("raw", run_raw), ("ours", run_skillopt)) if rep % 2 == 0 else (("ours", run_skillopt), ("raw", run_raw))
        for side, fn in order:
            seconds, tokens = fn()
            (raw_rates if side == "raw" else ours_rates).append(tokens / seconds)
            (raw_tokens if side == "raw" else ours_tokens).add(tokens)

    with tempfile.TemporaryDirectory() as tmp:
        cache = CallCache(Path(tmp) / "calls.sqlite3")
        cached_client = ModelClient(backend, role="target", ledger=Ledger(), cache=cache)
        cached_client.complete(request)  # record once
        hits = []
        for _ in range(args.hits):
            started = time.perf_counter()
            assert cached_client.complete(request).cached
            hits.append((time.perf_counter() - started) * 1000)
        hits.sort()

    result = {
        "model": gguf.name,
        "threads": threads,
        "max_tokens": args.tokens,
        "reps": args.reps,
        "completion_tokens": {"raw": sorted(raw_tokens), "skillopt": sorted(ours_tokens)},
        "raw_tokens_per_s": round(statistics.median(raw_rates), 2),
        "skillopt_tokens_per_s": round(statistics.median(ours_rates), 2),
        "ratio": round(statistics.median(ours_rates) / statistics.median(raw_rates), 3),
        "cache_hit_ms": {"median": round(statistics.median(hits), 3), "p95": round(hits[int(0.95 * (len(hits) - 1))], 3)},
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }
    print(
        f"{gguf.name}, {threads} threads, {args.tokens} tokens x {args.reps}: raw llama-cpp-python "
        f"{result['raw_tokens_per_s']} tok/s, skillopt local backend {result['skillopt_tokens_per_s']} tok/s "
        f"(ratio {result['ratio']}); cache hit median {result['cache_hit_ms']['median']} ms, "
        f"p95 {result['cache_hit_ms']['p95']} ms",
        file=sys.stderr,
    )
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
