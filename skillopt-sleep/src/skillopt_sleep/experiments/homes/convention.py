"""What a recurring job of a generated home is made of (the jobs themselves are in
:mod:`.jobs_python` and :mod:`.jobs_more`, assembled by :mod:`.catalog`).

A :class:`Convention` is one recurring job: how the developer asks for it (per
language), what a convention-blind agent does (``generic``), what an agent that
follows only the project's memory file does (``base``, when the memory states a
related convention), and what the developer keeps (``right``). ``family`` says how the
difference shows in a session: ``tool`` (another tool; the generic attempt fails),
``flag`` (the same tool with an option the developer wants), ``api`` (code written
with another library or call), ``place`` (a file written under another directory),
``late`` (an edit the developer corrects after the agent said it was done).

Texts take placeholders filled per project and per session: ``{run}`` (the Python
runner: ``uv run`` or ``poetry run``), ``{pm}`` (the Node package manager), ``{pkg}``
(the project's package), ``{obj}`` / ``{mod}`` / ``{Mod}`` (what one request is about:
in words, as an identifier, as a class name), ``{ver}`` (a release number), ``{dep}``
(a dependency). ``cue`` is what a document must say for the stand-in coding model to
do the job the developer's way (:mod:`.follower`).
"""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class Act:
    """One attempt at a job: a shell command (``text``), or an edit writing ``text`` to ``path``."""

    kind: str  # shell | edit
    text: str
    path: str = ""
    exit_code: int = 0
    output: str = ""


@attrs.frozen(kw_only=True)
class Convention:
    name: str
    stacks: tuple[str, ...]
    family: str  # tool | flag | api | place | late
    requests: dict[str, tuple[str, ...]]
    generic: Act
    right: Act
    #: what the developer says to prefer and to avoid (``late``: where it should go, and where it went, in words)
    prefer: str
    avoid: str
    #: a regex: a document matching it makes the stand-in model do the job the developer's way
    cue: str
    #: the memory file's line stating a related, coarser convention ('' = the memory says nothing about this job)
    memory_line: str = ""
    #: what an agent following only that memory line does
    base: Act | None = None


def sh(text: str, exit_code: int = 0, output: str = "") -> Act:
    return Act(kind="shell", text=text, exit_code=exit_code, output=output)


def ed(path: str, text: str) -> Act:
    return Act(kind="edit", path=path, text=text)
