"""SkillOpt model backends: embedded local llama.cpp, OpenAI, OpenAI-compatible, Azure OpenAI, Anthropic."""
