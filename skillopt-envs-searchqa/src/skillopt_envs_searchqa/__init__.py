"""SkillOpt env plugin: SearchQA (snippet reading comprehension), the reference benchmark."""
