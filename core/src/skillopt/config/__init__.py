"""Run configuration: schema (defaults = paper settings), layered loading, overrides."""

from skillopt.config.loading import (
    ConfigSources,
    apply_assignment,
    config_fingerprint,
    load_config_file,
    resolve_config,
)
from skillopt.config.schema import (
    BudgetConfig,
    EnvConfig,
    EvaluationConfig,
    GradientConfig,
    ModelConfig,
    OptimizerConfig,
    RoleConfig,
    RunConfig,
    TrainConfig,
)

__all__ = [
    "BudgetConfig",
    "ConfigSources",
    "EnvConfig",
    "EvaluationConfig",
    "GradientConfig",
    "ModelConfig",
    "OptimizerConfig",
    "RoleConfig",
    "RunConfig",
    "TrainConfig",
    "apply_assignment",
    "config_fingerprint",
    "load_config_file",
    "resolve_config",
]
