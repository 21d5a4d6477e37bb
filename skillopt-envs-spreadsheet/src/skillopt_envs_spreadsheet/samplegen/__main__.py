"""``python -m skillopt_envs_spreadsheet.samplegen --out DIR [--only ID ...]``"""

from __future__ import annotations

import argparse
from pathlib import Path

from skillopt_envs_spreadsheet.samplegen import generate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate the bundled SpreadsheetBench-style sample deterministically.")
    parser.add_argument("--out", type=Path, required=True, help="output folder (the package ships it as sample/)")
    parser.add_argument("--only", nargs="*", help="write only these task ids (no items.json)")
    args = parser.parse_args(argv)
    sums = generate(args.out, only=set(args.only) if args.only else None)
    print(f"wrote {len(sums)} workbooks to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
