"""pi harvester: strict v3 tree parsing, active branch only."""

import pytest

from skillopt import serde
from skillopt_sleep.harvest.pi import PiHarvester, active_branch


def _sessions(fixtures_dir):
    return list(PiHarvester().sessions([fixtures_dir / "pi" / "sessions"]))


def test_pi_uses_the_branch_ending_at_the_last_entry(fixtures_dir):
    (s,) = _sessions(fixtures_dir)
    assert s.project == "/home/dev/code/shop-api"
    texts = " ".join(t.content for t in s.turns)
    assert "Abandoned branch" not in texts
    assert "edit pyproject then git tag" not in texts, "thinking blocks are not kept"
    calls = [t.content for t in s.turns if t.kind == "tool_call"]
    assert calls == ['pyproject.toml\nversion = "1.4.0"', "git tag 1.4.0", "git tag -d 1.4.0 && git tag v1.4.0"], "an edit keeps what it wrote"
    assert "pyproject.toml" in s.files_touched


def test_pi_rejects_forward_references_duplicates_and_cycles():
    with pytest.raises(ValueError, match="unknown or later"):
        active_branch([{"id": "a", "parentId": "b"}, {"id": "b", "parentId": None}], 3)
    with pytest.raises(ValueError, match="duplicate"):
        active_branch([{"id": "a", "parentId": None}, {"id": "a", "parentId": None}], 3)
    assert [e["id"] for e in active_branch([{"id": "a", "parentId": None}, {"id": "b", "parentId": "a"}], 2)] == ["a", "b"]


def test_pi_broken_file_skipped_whole(fixtures_dir):
    ids = [s.id for s in _sessions(fixtures_dir)]
    assert "pi:broken-session" not in ids


def test_pi_redacts_planted_secrets(fixtures_dir, no_secret):
    no_secret(serde.dumps(_sessions(fixtures_dir)))
