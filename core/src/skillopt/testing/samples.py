"""The sample-generator convention: a bundled sample is reproducible from its generator.

An env that ships a generated sample exposes ``generate_sample(out: Path) -> None`` in
``<its package>.generator``; it writes the tree found under the env's ``sample_dir``
(``train.json`` or ``train/items.json`` ..., plus any page images or documents).
:func:`check_sample_regenerates` runs it into a temp folder and compares the trees, so
a change to the generator that is not followed by regenerating the sample fails a test.
Regenerate with ``python -m <package>.generator <package>/data/sample``.
"""

from __future__ import annotations

import importlib
import json
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from skillopt.envs import Env


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def _same(a: Path, b: Path) -> bool:
    if a.suffix == ".json":
        try:
            return bool(json.loads(a.read_text(encoding="utf-8")) == json.loads(b.read_text(encoding="utf-8")))
        except ValueError:
            return False
    return a.read_bytes() == b.read_bytes()


def check_sample_regenerates(env_cls: type[Env], *, module: str = "") -> None:
    """Regenerate ``env_cls``'s bundled sample and assert it equals the shipped one.

    ``module`` overrides where ``generate_sample`` lives (default ``<package>.generator``)."""
    package = env_cls.__module__.split(".")[0]
    generator = importlib.import_module(module or f"{package}.generator")
    make = getattr(generator, "generate_sample", None)
    if make is None:
        raise AssertionError(f"{generator.__name__} has no generate_sample(out: Path) (the sample-generator convention)")
    shipped_root = Path(str(env_cls().package_files().joinpath(*env_cls.sample_dir.split("/"))))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "sample"
        make(out)
        shipped, made = _files(shipped_root), _files(out)
        missing = sorted(set(shipped) - set(made))
        extra = sorted(set(made) - set(shipped))
        changed = [name for name in sorted(set(shipped) & set(made)) if not _same(shipped[name], made[name])]
        if missing or extra or changed:
            raise AssertionError(
                f"the bundled sample of {env_cls.name} does not match its generator "
                f"(regenerate: python -m {generator.__name__} {shipped_root}): "
                f"only shipped {missing[:5]}, only generated {extra[:5]}, different {changed[:5]}"
            )
