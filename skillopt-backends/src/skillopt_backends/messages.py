"""Request records to provider message formats (OpenAI chat, Anthropic messages).

Images arrive as ``data:`` URLs, ``http(s)`` URLs or file paths; files are inlined as
base64 data URLs here, so a missing file is a clear bad-request error naming the path
rather than a provider 400 about an unreadable URL.
"""

from __future__ import annotations

import base64
import json
import mimetypes
from pathlib import Path
from typing import Any

from skillopt.api import BadRequestError, CompletionRequest


def image_url(ref: str, *, backend: str) -> str:
    """``ref`` as a URL a provider accepts (data: or http(s):)."""
    if ref.startswith(("data:", "http://", "https://")):
        return ref
    path = Path(ref[7:] if ref.startswith("file://") else ref).expanduser()
    if not path.is_file():
        raise BadRequestError(f"{backend}: image file not found: {path}", backend=backend)
    mime = mimetypes.guess_type(path.name)[0] or "image/png"
    return f"data:{mime};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def _chat_role(role: str) -> str:
    return role if role in ("system", "user", "assistant") else "user"


def openai_messages(request: CompletionRequest, *, backend: str, extra_system: str = "") -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for m in request.messages:
        if m.images:
            parts: list[dict[str, Any]] = [{"type": "text", "text": m.content}] if m.content else []
            detail = {"detail": m.image_detail} if m.image_detail and m.image_detail != "auto" else {}
            parts += [{"type": "image_url", "image_url": {"url": image_url(i, backend=backend), **detail}} for i in m.images]
            out.append({"role": _chat_role(m.role), "content": parts})
        else:
            out.append({"role": _chat_role(m.role), "content": m.content})
    if extra_system:
        out.insert(0, {"role": "system", "content": extra_system})
    return out


def _anthropic_image(ref: str, *, backend: str) -> dict[str, Any]:
    url = image_url(ref, backend=backend)
    if url.startswith("data:"):
        header, _, data = url.partition(",")
        media = header[5:].split(";")[0] or "image/png"
        return {"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}
    return {"type": "image", "source": {"type": "url", "url": url}}


def anthropic_messages(request: CompletionRequest, *, backend: str) -> tuple[str, list[dict[str, Any]]]:
    """(system text, messages): system turns move to the top-level ``system`` field and
    consecutive turns of one role are merged, as the Messages API expects."""
    system: list[str] = []
    out: list[dict[str, Any]] = []
    for m in request.messages:
        if m.role == "system":
            system.append(m.content)
            continue
        role = "assistant" if m.role == "assistant" else "user"
        blocks: list[dict[str, Any]] = [{"type": "text", "text": m.content}] if m.content else []
        blocks += [_anthropic_image(i, backend=backend) for i in m.images]
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    if not out:
        raise BadRequestError(f"{backend}: the request has no user message", backend=backend)
    return "\n\n".join(system), out


def schema_instruction(schema: dict[str, Any]) -> str:
    """A system note for servers without schema-constrained decoding."""
    return "Reply with only one JSON object, no prose and no code fences. It must match this JSON schema:\n" + json.dumps(
        schema, ensure_ascii=False, sort_keys=True
    )
