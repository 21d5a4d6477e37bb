"""Dreaming (``--dream-factor``): rephrased train tasks, on both paths.

``convention_agent`` stands in for the coding model (it follows whatever conventions
its documents state). ``paraphraser`` stands in for an optimizer model asked for
rephrasings: for each request it returns one faithful paraphrase, one that gives the
checked-for command away, and a verbatim copy, so the filter has work to do.
"""

import json
import re

import pytest

from skillopt.calls import Ledger
from skillopt.records import CompletionRequest
from skillopt.scripted import ScriptedBackend
from skillopt_sleep.clients import from_backends
from skillopt_sleep.cycle import run_night
from skillopt_sleep.experiments.agents import convention_agent, optimizer
from skillopt_sleep.mine.dream import dream, rephrasings
from skillopt_sleep.mine.tasks import Check, Lesson, SleepTask
from skillopt_sleep.options import SleepOptions
from skillopt_sleep.sentinel import SENTINEL
from skillopt_sleep.state import project_state_dir

LINT = SleepTask(
    id="t-lint",
    intent="run the linter and fix whatever it reports in shop/cart.py",
    context="(repo: shop-api)",
    checks=(Check(op="contains", value="uv run ruff check"), Check(op="not_contains", value="black")),
    rubric="",
    lessons=(Lesson(text="Use `uv run ruff check`."),),
    split="train",
)


def _request_of(request: CompletionRequest) -> str:
    return request.messages[1].content.split("## Request\n", 1)[1].split("\n\n## How answers", 1)[0]


def paraphraser(request: CompletionRequest):
    """Optimizer stand-in: dream prompts get (up to the schema's maxItems) a faithful
    paraphrase, a give-away, a copy and an off-topic line; other prompts as usual."""
    if request.stage != "sleep-dream":
        return optimizer()(request)
    original = _request_of(request)
    wanted = re.search(r"must mention `([^`]+)`", request.messages[1].content)
    limit = request.json_schema["properties"]["variants"]["maxItems"]
    return {
        "variants": [
            f"When you get a moment, handle this: {original.rstrip('.')}, thanks",
            f"{original} (hint: {wanted[1] if wanted else 'see the docs'})",  # gives the answer away
            original,  # a copy
            "write release notes for the next version",  # another job altogether
        ][:limit]
    }


def _opts(project, **kw):
    base = {"project": project, "lookback_hours": 0, "min_val_items": 1, "edit_budget": 5}
    base.update(kw)
    return SleepOptions(**base)


def _night(project, optimizer_script=paraphraser, dry_run=False, **kw):
    opts = _opts(project, **kw)
    seen: list[CompletionRequest] = []

    def spy(request):
        seen.append(request)
        return optimizer_script(request)

    clients = from_backends(ScriptedBackend(script=convention_agent), ScriptedBackend(script=spy), opts=opts)
    return run_night(opts, clients=clients, dry_run=dry_run), clients, seen


def test_llm_variants_are_filtered_and_topped_up(scripted_client):
    ledger = Ledger()
    client = scripted_client(paraphraser, role="optimizer", ledger=ledger)
    result = dream([LINT], 4, client=client, seed=7, project_name="shop-api")
    texts = [t.intent for t in result.tasks]
    assert texts[0] == "When you get a moment, handle this: run the linter and fix whatever it reports in shop/cart.py, thanks"
    assert not any("uv run ruff check" in t for t in texts), "a variant naming the checked-for command is dropped"
    assert LINT.intent not in texts and "write release notes for the next version" not in texts
    assert result.from_model == 1 and result.rejected == 3 and result.rephrased == 3
    assert texts[1:] == rephrasings(LINT, 3, 7, taken=texts[:1])
    assert ledger.totals().calls == 1, "one optimizer call per task, counted in the ledger"
    for k, task in enumerate(result.tasks, 1):
        assert task.id == f"dream:t-lint:{k}" and task.parent == "t-lint" and task.origin == "dream"
        assert (task.split, task.checks, task.lessons, task.context) == ("train", LINT.checks, LINT.lessons, LINT.context)


def test_dream_prompt_is_marked_and_schema_constrained(scripted_client):
    seen = []
    client = scripted_client(lambda r: seen.append(r) or paraphraser(r), role="optimizer")
    dream([LINT, SleepTask(id="v", intent="a val task", split="val")], 2, client=client, seed=1)
    (request,) = seen  # val tasks are never dreamed
    assert request.messages[0].content.startswith(SENTINEL), "the self-replay filter must recognise dream prompts"
    assert request.stage == "sleep-dream" and request.json_schema["properties"]["variants"]["maxItems"] == 2
    assert "must mention `uv run ruff check`" in request.messages[-1].content


