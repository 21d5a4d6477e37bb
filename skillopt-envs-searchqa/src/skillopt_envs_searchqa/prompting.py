"""The target's prompt: the skill in the system message, snippets and clue in the user one.

Snippets are listed one per line (``1. title: text``) instead of upstream's run-on
``[DOC] [TLE] … [PAR] …`` string, and the context is cut at snippet boundaries, so the
first snippet keeps its number (upstream's cut drops the first ``[DOC]`` marker). Both
matter most to small models, whose reading degrades quickly with long, noisy input.

With ``env.demo`` (on except in the paper preset) one worked exchange, an invented clue
answered with a bare ``Answer: …`` line, comes before the item. SmolLM2-135M otherwise
answers in sentences nearly every time, whatever the instructions say.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources

_DOC = re.compile(r"\[DOC\]")
_TITLE = re.compile(r"^\s*\[TLE\](.*?)(?:\[PAR\](.*))?$", re.DOTALL)
_THIS = re.compile(r"\b(?:this|these)\s+([\w'-]+)(?:\s+([\w'-]+))?", re.IGNORECASE)


def split_snippets(context: str) -> list[tuple[str, str]]:
    """``(title, text)`` per ``[DOC]`` block; text without markers becomes one untitled snippet."""
    blocks = [b.strip() for b in _DOC.split(context or "") if b.strip()]
    out = []
    for block in blocks:
        m = _TITLE.match(block)
        if m:
            title, text = m.group(1).strip(), (m.group(2) or "").strip()
            if not text:
                title, text = "", title
        else:
            title, text = "", block
        out.append((" ".join(title.split()), " ".join(text.split())))
    return out


def render_snippets(context: str, max_chars: int) -> str:
    """Numbered snippets, whole ones only, within ``max_chars`` (at least the first, clipped)."""
    lines: list[str] = []
    used = 0
    for i, (title, text) in enumerate(split_snippets(context), 1):
        line = f"{i}. {title}: {text}" if title else f"{i}. {text}"
        if lines and used + len(line) + 1 > max_chars:
            break
        if not lines and len(line) > max_chars:
            line = line[: max(max_chars - 3, 1)].rstrip() + "..."
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines) if lines else "(no snippets)"


def clue_subject(question: str) -> str:
    """What the clue asks for (``this engineer`` -> ``engineer``), or ``""`` if it does not say."""
    m = _THIS.search(question or "")
    if not m:
        return ""
    first, second = m.group(1), m.group(2)
    # "this engineer completed": the noun comes first; "this Dutch painter", "this 1990s
    # sitcom": a proper adjective or a number comes first and the noun follows.
    if second and (first[0].isupper() or first[0].isdigit()):
        return f"{first} {second}"
    return first


@cache
def _template(name: str) -> str:
    return resources.files("skillopt_envs_searchqa").joinpath("prompts", name).read_text(encoding="utf-8")


def system_prompt(skill: str) -> str:
    """The rollout system prompt; with an empty skill there is no skill section at all."""
    base = _template("rollout_system.md").strip()
    if not skill.strip():
        return base
    return f"{base}\n\n## Skill\n{skill.strip()}"


def demo_exchange(max_context_chars: int) -> tuple[str, str]:
    """The worked example (user message, assistant reply) shown before the item."""
    import json

    example = json.loads(_template("rollout_example.json"))
    return user_prompt(example["question"], example["context"], max_context_chars), example["reply"]


def user_prompt(question: str, context: str, max_context_chars: int) -> str:
    subject = clue_subject(question)
    ask = f"Who or what is this {subject}?" if subject else "What is the answer to the clue?"
    return _template("rollout_user.md").strip().format(
        snippets=render_snippets(context, max_context_chars),
        question=" ".join(str(question).split()),
        ask=ask,
    )
