"""The tool loop and oracle mode, driven by scripted fake agents on the bundled sample.

Each fake agent stands in for a target model that follows the text protocol; it reads
its facts only from the tool results in the conversation, never from the gold answer.
"""

import re
import threading
import time

import pytest

from skillopt.api import RolloutContext
from skillopt_envs_officeqa.env import OfficeQAConfig, OfficeQAEnv
from skillopt_envs_officeqa.protocol import parse_reply


def receipts_task():
    """A total-receipts question on a bundled bulletin; the gold comes from the generator's series."""
    from skillopt.api import Task
    from skillopt_envs_officeqa.generator import corpus_series, issues

    total = corpus_series(issues()).value("receipts", "1949-04", "Total")
    question = "According to the June 1949 Treasury Bulletin, what were total budget receipts in April 1949, in millions of dollars?"
    return Task(id="t-receipts", gold=f"{total:,}", task_type="easy", inputs={
        "question": question, "source_files": ["treasury_bulletin_1949_06.txt"],
        "source_docs": ["https://example.invalid/synthetic-treasury-bulletin/1949-06?page=4"]})


def last_user(request):
    return [m.content for m in request.messages if m.role == "user"][-1]


def table_reader(request):
    """Stands in for a competent agent: grep the table title, read the table, answer the Total."""
    question = request.messages[1].content
    file = re.search(r"treasury_bulletin_\d{4}_\d{2}\.txt", question).group(0)
    month = re.search(r"in (\w+) (\d{4}), in millions", question)
    calls = sum(1 for m in request.messages if m.role == "assistant")
    if calls == 0:
        return f'I will find the table.\n<tool>{{"name": "grep", "args": {{"pattern": "budget receipts by source", "path": "{file}"}}}}</tool>'
    if calls == 1:
        line = int(re.search(r"^\s*(\d+): Table", last_user(request), re.M).group(1))
        return f"<tool>read(path='{file}', start={line}, limit=20)</tool>"
    label = month.group(1)[:3]
    row = next(line for line in last_user(request).splitlines() if re.search(rf"\d+: {label}\w*\.? {month.group(2)}", line))
    return f"The Total column gives it.\n<answer>{row.split()[-1]}</answer>"


def test_grep_read_answer_scores_one_and_records_every_turn(scripted_client):
    env = OfficeQAEnv()
    task = receipts_task()
    rollout = env.rollout(task, "Read the table.", scripted_client(table_reader), RolloutContext(seed=1))
    assert rollout.score.hard == 1.0 and rollout.prediction.replace(",", "") == task.gold.replace(",", "")
    kinds = [(t.kind, t.name) for t in rollout.turns]
    assert kinds == [("message", ""), ("message", ""), ("message", ""), ("tool_call", "grep"), ("observation", "grep"),
                     ("message", ""), ("tool_call", "read"), ("observation", "read"), ("message", ""), ("evaluation", "")]
    assert "Table 1.- Budget Receipts by Source" in rollout.turns[4].content
    assert rollout.score.metrics["tool_calls"] == 2.0 and rollout.score.metrics["model_calls"] == 3.0
    assert "## Skill\nRead the table." in rollout.turns[0].content


def test_budget_overrun_ends_cleanly_with_zero_and_says_so(scripted_client):
    env = OfficeQAEnv(OfficeQAConfig(max_tool_turns=3))
    task = env.tasks("val")[0]
    looping = lambda request: '<tool>{"name": "glob", "args": {"pattern": "*.txt"}}</tool>'  # never answers
    rollout = env.rollout(task, "", scripted_client(looping), RolloutContext())
    assert rollout.status == "ok" and rollout.score.hard == 0.0 and rollout.prediction == ""
    assert "tool budget of 3 model turns ran out" in rollout.score.feedback
    assert sum(t.role == "assistant" and t.kind == "message" for t in rollout.turns) == 3
    assert sum(t.kind == "observation" for t in rollout.turns) == 2


