"""The multiple-choice item: normalising upstream rows, validating, shuffling choices.

Upstream rows come in several shapes (question nested under ``mcq`` or not; choices as
a list of dicts, a list of strings or a label->text dict; the correct choice as a dict
or a bare label). Everything is normalised into one frozen :class:`MathItem`, and bad
rows fail with the item id and the source file in the message instead of being
skipped.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any

import attrs

from skillopt.api import ConfigError
from skillopt_envs_math.answers import LABELS


@attrs.frozen(kw_only=True)
class Choice:
    label: str
    text: str


@attrs.frozen(kw_only=True)
class MathItem:
    """One question; ``theorem`` and ``sketch`` are hidden from the target by default."""

    id: str
    question: str
    choices: tuple[Choice, ...]
    correct_label: str
    theorem_types: tuple[str, ...] = ()
    theorem: str = ""
    sketch: str = ""
    paper_link: str = ""
    source: str = ""

    @property
    def task_type(self) -> str:
        return self.theorem_types[0] if self.theorem_types else "unknown"

    @property
    def correct(self) -> Choice:
        return next(c for c in self.choices if c.label == self.correct_label)

    def shuffled(self, seed: int) -> MathItem:
        """The same item with its choices permuted by ``(seed, id)`` and relabelled A, B, ….

        The permutation depends only on the seed and the item id, so a run, its resume
        and a later ``skillopt eval`` with the same seed show the target the same order.
        """
        order = list(self.choices)
        random.Random(shuffle_seed(seed, self.id)).shuffle(order)
        relabelled = tuple(Choice(label=LABELS[i], text=c.text) for i, c in enumerate(order))
        correct = next(LABELS[i] for i, c in enumerate(order) if c.label == self.correct_label)
        return attrs.evolve(self, choices=relabelled, correct_label=correct)


def shuffle_seed(seed: int, item_id: str) -> int:
    """The RNG seed of one item's shuffle (sha256 of ``"<seed>:<id>"``, 64 bits)."""
    return int(hashlib.sha256(f"{seed}:{item_id}".encode()).hexdigest()[:16], 16)


def normalize_label(value: Any) -> str:
    return str(value or "").strip().upper().strip("()[]").rstrip(".):").strip()


def _where(item_id: str, source: str) -> str:
    return f"item {item_id!r}" + (f" in {source}" if source else "")


def _coerce_choices(raw: Any, where: str) -> list[Choice]:
    if isinstance(raw, dict):
        pairs = [(normalize_label(k), v) for k, v in raw.items()]
    elif isinstance(raw, list):
        pairs = []
        for i, entry in enumerate(raw):
            if isinstance(entry, dict):
                label = normalize_label(entry.get("label")) or (LABELS[i] if i < len(LABELS) else "?")
                pairs.append((label, entry.get("text", entry.get("content"))))
            else:
                pairs.append((LABELS[i] if i < len(LABELS) else "?", entry))
    else:
        raise ConfigError(f"{where}: 'choices' must be a list or an object, got {type(raw).__name__}")
    choices = [Choice(label=label, text=str(text).strip()) for label, text in pairs if str(text or "").strip()]
    labels = [c.label for c in choices]
    bad = [label for label in labels if label not in LABELS]
    if bad:
        raise ConfigError(f"{where}: choice labels must be among A-G (got {', '.join(map(repr, bad))})")
    if len(set(labels)) != len(labels):
        raise ConfigError(f"{where}: duplicate choice labels {labels}")
    return sorted(choices, key=lambda c: LABELS.index(c.label))


def _coerce_types(raw: Any) -> tuple[str, ...]:
    if raw is None:
        return ()
    values = raw if isinstance(raw, list | tuple) else [raw]
    return tuple(str(v).strip() for v in values if str(v).strip())


def item_from_row(row: dict[str, Any], *, item_id: str, source: str = "") -> MathItem:
    """A validated item from an upstream or bundled row (``mcq`` nesting allowed)."""
    where = _where(item_id, source)
    if not isinstance(row, dict):
        raise ConfigError(f"{where}: expected a JSON object, got {type(row).__name__}")
    mcq = row.get("mcq") if isinstance(row.get("mcq"), dict) else {}
    question = str(mcq.get("question") or row.get("question") or "").strip()
    if not question:
        raise ConfigError(f"{where}: no 'question' (looked at the row and under 'mcq')")
    raw_choices = mcq.get("choices") or row.get("choices")
    if not raw_choices:
        raise ConfigError(f"{where}: no 'choices'")
    choices = _coerce_choices(raw_choices, where)
    if len(choices) < 2:
        raise ConfigError(f"{where}: needs at least two non-empty choices")
    correct = mcq.get("correct_choice") or row.get("correct_choice")
    if isinstance(correct, dict):
        label, text = normalize_label(correct.get("label")), str(correct.get("text") or "").strip()
    else:
        label, text = normalize_label(correct), ""
    by_label = {c.label: c.text for c in choices}
    if not label and text:
        label = next((lab for lab, body in by_label.items() if body == text), "")
    if label not in by_label:
        raise ConfigError(f"{where}: the correct choice {label or '(none)'!r} is not one of the choices {sorted(by_label)}")
    if text and by_label[label] != text:
        raise ConfigError(f"{where}: correct_choice text disagrees with choice {label}: {text!r} vs {by_label[label]!r}")
    return MathItem(
        id=item_id,
        question=question,
        choices=tuple(choices),
        correct_label=label,
        theorem_types=_coerce_types(row.get("theorem_type")),
        theorem=str(row.get("theorem") or "").strip(),
        sketch=str(row.get("sketch") or "").strip(),
        paper_link=str(row.get("paper_link") or "").strip(),
        source=source,
    )


def item_to_row(item: MathItem) -> dict[str, Any]:
    """The normalised JSON form (what bundled sample files and ``split_dir`` files hold)."""
    return {
        "id": item.id,
        "question": item.question,
        "choices": [{"label": c.label, "text": c.text} for c in item.choices],
        "correct_choice": {"label": item.correct_label, "text": item.correct.text},
        "theorem_type": list(item.theorem_types),
        "theorem": item.theorem,
        "sketch": item.sketch,
        "paper_link": item.paper_link,
    }