def test_heuristic_rephrasings_keep_the_request_and_are_deterministic():
    a = rephrasings(LINT, 4, seed=42)
    assert a == rephrasings(LINT, 4, seed=42) and len(set(a)) == 4
    assert all(LINT.intent in text for text in a), "the request survives verbatim, so its checks stay valid"
    assert rephrasings(LINT, 4, seed=43) != a or len(a) < 4
    result = dream([LINT], 2, client=None, seed=42)
    assert [t.intent for t in result.tasks] == a[:2] and result.from_model == 0


def _events(night_dir):
    return [json.loads(line) for line in (night_dir / "evidence.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("miner, path", [("heuristic", "heuristic"), ("auto", "llm")])
def test_dreams_stay_in_train_and_out_of_held_out_scores(fixture_home, miner, path):
    _home, project = fixture_home
    result, _, seen = _night(project, dream_factor=2, miner=miner, test_fraction=0.2)
    report = result.report
    assert result.status == "accepted", result.reason
    real = [t for t in report.tasks if t.origin != "dream"]
    dreams = [t for t in report.tasks if t.origin == "dream"]
    real_train = {t.id for t in real if t.split == "train"}
    assert {t.split for t in real} >= {"train", "val", "test"}
    assert len(dreams) == 2 * len(real_train) and {t.split for t in dreams} == {"train"}
    assert {t.parent for t in dreams} == real_train
    assert report.dreams.path == path and report.dreams.variants == len(dreams)
    dream_calls = [r for r in seen if r.stage == "sleep-dream"]
    assert len(dream_calls) == (len(real_train) if path == "llm" else 0)
    if path == "llm":
        assert report.dreams.from_model == len(real_train) and report.dreams.rejected == len(real_train)
    dream_ids = {t.id for t in dreams}
    replays = [e for e in _events(result.staging) if e["stage"] == "replay"]
    assert {e["task"] for e in replays if e["event"] == "train"} >= dream_ids, "dreams are replayed in train"
    held_out = [e for e in replays if e["event"] != "train"]
    assert held_out and not {e["task"] for e in held_out} & dream_ids, "no dream in val, gate, final or test replays"
    assert {row.split for row in report.per_task} == {"val", "test"}
    assert not {row.id for row in report.per_task} & dream_ids
    assert report.mining.by_split.get("train") == len(real_train), "dreams are not counted as mined tasks"
    archive = json.loads((project_state_dir(project) / "state.json").read_text())["task_archive"]
    assert archive and not any(row["id"].startswith("dream:") for row in archive), "dreams are never recalled"


def test_dream_calls_are_budgeted(fixture_home):
    """The dream stage spends calls like any other: the ledger counts them and a spent
    budget stops the night cleanly, before any replay."""
    _home, project = fixture_home
    plain, plain_clients, _ = _night(project, dry_run=True, miner="auto")
    dreamy, dreamy_clients, seen = _night(project, dry_run=True, miner="auto", dream_factor=1)
    n_train = sum(1 for t in plain.report.tasks if t.split == "train")
    extra = dreamy_clients.ledger.totals().calls - plain_clients.ledger.totals().calls
    assert extra == n_train + n_train, "one dream call per real train task, plus one train replay per variant"
    assert dreamy.report.usage.calls == dreamy_clients.ledger.totals().calls

    stopped, clients, seen = _night(project, miner="auto", dream_factor=3, max_calls=2)
    assert stopped.status == "budget_stopped" and re.search(r"budget", stopped.reason)
    assert clients.ledger.totals().calls == 2 and [r.stage for r in seen] == ["sleep-dream", "sleep-dream"]
    assert stopped.report.trials == () and stopped.staging is None


def test_invalid_dream_options_are_errors(tmp_path):
    from skillopt.errors import ConfigError

    with pytest.raises(ConfigError, match="--dream-factor"):
        SleepOptions(project=tmp_path, dream_factor=-1)
    with pytest.raises(ConfigError, match="--dream-rollouts"):
        SleepOptions(project=tmp_path, dream_rollouts=0)


def test_dream_flags_reach_the_cycle(fixture_home, run_cli):
    _home, project = fixture_home
    res = run_cli(
        "sleep", "dry-run", "--project", str(project), "--lookback-hours", "0", "--backend", "scripted",
        "--miner", "heuristic", "--reflector", "heuristic", "--dream-factor", "2", "--dream-rollouts", "2", "--json",
    )  # fmt: skip
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)["report"]
    assert report["dreams"]["factor"] == 2 and report["dreams"]["path"] == "heuristic"
    assert report["dreams"]["variants"] == 2 * report["mining"]["by_split"]["train"]
