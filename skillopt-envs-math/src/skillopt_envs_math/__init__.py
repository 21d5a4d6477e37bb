"""SkillOpt env plugin: LiveMathematicianBench-style multiple-choice mathematics.

Registered as ``livemath`` in the ``skillopt.envs`` entry-point group; ``math`` is an alias
given to ``register()``, which the core resolves by loading the envs.
"""

from __future__ import annotations

# the env's hook lives in env.py (the entry point); re-exported for code that imports the package
from skillopt_envs_math.env import LiveMathConfig, LiveMathEnv, skillopt_register_envs

__all__ = ["LiveMathConfig", "LiveMathEnv", "skillopt_register_envs"]
