"""Deterministic experiments on bundled synthetic personas (``python -m skillopt_sleep.experiments``)."""
