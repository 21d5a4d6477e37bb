"""Reading the developer's replies, table-driven: negation, politeness, declines and
late corrections (the phrases the issue measured are marked)."""

import pytest

from skillopt.records import Session, Turn
from skillopt_sleep.mine.corrections import find_correction
from skillopt_sleep.mine.digest import digest
from skillopt_sleep.mine.feedback import polarity, reply_kind


@pytest.mark.parametrize(
    "text, score",
    [
        ("that's not incorrect", 1),  # issue: read as negative
        ("no worries, thanks", 1),  # issue: read as negative
        ("no, leave it", 0),  # issue: read as negative
        ("no worries", 0),
        ("no problem, I'll do the rest", 0),
        ("no thanks", 0),
        ("nah, that's fine", 0),
        ("not bad at all", 1),
        ("isn't broken anymore, great", 1),
        ("that is incorrect", -1),
        ("not correct at all", -1),
        ("thanks, that's correct", 1),
        ("thanks but that's wrong", -1),
        ("no, that's wrong ... ok now it works, thanks", 1),
        ("it's still not working", -1),
        ("that didn't fix it", -1),
        ("that's not what I asked for", -1),
        ("no, use the other one", -1),
        ("I have no, like, idea how this works", 0),
        ("lgtm", 1),
        ("perfect \u2014 ship it", 1),
        ("that\u2019s not incorrect", 1),  # typographic apostrophe
    ],
)
def test_polarity(text, score):
    assert polarity(text) == score


@pytest.mark.parametrize(
    "text, kind",
    [
        ("actually, put it under the version heading", "adjustment"),  # issue: read as a new intent
        ("wait, the entry goes in CHANGELOG.md, not the README", "adjustment"),
        ("make it a warning instead of an error", "adjustment"),
        ("also add a downgrade", "adjustment"),
        ("move it to the tests/unit folder please", "adjustment"),
        ("no, leave it", "decline"),
        ("no worries, thanks", "praise"),
        ("that's not incorrect", "praise"),
        ("use `uv run pytest` instead of `python -m pytest`", "correction"),
        ("now write a migration that adds the coupons table", "new_request"),
        ("can you also look at why the nightly export job is slow", "new_request"),
        ("ok", "aside"),
    ],
)
def test_what_a_reply_does(text, kind):
    assert reply_kind(text, is_correction=find_correction(text) is not None) == kind


def test_a_late_correction_stays_with_its_request():
    """The changelog request and its late correction are one intent, corrected, with the
    developer's adjustment as its lesson (not a second intent "put it under ...")."""
    session = Session(
        id="claude-code:s",
        source="claude-code",
        project="/p",
        turns=(
            Turn(role="user", content="add a changelog entry for the partial refund fix"),
            Turn(role="assistant", kind="tool_call", name="Edit", content="CHANGELOG.md"),
            Turn(role="assistant", content="Added it at the top of CHANGELOG.md."),
            Turn(role="user", content="actually, put it under the version heading"),
            Turn(role="assistant", kind="tool_call", name="Edit", content="CHANGELOG.md"),
            Turn(role="user", content="no worries, thanks"),
        ),
    )
    (intent,) = digest(session)
    assert intent.text == "add a changelog entry for the partial refund fix"
    assert intent.outcome == "corrected"
    assert [(lesson.kind, lesson.text) for lesson in intent.lessons] == [("adjustment", "Put it under the version heading.")]
