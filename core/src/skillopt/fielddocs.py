"""Field documentation read from ``#:`` comments, the Sphinx convention.

A record documents a field with a ``#:`` comment on the line(s) above it. One reader
serves ``docs/api.md``, ``skillopt config keys`` (plugin ``Config`` classes) and the
typo hints, so a field is documented once, next to its definition.
"""

from __future__ import annotations

import inspect
import re
from functools import lru_cache

_FIELD = re.compile(r"^\s+([A-Za-z_][A-Za-z0-9_]*)\s*(?::[^=]*)?(?:=.*)?$")
_DOC = re.compile(r"^\s+#:\s?(.*)$")


@lru_cache(maxsize=256)
def field_docs(cls: type) -> dict[str, str]:
    """``{field name: its #: comment}`` for ``cls`` and its bases (own comments win)."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if klass is object:
            continue
        try:
            lines = inspect.getsource(klass).splitlines()
        except (OSError, TypeError):
            continue
        pending: list[str] = []
        for line in lines[1:]:
            doc = _DOC.match(line)
            if doc:
                pending.append(doc.group(1).strip())
                continue
            field = _FIELD.match(line)
            if field and pending and not line.lstrip().startswith(("def ", "class ", "@")):
                docs[field.group(1)] = " ".join(pending)
            pending = []
    return docs
