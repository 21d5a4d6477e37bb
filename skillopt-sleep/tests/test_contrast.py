"""Contrastive multi-rollout reflection (``--dream-rollouts K``).

``lucky_agent`` stands in for a sampling coding model: on odd sampling seeds it
happens to use the project's convention (as if it had guessed "this project uses uv"),
on even seeds it answers generically — so the same request, under the same rules,
sometimes passes and sometimes fails. ``contrast_optimizer`` stands in for the
optimizer: shown GOOD vs BAD attempts it proposes the rule that explains them.
"""

from pathlib import Path

import attrs

from skillopt.calls.cache import request_key
from skillopt.records import CompletionRequest, Message
from skillopt.scripted import ScriptedBackend
from skillopt_sleep.clients import from_backends
from skillopt_sleep.cycle import run_night
from skillopt_sleep.documents import Doc
from skillopt_sleep.experiments.agents import HARMFUL_RULE, convention_agent, optimizer
from skillopt_sleep.learn.contrast import STAGE, contrast_request, pick
from skillopt_sleep.mine.tasks import Check, SleepTask
from skillopt_sleep.options import SleepOptions
from skillopt_sleep.replay import replay
from skillopt_sleep.sentinel import SENTINEL

UV_RULE = "- Run Python tools through `uv run`; this project uses uv."


def lucky_agent(request: CompletionRequest) -> str:
    if request.seed is not None and request.seed % 2 == 1:
        system = request.messages[0].content.replace("## Skill", "## Skill\nThis project uses uv run.", 1)
        request = attrs.evolve(request, messages=(Message(role="system", content=system), *request.messages[1:]))
    return convention_agent(request)


def contrast_optimizer(request: CompletionRequest):
    if request.stage == STAGE:
        return {"edits": [{"doc": "skill", "op": "append", "content": UV_RULE, "why": "the GOOD attempts used uv run"}]}
    return optimizer()(request)


def _task(tid, intent, *checks, parent=""):
    return SleepTask(id=tid, intent=intent, checks=tuple(checks), split="train", parent=parent)


DOCS = [Doc(role="skill", path=Path("/p/SKILL.md"), original=None, text="")]
TESTS = _task("a-tests", "the order tests are failing, run them", Check(op="contains", value="uv run pytest"))
LINT_SOFT = _task(
    "b-lint",
    "lint the project",
    Check(op="contains", value="ruff check"),
    Check(op="contains", value="uv run"),
)
ALWAYS = _task("c-always", "run the tests again", Check(op="contains", value="pytest"))
NEVER = _task("d-never", "tag the release", Check(op="contains", value="git tag v1.4.0"))
TESTS_DREAM = _task("dream:a-tests:1", "Quick one: the order tests are failing", *TESTS.checks, parent="a-tests")


def test_pick_prefers_the_largest_spread_one_per_real_task(scripted_client):
    tasks = [NEVER, ALWAYS, LINT_SOFT, TESTS_DREAM, TESTS]
    seen = []
    client = scripted_client(lambda r: seen.append(r) or lucky_agent(r))
    result = replay(tasks, DOCS, client, phase="train", repeats=3, seed=42)
    keys = {t.id: set() for t in tasks}
    for r in seen:
        keys[next(t.id for t in tasks if t.intent in r.messages[-1].content and t.intent != "")].add(request_key({}, r))
    assert all(len(k) == 3 for k in keys.values()), "K rollouts have distinct seeds, so distinct cache keys"
    # mixed metric: tests 0 -> 1 (spread 1.0); lint soft 0.25 -> 1 (0.75); the others never vary
    picked = pick(tasks, result, "mixed")
    assert [(c.task.id, c.spread) for c in picked] == [("a-tests", 1.0), ("b-lint", 0.75)]
    assert picked[0].good.repeat == 1 and picked[0].bad.repeat == 0 and picked[0].attempts == 3
    assert "dream:a-tests:1" not in [c.task.id for c in picked], "one contrast per real task family"
    assert [c.task.id for c in pick(tasks, result, "hard")] == ["a-tests", "b-lint"]
    assert pick(tasks, replay(tasks, DOCS, client, phase="train", repeats=1, seed=42), "mixed") == []


