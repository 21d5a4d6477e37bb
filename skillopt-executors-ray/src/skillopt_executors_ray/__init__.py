"""The ``ray`` executor: SkillOpt rollouts on a Ray cluster (see docs/ray.md).

Import-light: ``ray`` itself is imported when a run starts, never by listing plugins.
"""

from skillopt.api import hookimpl
from skillopt_executors_ray.executor import RayConfig, RayExecutor

__version__ = "0.1.0"


@hookimpl
def skillopt_register_executors(register):
    register(RayExecutor)


__all__ = ["RayConfig", "RayExecutor"]
