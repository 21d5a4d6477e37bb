"""Learn: turn tonight's replayed failures into bounded edits and keep only what the gate accepts.

``reflect`` proposes edits (evidence-backed rules with no model, or the optimizer's),
``contrast`` compares good and bad attempts of one task, ``policy`` is both as the
engine's ``sleep-rules`` edit policy and ``search`` the ``one-edit`` strategy;
``engine`` is the run config and the one ``skillopt.api.train`` call, ``tonight`` one
pass of a night in its run directory, ``outcome`` and ``record`` what the run decided,
read back.
"""
