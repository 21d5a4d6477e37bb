"""``python -m skillopt_envs_spreadsheet.samplegen OUT|--out OUT [--only ID ...]``"""

from __future__ import annotations

import argparse
from pathlib import Path

from skillopt_envs_spreadsheet.samplegen import generate


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate the bundled SpreadsheetBench-style sample deterministically.")
    parser.add_argument("out", type=Path, nargs="?", help="output folder (the package ships it as sample/)")
    parser.add_argument("--out", type=Path, dest="out_option", help="the same as OUT")
    parser.add_argument("--only", nargs="*", help="write only these task ids (no items.json)")
    args = parser.parse_args(argv)
    out = args.out_option or args.out or parser.error("give the output folder: OUT or --out OUT")
    sums = generate(out, only=set(args.only) if args.only else None)
    print(f"wrote {len(sums)} workbooks to {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
