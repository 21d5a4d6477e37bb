"""How long ``skillopt --help`` (and ``skillopt run --help``) take, and what they import.

Why: the CLI's start is paid on every invocation and, for ``skillopt run``, before the
first model call. Each command is run ``--rounds`` times as a fresh process (after one
warm-up run that writes the bytecode caches, as an installed package has them); prints
min and median wall seconds, then the slowest imports of one run (``python -X
importtime``, cumulative microseconds: inflated by the measuring, read them as shares).

    python benchmarks/cli_start.py [--rounds 15] [--top 12] [--skillopt PATH]

``PYTHONDONTWRITEBYTECODE`` is removed from the children's environment: with it set,
every module of an editable install is compiled from source on each start (0.02 s of
``skillopt --help`` here), which no installed copy does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path


def timed(argv: list[str], env: dict[str, str], rounds: int) -> list[float]:
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)  # warm-up
    out = []
    for _ in range(rounds):
        start = time.perf_counter()
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, check=False)
        out.append(time.perf_counter() - start)
    return out


def slowest_imports(python: str, args: list[str], env: dict[str, str], top: int) -> list[tuple[int, str]]:
    code = f"from skillopt.cli import main\ntry:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
    err = subprocess.run([python, "-X", "importtime", "-c", code], capture_output=True, text=True, env=env, check=False).stderr
    rows = []
    for line in err.splitlines():
        if not line.startswith("import time:") or "cumulative" in line:
            continue
        _, cumulative, name = (part.strip() for part in line.split(":", 1)[1].split("|"))
        if len(name) - len(name.lstrip()) <= 2 or not name.startswith(" "):  # top-level imports only
            rows.append((int(cumulative), name.strip()))
    return sorted(rows, reverse=True)[:top]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--top", type=int, default=12)
    ap.add_argument("--skillopt", default=shutil.which("skillopt") or str(Path(sys.executable).with_name("skillopt")))
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    python = str(Path(args.skillopt).with_name("python"))
    print(f"{'command':28s} {'min s':>7s} {'median s':>9s}  ({args.rounds} runs, load {os.getloadavg()[0]:.1f})")
    for label, argv in (("python -c pass", [python, "-c", "pass"]), ("skillopt --help", [args.skillopt, "--help"]),
                        ("skillopt run --help", [args.skillopt, "run", "--help"])):
        times = timed(argv, env, args.rounds)
        print(f"{label:28s} {min(times):7.3f} {statistics.median(times):9.3f}")
    print("\nslowest top-level imports of skillopt --help (cumulative us, -X importtime):")
    for cumulative, name in slowest_imports(python, ["--help"], env, args.top):
        print(f"  {cumulative:8d}  {name}")


if __name__ == "__main__":
    main()
