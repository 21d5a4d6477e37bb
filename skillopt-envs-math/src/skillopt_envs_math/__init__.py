"""SkillOpt env plugin: LiveMathematicianBench-style multiple-choice mathematics."""
