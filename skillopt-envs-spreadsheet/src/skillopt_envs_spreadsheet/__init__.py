"""SkillOpt env plugin: SpreadsheetBench-style code generation over xlsx workbooks.

Registered under ``spreadsheetbench`` with the alias ``spreadsheet``. Heavy imports
(openpyxl, the sandbox) happen inside the functions that need them.
"""

from __future__ import annotations

# the env's hook lives in env.py (the entry point); re-exported for code that imports the package
from skillopt_envs_spreadsheet.env import SpreadsheetConfig, SpreadsheetEnv, skillopt_register_envs

__all__ = ["SpreadsheetConfig", "SpreadsheetEnv", "skillopt_register_envs"]
