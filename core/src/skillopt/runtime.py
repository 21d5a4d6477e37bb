"""The process-wide state of one SkillOpt invocation, and how to start afresh.

An invocation (a CLI command, a test, an embedding application's run) shares: the plugin
host (loaded plugins), the component registry, the per-endpoint in-flight limiters and the
installed reporter. :func:`reset` forgets all of them, so the next invocation in the same
process (the next test) starts as a fresh ``skillopt`` would. The CLI app itself is built
per invocation (:func:`skillopt.cli.make_app`). Known secrets are deliberately *not*
forgotten: a credential seen once stays masked for the life of the process.
"""

from __future__ import annotations


def reset() -> None:
    """Forget loaded plugins, registered components, limiters and the reporter."""
    from skillopt import report
    from skillopt.calls import pipeline
    from skillopt.plugins import reset_host

    reset_host()
    with pipeline._LIMITERS_LOCK:  # noqa: SLF001 - the owner module's state
        pipeline._LIMITERS.clear()  # noqa: SLF001
    report.set_reporter(None)
