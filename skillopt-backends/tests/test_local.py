"""The embedded ``local`` backend on the real SmolLM2 model (one load per session;
the contract suite covers text, structure, usage, timeouts and cancellation)."""

from __future__ import annotations

import os
import shutil
import threading

import pytest
from backend_testkit import client_for

from skillopt.errors import ConfigError
from skillopt.records import CompletionRequest, Message
from skillopt_backends.local import DEFAULT_MODEL, load_model

pytestmark = pytest.mark.local_model


def ask(text: str, **kw) -> CompletionRequest:
    return CompletionRequest(messages=(Message(role="user", content=text),), **kw)


def test_concurrent_calls_are_serialised_on_one_model(make_local):
    backend = make_local()
    results: list[str] = []
    errors: list[BaseException] = []

    def call(i: int) -> None:
        try:
            results.append(backend.complete(ask(f"Count to {i + 2}.", max_tokens=12)).text)
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion
            errors.append(exc)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 4
    assert load_model(backend.path, backend.n_ctx) is load_model(backend.path, backend.n_ctx)


def test_deadline_counts_generation_not_queueing(make_local):
    """A call waiting for the model behind a long one still gets its full timeout."""
    backend = make_local()
    loaded = load_model(backend.path, backend.n_ctx)
    outcome: dict[str, object] = {}
    with loaded.lock:  # another call holds the model for a while
        waiter = threading.Thread(
            target=lambda: outcome.setdefault("c", backend.complete(ask("Hi.", max_tokens=6, timeout_s=20.0)))
        )
        waiter.start()
        waiter.join(timeout=1.5)
        assert waiter.is_alive()  # queued, not timed out
    waiter.join(timeout=60)
    assert outcome["c"].text


def test_greedy_decoding_is_deterministic_and_cacheable(make_local, tmp_path):
    from skillopt.calls import CallCache

    cache = CallCache(tmp_path / "calls.sqlite3")
    first = client_for(make_local(), cache=cache).complete(ask("Name a colour.", max_tokens=8))
    again = make_local().complete(ask("Name a colour.", max_tokens=8))
    assert again.text == first.text
    hit = client_for(make_local(), cache=cache).complete(ask("Name a colour.", max_tokens=8))
    assert hit.cached and hit.text == first.text


def test_model_settings(make_local, gguf, tmp_path):
    assert make_local(model=DEFAULT_MODEL).path == gguf
    copy = tmp_path / "my-model.gguf"
    shutil.copyfile(gguf, copy)
    assert make_local(model=str(copy)).path == copy  # a .gguf given as the model
    assert make_local(local_path=str(copy)).identity()["model"] == "my-model.gguf"  # no directory in the cache key
    with pytest.raises(ConfigError, match="not 'gpt-4o'"):
        make_local(model="gpt-4o")  # never silently run SmolLM2 instead
    with pytest.raises(ConfigError, match="no such GGUF"):
        make_local(local_path=str(tmp_path / "missing.gguf"))


def test_the_bundled_model_says_it_only_checks_the_pipeline_another_gguf_does_not(make_local, gguf, tmp_path):
    note = make_local().pipeline_check_note("searchqa")
    assert f"the embedded {DEFAULT_MODEL} only checks that the pipeline runs end to end" in note
    assert "too small to learn this task" in note and "expect a lift of +0.000" in note
    assert note.endswith("OPENAI_API_KEY=<your key> skillopt run --env searchqa --backend openai")
    copy = tmp_path / "bigger.gguf"
    shutil.copyfile(gguf, copy)  # a model the user chose: whether it can learn is theirs to judge
    assert make_local(local_path=str(copy)).pipeline_check_note("searchqa") == ""


def test_length_limits_never_reach_the_grammar(make_local):
    """llama-cpp-python expands maxLength into nested rules; 2000 of them made
    llama.cpp's parser fail and the process segfault. The grammar keeps the shape."""
    from llama_cpp import llama_grammar

    from skillopt_backends.local_grammar import grammar_for, grammar_schema

    llm = load_model(make_local().path, 8192).llm
    schema = {
        "type": "object",
        "properties": {
            "answer": {"type": "string", "maxLength": 2000},
            "label": {"type": "string", "maxLength": 12},
            "tags": {"type": "array", "maxItems": 3},
        },
    }
    assert grammar_schema(schema)["properties"] == {  # long limits are clamped: they keep a small model brief
        "answer": {"type": "string", "maxLength": 160},
        "label": {"type": "string", "maxLength": 12},
        "tags": {"type": "array", "maxItems": 3},
    }
    grammar = grammar_for(llm, schema)._grammar
    assert "answer" in grammar and 12 <= grammar.count("char") < 400
    broken = {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}}
    assert grammar_for(llm, broken)._grammar == llama_grammar.JSON_GBNF  # unconvertible: plain JSON


