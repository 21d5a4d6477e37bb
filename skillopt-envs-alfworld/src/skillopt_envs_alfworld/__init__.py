"""SkillOpt env plugin: ALFWorld-style household text games (multi-step).

Registered as ``alfworld`` in the ``skillopt.envs`` entry-point group.
"""

from __future__ import annotations

# the env's hook lives in env.py (the entry point); re-exported for code that imports the package
from skillopt_envs_alfworld.env import AlfworldConfig, AlfworldEnv, skillopt_register_envs

__all__ = ["AlfworldConfig", "AlfworldEnv", "skillopt_register_envs"]
