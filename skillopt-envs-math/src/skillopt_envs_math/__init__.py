"""SkillOpt env plugin: LiveMathematicianBench-style multiple-choice mathematics.

Registered as ``livemath`` in the ``skillopt.envs`` entry-point group; ``math`` is an alias
given to ``register()``, which the core resolves by loading the envs.
"""

from __future__ import annotations

from skillopt.api import hookimpl

from skillopt_envs_math.env import LiveMathConfig, LiveMathEnv

__all__ = ["LiveMathConfig", "LiveMathEnv", "skillopt_register_envs"]


@hookimpl
def skillopt_register_envs(register):
    register(LiveMathEnv, aliases=("math", "livemathematicianbench"))
