"""Staging: a night's proposal on disk, pinned to the live files it would replace."""
