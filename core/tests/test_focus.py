"""What an analyst is shown of a long task prompt: the question and the passages that explain
the verdict, not the first and last passages of the context."""

from __future__ import annotations

from skillopt.policies.focus import focus
from skillopt.policies.render import render_trajectory
from skillopt.records import Rollout, Score, Task, Turn

FILLER = ("Historians of the region have written at length about its trade in salt and timber. "
          "Visitors often remark on the narrow lanes behind the harbour. A guide describes the market square.")


def retrieval_prompt() -> str:
    passages = [f"{i}. Archive {i}: {FILLER}" for i in range(1, 21)]
    passages[9] = "10. Almanac: Fenwin Tisvendor drew the first chart of the estuary at Seldormoford in 1732."
    passages[14] = "15. Newspaper: Fenwin Tisvendor visited Seldormoford again in 1760."
    return ("Snippets:\n" + "\n".join(passages)
            + "\n\nClue: In this year Fenwin Tisvendor drew the first chart of the estuary at Seldormoford\n"
            "End with the line: Answer: <answer>")


def rollout(prediction: str, hard: float) -> Rollout:
    return Rollout(task_id="t1", task_type="year", prediction=prediction, score=Score(hard=hard, soft=hard),
                   turns=(Turn(role="system", content="skill"), Turn(role="user", content=retrieval_prompt()),
                          Turn(role="assistant", content=f"Answer: {prediction}")))


def test_a_failed_trajectory_shows_the_gold_passage_and_the_one_that_misled_the_target():
    task = Task(id="t1", gold="1732", task_type="year")
    text = render_trajectory(1, rollout("1760", 0.0), task, 3000)
    assert "drew the first chart of the estuary at Seldormoford in 1732" in text  # the gold passage, mid-context
    assert "visited Seldormoford again in 1760" in text  # the distractor the target picked
    assert "Clue: In this year Fenwin Tisvendor" in text and "End with the line" in text  # the whole question
    assert "Archive 3:" not in text and "Archive 20:" not in text  # neither head nor tail filler
    assert "lines omitted" in text
    assert len(text) < len(retrieval_prompt()) / 3


def test_the_question_words_find_the_passage_when_no_answer_string_matches():
    text = focus(retrieval_prompt(), ["no such answer", "seventeen thirty-two"], 1500)
    assert text is not None and "in 1732" in text and "again in 1760" in text


def test_short_answers_match_only_whole_words():
    prompt = "Intro\n" + "\n".join(f"row: value 1{i}5 and more filler text here" for i in range(40)) + "\n\nQ: which?"
    assert focus(prompt, ["5"], 1300) is None  # '5' inside '105' is no evidence; caller falls back to clip
    assert "row: value 155" in focus(prompt, ["155"], 1300)


def test_text_that_fits_is_unchanged_and_unmatched_or_cramped_text_falls_back_to_head_and_tail():
    assert focus("short prompt", ["x"], 100) == "short prompt"
    unrelated = "Context:\n" + "\n".join(f"{i}. {FILLER}" for i in range(30)) + "\n\nQuestion: what colour is the door?"
    assert focus(unrelated, ["green"], 1500) is None  # nothing matches: the caller keeps head and tail
    task = Task(id="t1", gold="1732", task_type="year")
    small = render_trajectory(1, rollout("1760", 0.0), task, 800)  # a small preset's 400 characters of room
    assert "characters omitted" in small and "lines omitted" not in small


def test_a_long_matching_passage_keeps_only_its_matching_sentences():
    long_line = "7. Gazette: " + " ".join(["An unrelated sentence about the weather."] * 20) + " Mira Osk won the prize in 1901."
    prompt = "Context:\n" + "\n".join([f"{i}. {FILLER}" for i in range(6)] + [long_line]) + "\n\nQuestion: who won the prize in 1901?"
    text = focus(prompt, ["Mira Osk"], 1200)
    assert text is not None and "7. Gazette: Mira Osk won the prize in 1901." in text
    assert "weather" not in text
