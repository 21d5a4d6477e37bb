"""The ``section_present`` and ``section_contains`` checks: numbered, annotated and
non-English headings, and what must not count as a section."""

import pytest

from skillopt_sleep.mine.tasks import Check
from skillopt_sleep.replay.judging import run_check, score_checks, validate_checks
from skillopt_sleep.replay.sections import headings, section_contains, section_present

REPORT = """\
# 1. Summary (draft)

The migration adds `orders.discount_cents`.

## 2.3) Risks — rollback plan

Risk analysis: none found.

**Next steps:**
- run `uv run alembic upgrade head`

Tests
-----
All green.

```markdown
## Changelog
```
"""


@pytest.mark.parametrize(
    "name, present",
    [
        ("Summary", True),  # "1." numbering and "(draft)" annotation set aside
        ("summary", True),
        ("Risks", True),  # "2.3)" numbering and "— rollback plan" annotation
        ("Next steps", True),  # a bold line
        ("Tests", True),  # a setext heading
        ("Risk analysis", True),  # a short label line
        ("Rollback plan", False),  # an annotation is not the section's name
        ("Changelog", False),  # inside a fenced code block
        ("migration", False),  # body text
        ("Risks — rollback plan", True),  # the whole title, written out, is the same section
    ],
)
def test_section_present_is_strict_about_which_section(name, present):
    assert section_present(REPORT, name) is present


@pytest.mark.parametrize(
    "name, found",
    [
        ("rollback", True),  # anywhere in a heading's text: subtitles count
        ("SUMMARY", True),
        ("draft", True),
        ("discount_cents", False),  # body text never counts
        ("Risk analysis", False),  # label lines are not headings for section_contains
        ("Changelog", False),  # code block
    ],
)
def test_section_contains_looks_only_at_headings(name, found):
    assert section_contains(REPORT, name) is found


def test_non_english_headings_match_after_unicode_folding():
    german = "## Schritt 2: ZUSAMMENFASSUNG (kurz)\n\nText.\n"
    french = "### III. Résumé — version courte\n"
    chinese = "## 第一章 总结（草稿）\n内容\n"
    fullwidth = "## 总结：\n"
    assert section_present(german, "Zusammenfassung")
    assert section_present(french, "résumé") and section_present(french, "RÉSUMÉ")
    assert not section_present(french, "resume"), "accents are letters, not decoration"
    assert section_present(chinese, "总结"), "CJK numbering and full-width brackets are set aside"
    assert section_present(fullwidth, "总结"), "a full-width colon is NFKC-normalised"
    assert section_contains("## Ünïcode Straße\n", "straße")
    assert section_contains("## STRASSE\n", "straße"), "case folding: ß folds to ss"


def test_a_longer_heading_is_not_the_section():
    assert not section_present("## Summary of risks\n", "Summary")
    assert section_contains("## Summary of risks\n", "Summary")


def test_headings_ignore_thematic_breaks_and_bullets():
    text = "Intro paragraph.\n\n---\n\n- item: value\n* bold: no\n"
    assert headings(text) == []


def test_checks_run_through_the_judge_and_validation():
    checks = (Check(op="section_present", value="Summary"), Check(op="section_contains", value="rollback"))
    assert score_checks(checks, REPORT).hard == 1.0
    missing = score_checks(checks, "Summary of the change: it works.\n")
    assert missing.hard == 0.0 and "must have a `Summary` section" in missing.feedback
    ok, why = run_check(Check(op="section_contains", value="Risks"), "no headings at all")
    assert not ok and "heading" in why
    good, problems = validate_checks([{"op": "section_present", "value": "Summary"}, {"op": "section_contains", "value": "  "}])
    assert [c.op for c in good] == ["section_present"] and problems == ["section_contains needs a value"]
