"""SkillOpt env plugin: SpreadsheetBench-style code generation over xlsx workbooks."""
