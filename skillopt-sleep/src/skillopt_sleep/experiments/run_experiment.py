"""``python -m skillopt_sleep.experiments.run_experiment``: upstream's experiment command line.

Upstream's flags are taken (``--persona``, ``--nights``, ``--backend mock``, ``--model``,
``--codex-path``, ``--edit-budget``, ``--limit-tasks``, ``--json``, ``--assert-improves``)
and the run is ours (:mod:`skillopt_sleep.experiments`): our personas, one gated night
per seed on scripted stand-ins for the models. Upstream's personas (``researcher``,
``programmer``) and real-model backends are not what this experiment measures, so they
are refused with one line that names ours.
"""

from __future__ import annotations

import argparse
import sys


def main(argv: list[str] | None = None) -> int:
    from skillopt_sleep.experiments.personas import PERSONAS
    from skillopt_sleep.experiments.run import UPSTREAM_PERSONAS

    parser = argparse.ArgumentParser(prog="python -m skillopt_sleep.experiments.run_experiment", description=__doc__)
    parser.add_argument("--persona", default="researcher")
    parser.add_argument("--nights", type=int, default=4, help="nights per persona (our experiment: seeds)")
    parser.add_argument("--backend", default="mock")
    parser.add_argument("--model", default="")
    parser.add_argument("--codex-path", default="")
    parser.add_argument("--edit-budget", type=int, default=4)
    parser.add_argument("--limit-tasks", type=int, default=0)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--assert-improves", action="store_true")
    args = parser.parse_args(argv)
    ours = ", ".join(PERSONAS)
    if args.persona in UPSTREAM_PERSONAS:
        print(f"error: upstream's persona {args.persona!r} is not bundled; this experiment's personas are {ours}: "
              f"python -m skillopt_sleep.experiments --persona {next(iter(PERSONAS))} --assert-improves", file=sys.stderr)
        return 2
    if args.backend not in ("mock", "scripted"):
        print(f"error: --backend {args.backend}: the experiment runs on scripted stand-ins for the models (upstream's mock); "
              "for a real model run `skillopt sleep run --backend NAME` on your own sessions", file=sys.stderr)
        return 2
    from skillopt_sleep.experiments.__main__ import main as ours_main

    return ours_main(["--persona", args.persona, "--seeds", str(max(1, args.nights)),
                      *(["--json"] if args.json else []), *(["--assert-improves"] if args.assert_improves else [])])


if __name__ == "__main__":
    sys.exit(main())
