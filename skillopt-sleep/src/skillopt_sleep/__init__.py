"""SkillOpt Sleep: learn from your own coding-agent sessions (harvest, mine, replay, gate, stage, adopt)."""
