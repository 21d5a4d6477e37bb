"""The paper-sized SearchQA job with ``--backend openai``, end to end through the OpenAI SDK.

What is real: the CLI, the paper preset (batch 40, 24 workers, the full 200 val and
1,400 test items), the materializer and the shipped id manifests, the engine, the call
pipeline and the ``openai`` SDK talking HTTP. What stands in, because the machine has
no network: the Hugging Face dataset (a local folder with one generated row for every
id of the manifests) and the OpenAI service (the OpenAI-protocol server of the backend
tests). Its stand-in model answers a clue with the title of the first snippet, which
is right for the half of the rows built that way, and answers optimizer calls with
the smallest object their JSON schema allows.
"""

from __future__ import annotations

import json
import re
import sys
from importlib import resources
from pathlib import Path

import pytest

pytest.importorskip("skillopt_envs_searchqa")
pytest.importorskip("skillopt_backends")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "skillopt-backends" / "tests"))

from servers.base import Reply
from servers.openai_protocol import OpenAIServer

FIRST_TITLE = re.compile(r"^1\. ([^:\n]+):", re.MULTILINE)
MODEL = "gpt-5.4-mini"


class FirstSnippetModel(OpenAIServer):
    """Answers a SearchQA rollout with ``Answer: <title of snippet 1>``."""

    def handle(self, rec, action):
        body = rec.body or {}
        if action is None and not body.get("response_format") and "messages" in body:
            user = "\n".join(str(m.get("content")) for m in body["messages"] if m.get("role") == "user")
            found = FIRST_TITLE.search(user)
            if found:
                action = Reply(text=f"The first snippet names it.\nAnswer: {found.group(1).strip()}")
        return super().handle(rec, action)


def manifest_ids() -> dict[str, list[str]]:
    root = resources.files("skillopt_envs_searchqa") / "data" / "manifests" / "searchqa_id_split"
    return {s: [i["id"] for i in json.loads((root / s / "items.json").read_text())] for s in ("train", "val", "test")}


def stand_in_dataset(folder: Path, ids: dict[str, list[str]]) -> Path:
    """One row per manifest id, in the release's row format; even rows are answered by
    snippet 1's title, odd rows by snippet 2's."""
    folder.mkdir()
    rows = []
    for n, key in enumerate(k for split in ids.values() for k in split):
        first, second = f"Place {n}", f"Person {n}"
        rows.append({
            "key": key,
            "question": f"This figure of clue {n} is described below",
            "context": f"[DOC] [TLE] {first} [PAR] A text about {first}. [DOC] [TLE] {second} [PAR] A text about {second}.",
            "answers": [first if n % 2 == 0 else second],
        })
    (folder / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return folder


@pytest.fixture
def openai_service():
    server = FirstSnippetModel(models=(MODEL,)).start()
    yield server
    server.stop()


@pytest.mark.slow
def test_paper_preset_runs_on_materialized_data_through_the_openai_sdk(run_cli, tmp_path, monkeypatch, openai_service):
    ids = manifest_ids()
    assert {s: len(v) for s, v in ids.items()} == {"train": 400, "val": 200, "test": 1400}
    source = stand_in_dataset(tmp_path / "searchqa-release", ids)
    made = run_cli("searchqa", "materialize", "--source", str(source))
    assert made.exit_code == 0, made.output

    monkeypatch.setenv("OPENAI_API_KEY", openai_service.api_key)
    out = tmp_path / "run"
    result = run_cli(
        "run", "--env", "searchqa", "--backend", "openai", "--base-url", openai_service.base_url,
        "--set", "train.max_steps=1", "--out", str(out), "--json",
    )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    config = json.loads((out / "config.json").read_text())
    # the full-size configuration, chosen because the backend is not the local model (with
    # this project's gate: the paper's exact settings are only used when asked for)
    assert config["preset"] == "full" and config["env"]["data"] == "real" and config["evaluation"]["gate"] == "paired"
    assert config["train"]["batch_size"] == 40 and config["env"]["workers"] == 24
    assert summary["val"]["n"] == 200
    # the stand-in model is right on exactly the even rows, and F1 gives the odd ones half
    assert summary["val"]["baseline_gate_score"] == 0.5
    assert summary["test"]["initial"]["n"] == 1400 and summary["test"]["initial"]["hard"] == 0.5
    assert summary["test"]["initial"]["soft"] == 0.75
    step = next((out / "steps").iterdir())
    rollouts = list(step.rglob("*rollout*"))
    assert rollouts, sorted(p.name for p in step.iterdir())
    # every call went through the SDK over HTTP, priced as the named model
    agents = {r.headers.get("user-agent", "") for r in openai_service.requests}
    assert all(a.startswith("OpenAI/Python") for a in agents)
    analysts = summary["usage"]["by_stage"]["optimizer/reflect"]["calls"]
    assert openai_service.count == summary["usage"]["requests"] == summary["usage"]["calls"] == 40 + analysts + 200 + 1400
    assert summary["usage"]["cost_usd"] > 0
    # the key never lands in the run directory
    for path in out.rglob("*"):
        if path.is_file():
            assert openai_service.api_key not in path.read_text(errors="replace"), path
