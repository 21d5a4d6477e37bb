"""Reading commands out of real-world model replies."""

import pytest

from skillopt_envs_alfworld.actions import clean, parse_action

ADMISSIBLE = [
    "go to cabinet 1", "go to cabinet 2", "go to countertop 1", "go to fridge 1",
    "take apple 1 from countertop 1", "take knife 2 from countertop 1",
    "examine countertop 1", "inventory", "look",
]  # fmt: skip
HOLDING = ["go to fridge 1", "put apple 1 in/on countertop 1", "examine apple 1", "inventory", "look"]


@pytest.mark.parametrize(
    ("reply", "command", "source"),
    [
        ("<think>The fridge may hold it.</think>\n<action>go to fridge 1</action>", "go to fridge 1", "tag"),
        ("<ACTION> Go To Fridge 1. </ACTION>", "go to fridge 1", "tag"),
        ("<action>go to cabinet 1</action> then <action>go to fridge 1</action>", "go to fridge 1", "tag"),
        ("<action>go to fridge 1", "go to fridge 1", "tag"),  # reply cut off at max_tokens
        ("Action: go to fridge 1", "go to fridge 1", "prefixed"),
        ("I will check the fridge.\nAction: Go to fridge 1.", "go to fridge 1", "prefixed"),
        ("**Action:** `take apple 1 from countertop 1`", "take apple 1 from countertop 1", "prefixed"),
        ("go to fridge 1", "go to fridge 1", "line"),
        ("GO TO FRIDGE 1!", "go to fridge 1", "line"),
        ("> look", "look", "line"),
        ("\"inventory\"", "inventory", "line"),
        ("Let me think: the apple is on the countertop.\ntake the apple 1 from the countertop 1.", "take apple 1 from countertop 1", "line"),
    ],
)
def test_accepted_forms(reply, command, source):
    parsed = parse_action(reply, ADMISSIBLE)
    assert (parsed.command, parsed.source, parsed.how) == (command, source, "exact")
    assert not parsed.mapped


@pytest.mark.parametrize("reply", ["put apple 1 in countertop 1", "put apple 1 on countertop 1", "<action>put the apple 1 onto the countertop 1</action>"])
def test_put_in_or_on_maps_to_alfworlds_in_on(reply):
    assert parse_action(reply, HOLDING).command == "put apple 1 in/on countertop 1"


@pytest.mark.parametrize(
    ("reply", "command", "how"),
    [
        ("<action>go to fridge</action>", "go to fridge 1", "number-filled"),
        ("take knife from countertop", "take knife 2 from countertop 1", "number-filled"),
        ("<action>go to frige 1</action>", "go to fridge 1", "fuzzy"),
        ("Action: tak apple 1 from countertop 1", "take apple 1 from countertop 1", "fuzzy"),
    ],
)
def test_unambiguous_near_misses_are_mapped_and_marked(reply, command, how):
    parsed = parse_action(reply, ADMISSIBLE)
    assert (parsed.command, parsed.how) == (command, how) and parsed.mapped


@pytest.mark.parametrize(
    "reply",
    [
        "<action>go to cabinet</action>",  # two cabinets: ambiguous
        "<action>go to cabinet 3</action>",  # no such cabinet; a typo never changes a number
        "<action>go to cabinet 11</action>",
        "<action>open fridge 1</action>",  # a real command, but not admissible here
        "<action></action>",
        "",
        "I am not sure what to do next.",
        "<action>fly to the moon</action>",
    ],
)
def test_ambiguous_or_unreadable_replies_give_no_command(reply):
    parsed = parse_action(reply, ADMISSIBLE)
    assert parsed.command is None and parsed.how == "none"


def test_a_tag_wins_over_other_lines():
    parsed = parse_action("look\n<action>inventory</action>\ngo to fridge 1", ADMISSIBLE)
    assert parsed.command == "inventory"


def test_unreadable_reply_records_what_was_read():
    parsed = parse_action("<action>Open the Fridge!</action>", ADMISSIBLE)
    assert parsed.command is None and parsed.text == "open fridge" and parsed.source == "tag"


def test_clean_normalises_without_inventing():
    assert clean("  **Go   to the Fridge 1.**  ") == "go to fridge 1"
    assert clean("1. look") == "look"
    assert clean("put egg 2 into microwave 1") == "put egg 2 in/on microwave 1"
    assert clean("dance") == "dance"


def test_a_recited_list_of_commands_picks_none():
    reply = "## Action\ngo to cabinet 1\ngo to cabinet 2\ngo to fridge 1\ngo to cabinet"
    parsed = parse_action(reply, ADMISSIBLE)
    assert parsed.command is None and "3 different commands" in parsed.text


def test_prose_is_not_fuzzy_matched():
    assert parse_action("First I look around the kitchen.\nThen I go to the frige.", ADMISSIBLE).command is None
    assert parse_action("go to frige 1", ADMISSIBLE).command == "go to fridge 1"  # a one-line reply may be a typo
