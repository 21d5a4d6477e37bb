"""``python -m skillopt_sleep.experiments [--persona NAME | --home | --homes SET] [--seeds N] [--json] [--table] [--assert-improves]``."""

from __future__ import annotations

import argparse
import json
import sys


def main(argv: list[str] | None = None) -> int:
    from skillopt.api import ConfigError

    try:
        return _main(argv)
    except ConfigError as exc:  # a bad --persona: one line, no traceback
        print(f"error: {exc}", file=sys.stderr)
        return 2


def _main(argv: list[str] | None) -> int:
    from skillopt_sleep.experiments.run import run_experiment, verdict

    parser = argparse.ArgumentParser(prog="python -m skillopt_sleep.experiments", description=__doc__)
    parser.add_argument("--persona", default="all")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--assert-improves", action="store_true")
    parser.add_argument("--home", action="store_true", help="the fixture-home experiment instead of the personas")
    parser.add_argument("--homes", choices=("tune", "held-out", "all"), help="the generated-homes experiment on this set")
    parser.add_argument("--table", action="store_true", help="with --homes: print a markdown table of the figures")
    args = parser.parse_args(argv)
    if args.homes:
        from skillopt_sleep.experiments.homes.run import homes_verdict, run_homes, table

        results = run_homes(args.homes)
        ok, summary = homes_verdict(results)
        if args.table:
            print(table(results))
            return 1 if args.assert_improves and not ok else 0
    elif args.home:
        from skillopt_sleep.experiments.home_run import home_verdict, run_home_experiment

        results = run_home_experiment(seeds=args.seeds)
        ok, summary = home_verdict(results)
    else:
        results = run_experiment(persona=args.persona, seeds=args.seeds)
        ok, summary = verdict(results)
    print(json.dumps({"summary": summary, "runs": results} if args.json else summary, indent=2))
    return 1 if args.assert_improves and not ok else 0


if __name__ == "__main__":
    sys.exit(main())
