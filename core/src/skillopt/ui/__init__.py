"""``skillopt ui`` and ``skillopt report``: a local dashboard over run directories (live
progress, charts, step decisions, trajectories, skill diffs, run comparison) that can
also check, launch, stop and resume runs, and the same views as one static HTML file.
Standard library only; the chart library (uPlot, MIT) is vendored under ``static/vendor``."""
