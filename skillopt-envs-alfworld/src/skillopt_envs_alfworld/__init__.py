"""SkillOpt env plugin: ALFWorld-style household text games (multi-step).

Registered as ``alfworld`` in the ``skillopt.envs`` entry-point group.
"""

from __future__ import annotations

from skillopt.api import hookimpl

from skillopt_envs_alfworld.env import AlfworldConfig, AlfworldEnv

__all__ = ["AlfworldConfig", "AlfworldEnv", "skillopt_register_envs"]


@hookimpl
def skillopt_register_envs(register):
    register(AlfworldEnv)