def test_bad_calls_become_tool_errors_the_agent_sees(scripted_client):
    env = OfficeQAEnv()
    task = env.tasks("val")[0]
    replies = iter([
        '<tool>{"name": "read", "args": {"path": "../../etc/passwd"}}</tool>',
        "<tool>{not json at all</tool>",
        '<tool>{"name": "read", "args": {"path": "/etc/passwd"}}</tool>',
        "I think I know.",
        f"<answer>{task.gold}</answer>",
    ])  # fmt: skip
    seen = []

    def agent(request):
        seen.append(last_user(request))
        return next(replies)

    rollout = env.rollout(task, "", scripted_client(agent), RolloutContext())
    assert rollout.score.hard == 1.0
    observations = [t.content for t in rollout.turns if t.kind == "observation"]
    assert "not a document of this question" in observations[0]
    assert "not valid JSON" in observations[1]
    assert "absolute paths are not allowed" in observations[2]
    assert "ERROR: absolute paths" in seen[3] and "neither a tool call nor a final answer" in seen[4]
    assert rollout.score.metrics["tool_errors"] == 3.0


def test_deadline_and_cancel_stop_the_loop(scripted_client):
    env = OfficeQAEnv()
    task = env.tasks("val")[0]

    def slow(request):
        time.sleep(0.3)
        return '<tool>{"name": "glob", "args": {"pattern": "*"}}</tool>'

    rollout = env.rollout(task, "", scripted_client(slow), RolloutContext(timeout_s=1.2))
    assert "time limit" in rollout.score.feedback and rollout.score.metrics["model_calls"] <= 2
    cancel = threading.Event()
    cancel.set()
    rollout = env.rollout(task, "", scripted_client(slow), RolloutContext(cancel=cancel))
    assert rollout.score.metrics["model_calls"] == 0.0 and "cancelled" in rollout.score.feedback


def test_oracle_mode_is_one_call_over_the_gold_page(scripted_client):
    env = OfficeQAEnv(OfficeQAConfig(mode="oracle", oracle_total_chars=5000))
    task = receipts_task()
    prompts = []

    def reader(request):
        prompts.append(request.messages[1].content)
        month = re.search(r"in (\w+) (\d{4}), in millions", request.messages[1].content)
        row = next(line for line in request.messages[1].content.splitlines() if line.startswith(f"| {month.group(1)[:3]}") and month.group(2) in line)
        return f"<answer>{row.strip('| ').split(' | ')[-1]}</answer>"

    rollout = env.rollout(task, "", scripted_client(reader), RolloutContext())
    assert rollout.score.hard == 1.0 and len(prompts) == 1
    assert "Budget Receipts by Source" in prompts[0] and "| Month |" in prompts[0] and len(prompts[0]) < 6000
    no_tag = env.rollout(task, "", scripted_client(lambda r: task.gold), RolloutContext())
    assert no_tag.score.hard == 0.0 and "no <answer></answer> tag" in no_tag.score.feedback


@pytest.mark.parametrize("reply, name, args", [
    ('<tool>{"name": "grep", "args": {"pattern": "x", "path": "f.txt"}}</tool>', "grep", {"pattern": "x", "path": "f.txt"}),
    ('<TOOL_CALL>\n```json\n{"tool": "Read", "arguments": "{\\"path\\": \\"f.txt\\"}"}\n```\n</tool_call>', "read", {"path": "f.txt"}),
    ("<tool>{'name': 'glob', 'pattern': '*.txt'}</tool>", "glob", {"pattern": "*.txt"}),
    ('<tool>grep("Customs", "f.txt")</tool>', "grep", {"pattern": "Customs", "path": "f.txt"}),
    ('<tool>{"name": "glob", "args": "*.txt"}', "glob", {"pattern": "*.txt"}),
])  # fmt: skip
def test_protocol_accepts_small_variations(reply, name, args):
    parsed = parse_reply(reply)
    assert parsed.answer is None and [(c.name, c.args, c.error) for c in parsed.calls] == [(name, args, "")]


def test_protocol_answer_before_a_call_ends_and_after_a_call_waits():
    assert parse_reply("<answer> 4,604 </answer><tool>{}</tool>").answer == "4,604"
    later = parse_reply('<tool>{"name": "glob", "args": {"pattern": "*"}}</tool> <answer>7</answer>')
    assert later.answer is None and len(later.calls) == 1
    assert parse_reply("cut off <answer>12.5").answer == "12.5"
