"""``python -m skillopt_sleep.experiments [--persona NAME] [--seeds N] [--json] [--assert-improves]``."""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str] | None = None) -> int:
    from skillopt_sleep.experiments.run import run_experiment, verdict

    parser = argparse.ArgumentParser(prog="python -m skillopt_sleep.experiments", description=__doc__)
    parser.add_argument("--persona", default="all")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--assert-improves", action="store_true")
    args = parser.parse_args(argv)
    results = run_experiment(persona=args.persona, seeds=args.seeds)
    ok, summary = verdict(results)
    print(json.dumps({"summary": summary, "runs": results} if args.json else summary, indent=2))
    return 1 if args.assert_improves and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
