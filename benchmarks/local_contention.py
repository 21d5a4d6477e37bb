"""The embedded model on a shared machine: one long prompt through the local backend's
model loader, idle and beside CPU-bound processes, for three OpenMP spin settings.

    python benchmarks/local_contention.py [--hogs 2] [--reps 3] [--rounds 2]

llama.cpp's OpenMP build spins its waiting threads (libgomp's default: 300,000 iterations
before sleeping); when another process wants the same cores the spin burns their time. The
backend loads llama.cpp with a short spin (``skillopt_backends.local.OPENMP_SPIN_COUNT``).
Settings: ``libgomp-default`` (GOMP_SPINCOUNT=300000), ``backend`` (what the backend
chooses), ``passive`` (OMP_WAIT_POLICY=PASSIVE: threads sleep at once). Each cell runs in
a fresh interpreter (libgomp reads its settings when it loads); cells alternate, so load
from outside hits all alike. JSON on stdout: median seconds per cell and loaded/idle ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys

SETTINGS = {"libgomp-default": {"GOMP_SPINCOUNT": "300000"}, "backend": {}, "passive": {"OMP_WAIT_POLICY": "PASSIVE"}}

CHILD = r"""
import json, multiprocessing as mp, sys, time
from pathlib import Path

def hog(stop):
    x = 0
    while not stop.is_set():
        for _ in range(100000):
            x += 1

if __name__ == "__main__":
    from skillopt_backends.local import bundled_gguf, load_model
    hogs, reps = int(sys.argv[1]), int(sys.argv[2])
    llm = load_model(bundled_gguf(), 4096).llm
    prompt = "Snippets:\n" + "\n".join(
        f"{i}. The museum at Town{i} keeps a collection of maps, letters and tools from {1700 + i}." for i in range(60)
    ) + "\nClue: which town keeps maps from 1742?\nAnswer:"
    stop = mp.Event()
    procs = [mp.Process(target=hog, args=(stop,), daemon=True) for _ in range(hogs)]
    for p in procs:
        p.start()
    time.sleep(0.5)
    times = []
    for _ in range(reps):
        llm.reset()
        started = time.perf_counter()
        out = llm.create_completion(prompt, max_tokens=48, temperature=0.0, seed=0)
        times.append(time.perf_counter() - started)
    stop.set()
    for p in procs:
        p.join()
    print(json.dumps({"times": times, "prompt_tokens": out["usage"]["prompt_tokens"], "text": out["choices"][0]["text"]}))
"""


def cell(setting: str, hogs: int, reps: int) -> dict:
    env = {k: v for k, v in os.environ.items() if k not in ("GOMP_SPINCOUNT", "OMP_WAIT_POLICY")}
    env.update(SETTINGS[setting])
    env.setdefault("SKILLOPT_LOCAL_THREADS", "2")
    done = subprocess.run([sys.executable, "-c", CHILD, str(hogs), str(reps)], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hogs", type=int, default=2, help="CPU-bound processes beside the model when loaded")
    parser.add_argument("--reps", type=int, default=3, help="generations per cell (median taken)")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds over every cell")
    args = parser.parse_args(argv)
    samples: dict[str, list[float]] = {}
    texts = set()
    for _ in range(args.rounds):
        for hogs in (0, args.hogs):
            for setting in SETTINGS:
                out = cell(setting, hogs, args.reps)
                samples.setdefault(f"{setting}@{hogs}", []).extend(out["times"])
                texts.add(out["text"])
                print(f"{setting:16} hogs={hogs} median {statistics.median(out['times']):.2f} s", file=sys.stderr)
    med = {k: round(statistics.median(v), 3) for k, v in samples.items()}
    result = {
        "median_s": med,
        "loaded_over_idle": {s: round(med[f"{s}@{args.hogs}"] / med[f"{s}@0"], 2) for s in SETTINGS},
        "vs_libgomp_default": {f"{s}@{h}": round(med[f"{s}@{h}"] / med[f"libgomp-default@{h}"], 2)
                               for s in SETTINGS for h in (0, args.hogs)},
        "same_output_everywhere": len(texts) == 1,
        "prompt_tokens": out["prompt_tokens"],
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
