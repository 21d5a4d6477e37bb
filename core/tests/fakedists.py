"""Build fake installed distributions (dist-info + module) in a temp dir on sys.path.

``importlib.metadata`` finds them exactly as it finds pip-installed packages, so the
loader is tested against real metadata, not mocks.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path


def make_dist(root: Path, dist: str, entry_points: dict[str, dict[str, str]], modules: dict[str, str], version: str = "0.1.0") -> None:
    root.mkdir(parents=True, exist_ok=True)
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    lines = []
    for group, eps in entry_points.items():
        lines.append(f"[{group}]")
        lines += [f"{name} = {value}" for name, value in eps.items()]
        lines.append("")
    (info / "entry_points.txt").write_text("\n".join(lines))
    for name, source in modules.items():
        (root / f"{name}.py").write_text(textwrap.dedent(source))


ENV_MODULE = """
from skillopt import hookimpl
from skillopt.envs import Env
from skillopt.records import Score, Task

class {cls}(Env):
    name = "{name}"
    summary = "fake env {name}"
    def load_split(self, split):
        return [Task(id=f"{{split}}-0")]
    def rollout(self, task, skill, model, ctx):
        raise NotImplementedError
    def score(self, task, prediction):
        return Score(hard=0.0, soft=0.0)

@hookimpl
def skillopt_register_envs(register):
    register({cls}{extra})
"""


def env_module(name: str, cls: str = "FakeEnv", aliases: tuple[str, ...] = ()) -> str:
    extra = f", aliases={aliases!r}" if aliases else ""
    return ENV_MODULE.format(name=name, cls=cls, extra=extra)


def forget_modules(prefix: str) -> None:
    for mod in [m for m in sys.modules if m.startswith(prefix)]:
        del sys.modules[mod]
