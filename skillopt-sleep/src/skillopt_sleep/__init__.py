"""SkillOpt Sleep: learn from your own coding-agent sessions.

The nightly cycle is harvest → mine → split → replay → reflect → bounded edits →
gate → stage → explicit adopt → rollback. Every stage lives in its own module so
each can be tested (and replaced) alone; nothing heavy is imported here.
"""

__version__ = "0.1.0"
