"""The target's prompt: the skill in the system message; question plus page in the user one.

The page goes in as the image (``env.input = image``, upstream's way: a base64 data URL
on the user message), as its OCR text lines (``ocr``, for text-only targets such as the
embedded SmolLM2), or both. Templates live in ``prompts/`` next to this module.
"""

from __future__ import annotations

import base64
import mimetypes
from functools import cache
from importlib import resources
from pathlib import Path

INPUT_MODES = ("image", "ocr", "both")


@cache
def template(name: str) -> str:
    return resources.files("skillopt_envs_docvqa").joinpath("prompts", name).read_text(encoding="utf-8").strip()


def system_prompt(skill: str) -> str:
    """The rollout system prompt; with an empty skill there is no skill section."""
    base = template("rollout_system.md")
    return f"{base}\n\n## Skill\n{skill.strip()}" if skill.strip() else base


def clip_ocr(text: str, max_chars: int) -> str:
    """Whole lines up to ``max_chars`` (the first line clipped if it alone is longer)."""
    if len(text) <= max_chars:
        return text
    kept, used = [], 0
    for line in text.splitlines():
        if kept and used + len(line) + 1 > max_chars:
            break
        kept.append(line[:max_chars])
        used += len(line) + 1
    return "\n".join(kept) + "\n[... rest of the page cut ...]"


def page_section(mode: str, ocr: str | None, max_ocr_chars: int) -> str:
    parts = []
    if mode in ("image", "both"):
        parts.append(template("page_image.md"))
    if mode in ("ocr", "both"):
        parts.append(template("page_ocr.md").format(ocr=clip_ocr(ocr or "", max_ocr_chars)))
    return "\n\n".join(parts)


def user_prompt(question: str, *, mode: str, ocr: str | None, max_ocr_chars: int) -> str:
    return template("rollout_user.md").format(page=page_section(mode, ocr, max_ocr_chars), question=" ".join(question.split()))


def refine_prompt() -> str:
    return template("refine_user.md")


def image_data_url(path: Path | str) -> str:
    """The image file as a ``data:`` URL, the form every vision provider accepts."""
    path = Path(path)
    mime = mimetypes.guess_type(path.name)[0] or "image/png"
    return f"data:{mime};base64,{base64.b64encode(Path(path).read_bytes()).decode('ascii')}"
