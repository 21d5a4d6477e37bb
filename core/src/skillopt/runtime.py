"""The process-wide state of one SkillOpt invocation, and how to start afresh.

An invocation (a CLI command, a test, an embedding application's run) shares: the plugin
host (loaded plugins), the entry-point scan, the component registry, the per-endpoint
in-flight limiters, the installed reporter, the variables a ``.env`` file set, and the
caches that read files (packaged prompts, upstream YAML configs). :func:`reset` forgets
all of them, so the next invocation in the same process (the next test) starts as a
fresh ``skillopt`` would. The CLI app itself is built per invocation
(:func:`skillopt.cli.make_app`).

What :func:`reset` deliberately keeps is listed in :data:`KEPT`, each with the reason:
known secrets stay masked for the life of the process, and caches computed from the
code alone (not from files or the environment) are the same in a fresh process. A
test (``core/tests/test_runtime.py``) finds every module-level mutable global and
``functools`` cache in ``skillopt`` and fails on one that is in neither list.
"""

from __future__ import annotations

#: process globals :func:`reset` forgets ("module:name")
RESET = (
    "skillopt.plugins:_HOST",
    "skillopt.plugins:_SCAN",
    "skillopt.registry:_REGISTRY",
    "skillopt.calls.pipeline:_LIMITERS",
    "skillopt.report:_reporter",
    "skillopt.config.environ:FROM_DOTENV",
    "skillopt.config.upstream:_load_once",
    "skillopt.policies:_packaged_prompt",
)

#: process globals :func:`reset` keeps, and why
KEPT = {
    "skillopt.redact:_known": "a credential seen once stays masked for the life of the process",
    "skillopt.serde:_CONVERTERS": "the cattrs converters: built from the record classes alone",
    "skillopt.serde:_UNSTRUCTURED": "record classes whose cattrs hooks exist: the converters' own state, kept with them",
    "skillopt.serde:field_types": "resolved annotations of a class: the code's, the same in a fresh process",
    "skillopt.fielddocs:field_docs": "the #: comments of a class's source: the code's, the same in a fresh process",
}


def reset() -> None:
    """Forget every process global in :data:`RESET`: loaded plugins, the entry-point scan,
    registered components, limiters, the reporter, the ``.env`` variables (unset again)
    and the file-reading caches."""
    from skillopt import policies, report
    from skillopt.calls import pipeline
    from skillopt.config import environ, upstream
    from skillopt.plugins import reset_host
    from skillopt.registry import reset_registry

    reset_host()  # the host and the entry-point scan
    reset_registry()  # the registry built on them
    with pipeline._LIMITERS_LOCK:
        pipeline._LIMITERS.clear()
    report.set_reporter(None)
    environ.forget_dotenv()
    upstream._load_once.cache_clear()
    policies._packaged_prompt.cache_clear()
