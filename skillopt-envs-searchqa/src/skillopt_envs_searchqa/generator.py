"""The bundled sample's generator, by the sample-generator convention: :func:`generate_sample`.

``python -m skillopt_envs_searchqa.generator OUT`` writes the sample tree (``train.json``,
``val.json``, ``test.json``, ``manifest.json``) to ``OUT``. The generating code itself is
``scripts/make_sample.py`` with its hand-written fact tables ``scripts/sample_facts.py``:
they ship in the source distribution (with the tests that check the sample), not in the
wheel, since an installed env only ever reads the shipped sample.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "make_sample.py"


def _script():
    if not SCRIPT.is_file():
        raise FileNotFoundError(f"{SCRIPT}: the sample generator ships in the source distribution of skillopt-envs-searchqa")
    spec = importlib.util.spec_from_file_location("skillopt_envs_searchqa._make_sample", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def generate_sample(out: Path) -> None:
    """Write the bundled sample (deterministic: byte-identical to the shipped files) to ``out``."""
    _script().write(Path(out))


if __name__ == "__main__":
    raise SystemExit(_script().main(["--out", sys.argv[1]] if len(sys.argv) > 1 else []))
