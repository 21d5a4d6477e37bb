"""The training engine: rollout → reflect → aggregate → select → update → gate.

Entry points: :func:`skillopt.engine.session.open_session` (what the CLI uses) and
:class:`skillopt.engine.trainer.Trainer` (what tests drive with scripted clients).
"""
