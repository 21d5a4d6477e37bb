"""``python -m skillopt_envs_alfworld.generator [OUT_DIR]``: regenerate the bundled sample."""

from __future__ import annotations

import sys
from pathlib import Path

from skillopt_envs_alfworld.generator import default_out_dir, generate_sample


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0]) if args else default_out_dir()
    generate_sample(out)
    print(f"wrote the sample under {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
