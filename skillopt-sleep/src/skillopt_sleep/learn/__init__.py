"""Learn: turn tonight's replayed failures into bounded edits and keep only what the gate accepts.

``reflect`` proposes edits (evidence-backed rules with no model, or the optimizer's),
``contrast`` compares good and bad attempts of one task, ``gating`` asks the core's
gate plugins to decide on the same val tasks.
"""
