"""One harvester plugin per coding agent (entry-point group ``skillopt.harvesters``).

Each module parses its agent's real on-disk format into
:class:`skillopt.records.Session` records through :class:`~._base.SessionBuilder`,
which redacts every string at ingestion and drops sleep's own replays.
"""
