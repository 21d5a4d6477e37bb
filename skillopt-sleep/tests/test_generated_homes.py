"""Acceptance on generated agent homes the code was NOT tuned on.

The homes come from ``skillopt_sleep.experiments.homes``: a persona and a seed decide
five recurring jobs (each repeated 3–11 times), the languages of the developer's
messages, the six agents' real on-disk formats, corrections repeated across sessions,
late corrections and polite follow-up requests, a one-off correction, automated
sessions in and outside the project, noise and planted secrets. Mining, feedback
reading and rule writing were tuned on ``sets.TUNE`` only; every assertion below is on
``sets.HELD_OUT``: personas lucia (Python/Poetry, Spanish and English), anke
(Node/Yarn, German and English) and olu (Rust, English and French) at seeds 11, 12 and
13, and the tuning personas maria, theo and kenji at unseen seeds 31 and 32 — all
written in the held-out phrasing pool B, which no tuning home uses.

The stand-in coding model (:class:`~skillopt_sleep.experiments.homes.follower.HomeFollower`)
does each job the way its documents say and the generic way otherwise; the optimizer
stand-in proposes a harmful rule the gate must block.
"""

import hashlib
import shutil

import pytest

from skillopt_sleep.experiments.homes.generate import plan
from skillopt_sleep.experiments.homes.run import homes_verdict, run_homes, table
from skillopt_sleep.experiments.homes.sets import HELD_OUT, HELD_OUT_ONLY_CONVENTIONS, TUNE
from skillopt_sleep.experiments.homes.write import SOURCES, build


@pytest.fixture(scope="module")
def held_out():
    results = run_homes("held-out")
    assert [r["home"] for r in results] == [h.name for h in HELD_OUT]
    return results


def test_tune_and_held_out_are_disjoint_and_held_out_is_unlike_tuning():
    assert not {h.name for h in TUNE} & {h.name for h in HELD_OUT}
    assert {h.pool for h in TUNE} == {"A"} and {h.pool for h in HELD_OUT} == {"B"}
    assert "bundled" in {h.persona for h in TUNE}, "the bundled fixture home is one home among many"
    tuned = {j.convention.name for h in TUNE if h.persona != "bundled" for j in plan(h).jobs}
    assert not tuned & set(HELD_OUT_ONLY_CONVENTIONS)
    held_languages = {lang for h in HELD_OUT for lang, _w in plan(h).persona.languages}
    assert {"en", "es", "de", "fr"} <= held_languages


def test_a_home_is_deterministic_by_seed(tmp_path):
    home = HELD_OUT[0]
    assert plan(home) == plan(home)
    digests = []
    for _ in range(2):
        shutil.rmtree(tmp_path / "h", ignore_errors=True)
        built = build(home, tmp_path / "h")
        digests.append({str(p.relative_to(tmp_path)): hashlib.sha256(p.read_bytes()).hexdigest()
                        for p in sorted(built.home.rglob("*")) if p.is_file()})  # fmt: skip
    assert digests[0] == digests[1]
    assert plan(HELD_OUT[1]) != plan(home)


def test_every_home_has_what_the_issue_asks_for(tmp_path):
    agents, languages = set(), set()
    for home_id in HELD_OUT + TUNE[1:]:
        p = plan(home_id)
        regular = [j for j in p.jobs if not j.memory_stated]
        assert len(regular) == 5 and all(3 <= j.repeats <= 11 for j in regular), home_id
        assert {s.label for s in p.sessions} >= {"automation", "one-off", "noise", "elsewhere"}
        assert any(label == "follow-up" for s in p.sessions for _t, label in s.intents)
        assert any(j.convention.family == "late" for j in regular)
        agents |= {s.agent for s in p.sessions}
        languages |= {lang for lang, _w in p.persona.languages}
    assert set(SOURCES) <= agents | {"copilot-cli"} and "copilot-store" in agents
    assert languages == {"en", "de", "fr", "es"}
    built = build(HELD_OUT[0], tmp_path / "h")
    blob = b"".join(p.read_bytes() for p in built.home.rglob("*") if p.is_file())
    assert all(secret.encode() in blob for secret in built.plan.planted), "the no-leak checks would be vacuous"


@pytest.mark.slow
def test_held_out_homes_mine_at_least_four_of_five_jobs_with_valid_checks(held_out):
    """Each job: a kept task whose checks the developer's accepted way passes and both the
    generic way and the memory-file-only way fail; no task merges jobs; no kept task is
    one an agent following the memory file alone already passes."""
    for r in held_out:
        s = r["summary"]
        assert s["jobs"] == 5 and s["jobs_mined"] >= 4, (r["home"], s)
        assert s["tasks_merged"] == 0 and s["tasks_memory_passes"] == 0, (r["home"], s)
        memory_jobs = [j for p in r["projects"].values() for j in p["mining"]["jobs"].values() if j["memory_stated"]]
        assert all(j["tasks"] == 0 for j in memory_jobs), r["home"]
    mined = sum(r["summary"]["jobs_mined"] for r in held_out)
    assert mined == 5 * len(held_out), f"{mined} of {5 * len(held_out)} jobs"


def test_held_out_feedback_traps_are_read_right(held_out):
    """A late correction ("Looks good, but I meant under `## [Unreleased]` …") is a
    correction; a polite follow-up ("Would you mind also adding a revert note …? Not
    urgent.") is a new request, never a complaint."""
    late = [sum(r["summary"]["late_read"][i] for r in held_out) for i in (0, 1)]
    follow = [sum(r["summary"]["follow_ups_read"][i] for r in held_out) for i in (0, 1)]
    assert late[1] >= 30 and late[0] == late[1], late
    assert follow[1] >= 30 and follow[0] == follow[1], follow


def test_held_out_repeated_corrections_become_rules_and_one_offs_do_not(held_out):
    for r in held_out:
        assert r["summary"]["rules"] >= 1, r["home"]
        assert r["summary"]["one_off_rules"] == 0, r["home"]
        for row in r["projects"].values():
            assert not row["night"]["harmful_staged"]
            for rule in row["night"]["rules"]:
                assert rule.startswith("- ") and not any(w in rule for w in ("please", "bitte", "merci", "gracias", "Thanks")), rule


def test_held_out_nights_are_accepted_with_a_test_lift_and_leak_nothing(held_out):
    """Default options do not end every night too_few_tasks; nights with a test split
    are accepted and lift the held-out test score; no planted secret reaches a file the
    night wrote or a request it sent."""
    ok, summary = homes_verdict(held_out)
    assert ok, summary
    default = [row["default_night"]["status"] for r in held_out for row in r["projects"].values()]
    assert default.count("too_few_tasks") < len(default) and "accepted" in default
    lifts = [t for r in held_out for t in r["summary"]["test"] if None not in t and t[1] > t[0]]
    assert all(r["summary"]["accepted_with_lift"] for r in held_out), [r["summary"]["nights"] for r in held_out]
    assert len(lifts) >= len(held_out), lifts
    assert all(r["summary"]["leaks"] == 0 and r["leaks"] == [] for r in held_out)
    assert table(held_out).count("\n| held-out |") == len(held_out)


def test_the_cli_names_the_sets(run_cli):
    res = run_cli("sleep", "experiment", "--homes", "nope")
    assert res.exit_code == 2 and "--homes must be one of tune, held-out, all" in res.output
