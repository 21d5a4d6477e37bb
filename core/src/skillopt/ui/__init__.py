"""``skillopt ui``: a local dashboard over run directories — live progress, per-step
decisions, skill diffs — that can also launch and stop runs. Standard library only."""
