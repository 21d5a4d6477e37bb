"""``python -m skillopt_envs_docvqa.generator [OUT_DIR]``: rebuild the bundled sample."""

from __future__ import annotations

import sys
from pathlib import Path

from skillopt_envs_docvqa.generator import build


def main(argv: list[str]) -> int:
    default = Path(__file__).resolve().parent.parent / "data" / "sample"
    out = Path(argv[0]) if argv else default
    manifest = build(out)
    counts = ", ".join(f"{s}: {c['documents']} pages / {c['questions']} questions" for s, c in manifest["counts"].items())
    print(f"wrote {out} ({counts})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
