"""A backend builds its SDK client in the background as soon as it exists
(:mod:`skillopt_backends.warm`), against the protocol servers on 127.0.0.1.

What must hold: the client is built once, ahead of the first call and not by it; a
failed build raises nothing at construction and surfaces on the first call exactly as
a build on that call does; a closed backend builds nothing more.
"""

from __future__ import annotations

import sys
import threading

import pytest

from skillopt.records import CompletionRequest, Message


def ask(text: str = "Say hello.") -> CompletionRequest:
    return CompletionRequest(messages=(Message(role="user", content=text),), max_tokens=20)


def count_builds(monkeypatch, cls) -> list[str]:
    """Record the thread of every ``_new_client`` of ``cls`` (the real build runs)."""
    builds: list[str] = []
    real = cls._new_client

    def counted(self):
        builds.append(threading.current_thread().name)
        return real(self)

    monkeypatch.setattr(cls, "_new_client", counted)
    return builds


@pytest.mark.parametrize("name", ["openai-compatible", "anthropic"])
def test_the_client_is_built_once_before_the_first_call_in_the_background(name, make_compat_scripted, make_anthropic,
                                                                         monkeypatch):
    from skillopt_backends.anthropic_messages import AnthropicBackend
    from skillopt_backends.openai_compatible import OpenAICompatibleBackend

    cls, make = {"openai-compatible": (OpenAICompatibleBackend, make_compat_scripted),
                 "anthropic": (AnthropicBackend, make_anthropic)}[name]
    builds = count_builds(monkeypatch, cls)
    backend = make()
    backend._warm_up.join(30)
    assert builds == [f"{name}-client-warm-up"]  # built before any call, not on the caller's thread
    built = backend._client
    callers = [threading.Thread(target=backend.complete, args=(ask(f"q{i}"),)) for i in range(4)]
    for t in callers:
        t.start()
    for t in callers:
        t.join(30)
    assert backend._client is built and builds == [f"{name}-client-warm-up"]  # the calls reused it


def test_a_failed_warm_up_surfaces_on_the_first_call_as_before(make_compat_scripted):
    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(sys.modules, "openai", None)  # the SDK cannot be imported (a broken install)
        backend = make_compat_scripted()  # construction raises nothing, as before
        backend._warm_up.join(30)
        assert backend._client is None
        with pytest.raises(ImportError, match="openai"):
            backend.complete(ask())  # the first call builds again and raises what the build raises
    # the SDK is back: the next call builds the client and is answered (no failure was kept)
    assert backend.complete(ask()).text
    assert backend._client is not None


def test_a_closed_backend_builds_no_client(make_compat_scripted, monkeypatch):
    from skillopt_backends.openai_compatible import OpenAICompatibleBackend

    backend = make_compat_scripted()
    backend._warm_up.join(30)
    backend.close()
    builds = count_builds(monkeypatch, OpenAICompatibleBackend)
    backend._warm_client()  # a warm-up that ran only now (it lost the race to close)
    assert backend._client is None and builds == []
