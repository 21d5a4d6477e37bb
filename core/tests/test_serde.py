"""Records round-trip through the one converter; strict mode names unknown keys."""

from __future__ import annotations

import pytest

from skillopt.config.schema import RunConfig, TrainConfig
from skillopt.errors import ConfigError
from skillopt.records import (
    Completion,
    CompletionRequest,
    Edit,
    EditResult,
    Message,
    Patch,
    Rollout,
    Score,
    Session,
    Skill,
    StepRecord,
    Suggestion,
    Task,
    Turn,
    Usage,
    Verdict,
)
from skillopt.serde import from_data, structure_strict, to_data

SAMPLES = [
    Message(role="user", content="hi", images=("data:image/png;base64,AAAA",)),
    CompletionRequest(messages=(Message(role="system", content="s"),), max_tokens=9, json_schema={"type": "object"}, seed=3, stop=("x",)),
    Usage(prompt_tokens=3, completion_tokens=4, cached_tokens=1),
    Completion(text="t", parsed={"a": [1, 2]}, usage=Usage(prompt_tokens=1), cost_usd=0.5, model="m"),
    Task(id="t1", inputs={"q": "x"}, gold=["a", "b"], task_type="qa", reference="ref", split="train"),
    Score(hard=1.0, soft=0.5, feedback="f", metrics={"em": 1.0}),
    Rollout(task_id="t1", turns=(Turn(role="user", content="q"), Turn(role="tool", content="ls", kind="tool_call", name="bash")),
            prediction="p", score=Score(hard=0.0, soft=0.2), usage=Usage(prompt_tokens=2), error="", skill_hash="abc", repeat=1),
    Skill(content="# s", version=3, origin="step_0003"),
    Patch(edits=(Edit(op="replace", target="a", content="b", support_count=2),), suggestions=(Suggestion(type="add_rule", title="t", instruction="i"),),
          reasoning="r", patterns=("p",), appendix_notes=("n",), merge_level=2),
    EditResult(edit=Edit(op="delete", target="x"), status="not_applied", detail="target text not found"),
    StepRecord(step=1, epoch=1, step_in_epoch=1, action="reject",
               verdict=Verdict(accepted=False, action="reject", metric="hard", current_score=0.5, candidate_score=0.4, details={"p": 0.3}),
               timing={"rollout_s": 1.0}, notes=("merge fell back",)),
    Session(id="s1", source="codex", turns=(Turn(role="user", content="fix the test"),), tools_used=("bash",), metadata={"branch": "main"}),
]


@pytest.mark.parametrize("record", SAMPLES, ids=lambda r: type(r).__name__)
def test_records_round_trip(record):
    assert from_data(to_data(record), type(record)) == record


def test_lenient_reader_ignores_keys_from_newer_versions():
    data = to_data(Score(hard=1.0, soft=1.0))
    data["added_in_v9"] = "whatever"
    assert from_data(data, Score) == Score(hard=1.0, soft=1.0)


def test_strict_structuring_names_the_unknown_key_and_suggests_the_closest():
    with pytest.raises(ConfigError) as exc:
        structure_strict({"train": {"batchsize": 3}}, RunConfig)
    message = str(exc.value)
    assert "train.batchsize" in message
    assert "train.batch_size" in message


def test_strict_structuring_reports_bad_types_with_their_path():
    with pytest.raises(ConfigError) as exc:
        structure_strict({"num_epochs": "many"}, TrainConfig, where="train")
    assert "num_epochs" in str(exc.value)


def test_skill_hash_is_content_addressed():
    assert Skill(content="a").hash == Skill(content="a", version=9).hash != Skill(content="b").hash



def test_threads_using_a_record_class_first_at_once_generate_its_code_once(monkeypatch):
    """cattrs writes a class's unstructure function on first use, unlocked: rollout threads
    finishing together each wrote (and compiled) the same code, 16 times for 16 threads.
    The generator is wrapped to count how often it runs for the class."""
    import sys
    import threading

    import attrs
    import cattrs.converters

    from skillopt import serde

    @attrs.frozen
    class FreshRecordForThreads:
        name: str
        score: float = 0.0

    generated: list[type] = []
    original = cattrs.converters.make_dict_unstructure_fn

    def counting(cl, *args, **kwargs):
        generated.append(cl)
        return original(cl, *args, **kwargs)

    monkeypatch.setattr(cattrs.converters, "make_dict_unstructure_fn", counting)
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads switch often, as 24 busy rollout threads do
    start = threading.Barrier(16)

    def first_use() -> None:
        start.wait()
        assert serde.to_data(FreshRecordForThreads("x", 1.0)) == {"name": "x", "score": 1.0}

    try:
        threads = [threading.Thread(target=first_use) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert generated.count(FreshRecordForThreads) == 1
