"""SkillOpt: train an agent's skill document like weights.

The package root stays import-light: ``import skillopt`` must not pull in typer,
rich or any plugin.
"""

from __future__ import annotations

__version__ = "0.1.0"

from skillopt.hookspecs import hookimpl

__all__ = ["__version__", "hookimpl"]