def test_contrast_prompt_shows_good_and_bad_attempts(scripted_client):
    tasks = [TESTS, ALWAYS]
    result = replay(tasks, DOCS, scripted_client(lucky_agent), phase="train", repeats=2, seed=42)
    request = contrast_request(pick(tasks, result, "mixed"), DOCS, 3, "shop-api")
    system, user = request.messages[0].content, request.messages[1].content
    assert system.startswith(SENTINEL) and request.stage == STAGE and request.json_schema is not None
    assert "GOOD attempt (score 1.00):\n```bash\nuv run pytest -q" in user
    assert "BAD attempt (score 0.00; failed: must mention `uv run pytest`):\n```bash\npython -m pytest" in user
    assert "the order tests are failing" in user and "run the tests again" not in user
    assert "at most 3 edits" in user


def _night(project, target, **kw):
    opts = SleepOptions(project=project, lookback_hours=0, min_val_items=1, edit_budget=5, **kw)
    seen = []

    def spy(request):
        seen.append(request)
        return contrast_optimizer(request)

    clients = from_backends(ScriptedBackend(script=target), ScriptedBackend(script=spy), opts=opts)
    return run_night(opts, clients=clients, dry_run=True), seen


def test_night_with_rollouts_reflects_on_contrasts_deterministically(fixture_home):
    _home, project = fixture_home
    result, seen = _night(project, lucky_agent, dream_rollouts=3, reflector="llm")
    assert result.status == "accepted", result.reason
    stages = [r.stage for r in seen]
    assert STAGE in stages and "sleep-reflect" not in stages, "contrastive edits came back: no fallback call"
    prompt = next(r for r in seen if r.stage == STAGE).messages[1].content
    assert "GOOD attempt" in prompt and "BAD attempt" in prompt
    contrast = result.report.contrast
    train = [t.id for t in result.report.tasks if t.split == "train"]
    assert contrast.rollouts == 3 and contrast.tasks and {t.id for t in contrast.tasks} <= set(train)
    assert [(e.edit.content, e.origin) for e in result.report.accepted_edits] == [(UV_RULE, "contrast")]
    again, _ = _night(project, lucky_agent, dream_rollouts=3, reflector="llm")
    assert again.report.contrast == contrast and again.report.accepted_edits == result.report.accepted_edits


def test_no_spread_falls_back_to_normal_reflection(fixture_home):
    """A deterministic agent answers the same on every rollout: nothing to contrast."""
    _home, project = fixture_home
    result, seen = _night(project, convention_agent, dream_rollouts=3)
    stages = [r.stage for r in seen]
    assert STAGE not in stages and "sleep-reflect" in stages
    assert result.report.contrast.tasks == ()
    assert any("no train task varied across its 3 rollouts" in n for n in result.report.notes)
    assert any(e.edit.content == HARMFUL_RULE for e in result.report.rejected_edits), "the gate still decides"


def test_rollouts_are_not_spent_without_an_llm_reflector(fixture_home):
    _home, project = fixture_home
    plain, _ = _night(project, lucky_agent, reflector="heuristic")
    result, _ = _night(project, lucky_agent, reflector="heuristic", dream_rollouts=3)
    assert result.report.usage.calls == plain.report.usage.calls
    assert any("--dream-rollouts ignored" in n for n in result.report.notes) and result.report.contrast is None


def test_one_rollout_is_the_plain_night(fixture_home):
    _home, project = fixture_home
    result, seen = _night(project, lucky_agent)
    assert result.report.contrast is None and STAGE not in [r.stage for r in seen]
    assert "sleep-reflect" in [r.stage for r in seen]