def test_a_schema_with_long_limits_runs_in_a_fresh_process(gguf):
    """The crash was a segfault, so this check runs where one cannot take pytest down."""
    import subprocess
    import sys

    script = (
        "from skillopt.backends import BackendSettings\n"
        "from skillopt.records import CompletionRequest, Message\n"
        "from skillopt_backends.local import LocalBackend\n"
        "schema = {'type': 'object', 'properties': {'answer': {'type': 'string', 'maxLength': 2000}}, 'required': ['answer']}\n"
        "backend = LocalBackend(BackendSettings(name='local', options={'n_ctx': 512}))\n"
        "request = CompletionRequest(messages=(Message(role='user', content='Name a colour as JSON.'),), max_tokens=24,"
        " json_schema=schema, timeout_s=240)\n"
        "print(backend.complete(request).text)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]  # -11 (SIGSEGV) before local_grammar
    assert proc.stdout.lstrip().startswith("{")


def test_threads_follow_the_cpus_this_process_may_use(monkeypatch):
    from skillopt_backends import local

    monkeypatch.delenv("SKILLOPT_LOCAL_THREADS", raising=False)
    monkeypatch.setattr(local.os, "sched_getaffinity", lambda pid: {3}, raising=False)
    monkeypatch.setattr(local.os, "cpu_count", lambda: 64)
    assert local.thread_count() == 1  # a container or taskset limit, not the host's 64 cores
    monkeypatch.setenv("SKILLOPT_LOCAL_THREADS", "3")
    assert local.thread_count() == 3
    monkeypatch.setenv("SKILLOPT_LOCAL_THREADS", "two")
    with pytest.raises(ConfigError, match="SKILLOPT_LOCAL_THREADS"):
        local.thread_count()


def test_openmp_spin_is_short_while_llama_cpp_loads_and_the_users_choice_wins(monkeypatch):
    from skillopt_backends import local

    monkeypatch.delenv("GOMP_SPINCOUNT", raising=False)
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    with local.short_openmp_spin():
        assert os.environ["GOMP_SPINCOUNT"] == local.OPENMP_SPIN_COUNT
    assert "GOMP_SPINCOUNT" not in os.environ  # child processes keep the user's environment
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")
    with local.short_openmp_spin():
        assert "GOMP_SPINCOUNT" not in os.environ


SKILL_SYSTEM = ("You answer questions about a small town. " + " ".join(
    f"Rule {i}: keep the answer short, name the place exactly as the records write it, and never add a title."
    for i in range(1, 9)))


def chat(system: str, user: str) -> CompletionRequest:
    return CompletionRequest(messages=(Message(role="system", content=system), Message(role="user", content=user)),
                             max_tokens=24, temperature=0.0)


def test_the_system_prompt_is_evaluated_once_per_evaluation_and_answers_repeat_exactly(make_local):
    """The KV cache of a shared system prompt (env instructions + skill) is reused across
    items; the same request gives the same greedy answer whether or not it was cached."""
    backend = make_local()
    loaded = load_model(backend.path, backend.n_ctx)
    items = ["Where is the old mill?", "Who built the harbour wall, and when?", "Name the river that floods."]
    loaded.llm.reset()
    fresh = [backend.complete(chat(SKILL_SYSTEM, q)).text for q in items[:1]]
    hits = loaded.prefix_hits
    cached = [backend.complete(chat(SKILL_SYSTEM, q)).text for q in items[1:] + items[:1]]
    assert loaded.prefix_hits == hits + 3  # the system prompt came from the cache three times
    assert cached[-1] == fresh[0]  # item 1 again, after other items: the identical answer
    backend.complete(chat("A different system prompt, long enough to be kept: " + SKILL_SYSTEM[::-1], items[1]))
    again = backend.complete(chat(SKILL_SYSTEM, items[1])).text  # the prefix was replaced: evaluated afresh
    assert again == cached[0]
    assert backend.identity()["kv"] == "system-prefix"  # cached answers of the old one-batch scheme are not mixed in
