"""SkillOpt env plugin: LiveMathematicianBench-style multiple-choice mathematics.

Registered as ``livemath`` (alias ``math``) in the ``skillopt.envs`` entry-point group.
"""

from __future__ import annotations

from skillopt.hookspecs import hookimpl

from skillopt_envs_math.env import LiveMathConfig, LiveMathEnv

__all__ = ["LiveMathConfig", "LiveMathEnv", "skillopt_register_envs"]


@hookimpl
def skillopt_register_envs(register):
    register(LiveMathEnv, aliases=("math",))
