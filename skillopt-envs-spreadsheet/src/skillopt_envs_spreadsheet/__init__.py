"""SkillOpt env plugin: SpreadsheetBench-style code generation over xlsx workbooks.

Registered under ``spreadsheetbench`` with the alias ``spreadsheet``. Heavy imports
(openpyxl, the sandbox) happen inside the functions that need them.
"""

from __future__ import annotations

from skillopt.api import hookimpl

from skillopt_envs_spreadsheet.env import SpreadsheetConfig, SpreadsheetEnv

__all__ = ["SpreadsheetConfig", "SpreadsheetEnv", "skillopt_register_envs"]


@hookimpl
def skillopt_register_envs(register):
    register(SpreadsheetEnv, aliases=("spreadsheet",))
