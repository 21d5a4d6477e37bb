"""Applying bounded edits to a skill document: every edit reports its fate."""

from __future__ import annotations

from skillopt.records import Edit
from skillopt.skilldoc import (
    APPX_END,
    APPX_START,
    SLOW_END,
    SLOW_START,
    apply_edit,
    apply_edits,
    get_block,
    restore_protected,
    set_block,
)

SKILL = "# Skill\n\n## Answers\n- Give the answer only.\n- Use the  context.\n"


def test_append_goes_before_protected_blocks():
    skill = set_block(SKILL, SLOW_START, SLOW_END, "- slow lesson")
    new, res = apply_edit(skill, Edit(op="append", content="- New rule."))
    assert res.status == "applied"
    assert new.index("- New rule.") < new.index(SLOW_START)


def test_insert_after_the_line_holding_the_anchor():
    new, res = apply_edit(SKILL, Edit(op="insert_after", target="Give the answer", content="- Then stop."))
    assert res.status == "applied"
    assert "- Give the answer only.\n- Then stop.\n- Use" in new


def test_missing_anchor_is_reported_not_appended():
    new, res = apply_edit(SKILL, Edit(op="insert_after", target="No such line", content="- X"))
    assert res.status == "not_applied" and "not found" in res.detail and new == SKILL


def test_whitespace_tolerant_matching_for_replace():
    new, res = apply_edit(SKILL, Edit(op="replace", target="Use the context.", content="Use the snippets."))
    assert res.status == "applied" and "- Use the snippets.\n" in new


def test_delete_and_duplicate_and_invalid_ops():
    new, res = apply_edit(SKILL, Edit(op="delete", target="- Give the answer only.\n"))
    assert res.status == "applied" and "Give the answer" not in new
    _, dup = apply_edit(SKILL, Edit(op="append", content="- give the answer only."))
    assert dup.status == "duplicate"
    _, bad = apply_edit(SKILL, Edit(op="rename", target="x"))
    assert bad.status == "invalid"
    _, empty = apply_edit(SKILL, Edit(op="replace", target="Answers", content=""))
    assert empty.status == "invalid"


def test_edits_inside_protected_blocks_are_refused_and_markers_are_stripped():
    skill = set_block(SKILL, APPX_START, APPX_END, "- keep me")
    new, res = apply_edit(skill, Edit(op="delete", target="keep me"))
    assert res.status == "protected" and new == skill
    new, res = apply_edit(skill, Edit(op="append", content=f"- sneaky {SLOW_START} rule"))
    assert res.status == "applied" and new.count(SLOW_START) == 0 and get_block(new, APPX_START, APPX_END) == "- keep me"


def test_sequential_conflict_reports_the_second_edit():
    _, results = apply_edits(SKILL, [Edit(op="replace", target="Give the answer only.", content="Answer."),
                                     Edit(op="delete", target="Give the answer only.")])
    assert [r.status for r in results] == ["applied", "not_applied"]


def test_restore_protected_puts_back_blocks_a_rewrite_dropped():
    original = set_block(SKILL, SLOW_START, SLOW_END, "- lesson")
    assert get_block(restore_protected(original, "# Rewritten\n"), SLOW_START, SLOW_END) == "- lesson"
