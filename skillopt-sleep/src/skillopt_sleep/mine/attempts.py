"""What the agent did for one intent, and what changed between the attempt the
developer rejected and the one they kept.

Words are unreliable evidence (four languages, prose, politeness); what was done is
not: the command that failed and the one that passed, the file written in one
directory and then in another, the import swapped in a rewrite. A :class:`Step` is one
shell command or one edit (exploration — ``ls``, ``cat``, ``rg``, ``git status`` — is
not a step). :func:`differences` pairs each kept step with the rejected step it
replaced (same kind of job, same program, or same file) and says what the kept one
has instead:

- ``command``: another tool (``uv run pytest`` for ``python -m pytest``);
- ``flag``: the same tool with more options (``uv run pytest -n auto``; ``git tag -a vX.Y.Z``);
- ``api``: code that imports or calls something else (``httpx`` for ``requests``);
- ``place``: the same file written under another directory (``tests/unit/``);
- ``heading``: the same file with its text placed under a heading (``## [Unreleased]``).

:func:`vocabulary` is the set of names those steps use, so a reply that names them
without backticks ("we never use requests, always httpx") can still be read.
"""

from __future__ import annotations

import posixpath
import re

import attrs

from skillopt.api import Session
from skillopt_sleep.harvest.fields import is_edit_tool
from skillopt_sleep.harvest.outcome import parse_tag
from skillopt_sleep.mine import commands as cmd

#: programs that look around instead of doing the job
EXPLORE = frozenset(
    "ls cat head tail less more rg grep egrep find fd pwd echo tree wc which env printenv stat file sed awk jq cd open "
    "code vim nano type dir".split()
)
EXPLORE_GIT = frozenset("status diff log show branch blame remote rev-parse fetch".split())
_IMPORT = re.compile(
    r"""^\s*(?:from\s+([\w.]+)\s+import\s+([\w., {}()*]+)|import\s+([\w., ]+)$|import\s+(?:[\w{}\s,*]+\s+from\s+)?["']([^"']+)["']|
    use\s+([\w:]+)|\#include\s*[<"]([^>"]+)[>"])""",
    re.MULTILINE | re.VERBOSE,
)
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:(?:\.|::)[A-Za-z_][A-Za-z0-9_]*)*(?:\(\))?")
_HEADING = re.compile(r"^\s*#{1,6}\s+\S")
_VALUE_FLAGS = frozenset({"-m", "--message", "-f", "--file", "-o", "--output"})


@attrs.frozen(kw_only=True)
class Step:
    index: int
    kind: str  # shell | edit
    text: str  # the command, or the text the edit wrote
    path: str = ""
    category: str = ""
    program: str = ""
    segment: str = ""
    ok: bool | None = None


@attrs.frozen(kw_only=True)
class Difference:
    kind: str  # command | flag | api | place | heading
    prefer: str
    avoid: str = ""
    #: the job's kind: a command category (``test``), else its program; for an edit, the file kind (``*.py``)
    category: str = ""
    #: the file an edit changed
    where: str = ""
    evidence: str = ""


def _explores(segment: str) -> bool:
    words = segment.split()
    if not words:
        return True
    if words[0] == "git" and (len(words) < 2 or words[1] in EXPLORE_GIT):
        return True
    return words[0] in EXPLORE


def steps(session: Session, start: int, end: int) -> list[Step]:
    """The shell commands and edits between ``start`` and ``end``, each with its outcome."""
    out: list[Step] = []
    turns = session.turns
    for i in range(start + 1, end):
        turn = turns[i]
        if turn.kind != "tool_call" or not turn.content:
            continue
        if is_edit_tool(turn.name):
            path, _, text = turn.content.partition("\n")
            out.append(Step(index=i, kind="edit", text=text, path=path.strip(), ok=True))
            continue
        segs = [s for s in cmd.segments(turn.content) if not _explores(s)]
        if not segs:
            continue
        cats = [(cmd.category_of(s), s) for s in segs]
        category, seg = next((pair for pair in reversed(cats) if pair[0]), cats[-1])
        outcome = next((parse_tag(t.content) for t in turns[i + 1 : i + 4] if t.kind == "tool_result" and t.name == turn.name), None)
        sig = cmd.signature(seg)
        out.append(
            Step(index=i, kind="shell", text=turn.content, category=category, program=cmd.core(sig) or sig.split(" ")[0] if sig else "",
                 segment=seg, ok=outcome.ok if outcome else None)
        )  # fmt: skip
    return out


def _imports(text: str) -> list[str]:
    out = []
    for m in _IMPORT.finditer(text or ""):
        if m.group(1):
            out.append(m.group(1))
            out += [n.strip(" {}()") for n in m.group(2).split(",") if n.strip(" {}()")]
        elif m.group(3):
            out += [n.strip() for n in m.group(3).split(",") if n.strip()]
        else:
            out.append(next(g for g in m.groups()[3:] if g))
    return [n.split(" as ")[0].strip() for n in out if n]


def names(text: str) -> list[str]:
    """Names a piece of code uses: its imports first, then dotted calls and identifiers."""
    imported = _imports(text)
    rest = [n for n in _NAME.findall(text or "") if "." in n or "::" in n or n.endswith("()")]
    return list(dict.fromkeys(imported + rest))


def vocabulary(items: list[Step]) -> tuple[str, ...]:
    """The named things the steps use: programs and their cores, imports, paths."""
    vocab: list[str] = []
    for s in items:
        if s.kind == "shell":
            sig = cmd.signature(s.segment)
            vocab += [sig, cmd.core(sig), *sig.split()[:1]]
        else:
            vocab += [s.path, posixpath.dirname(s.path) + "/" if "/" in s.path else "", *names(s.text)]
    return tuple(v for v in dict.fromkeys(vocab) if v and len(v) >= 3 and not v.isdigit())


def file_kind(path: str) -> str:
    """``tests/unit/test_rates.py`` → ``test_*.py``; ``src/Cart.tsx`` → ``*.tsx``."""
    base = posixpath.basename(path)
    stem, dot, ext = base.rpartition(".")
    if not dot:
        return base
    for prefix in ("test_", "test-"):
        if stem.startswith(prefix):
            return f"{prefix}*.{ext}"
    if stem.endswith((".test", ".spec", "_test")):
        return f"*{stem[stem.rfind('.') if '.' in stem else stem.rfind('_'):]}.{ext}"
    return f"*.{ext}"


def _same_job(a: Step, b: Step) -> bool:
    """Two steps doing the same job: edits (paired by file later), commands of one
    category, else of one program (``docker-compose`` and ``docker compose`` too)."""
    if a.kind != b.kind:
        return False
    if a.kind == "edit":
        return True
    if a.category and b.category:
        return a.category == b.category
    first_a, first_b = (a.program or "-").split()[0], (b.program or "-").split()[0]
    return first_a == first_b or first_a.split("-")[0] == first_b.split("-")[0] != ""


def _flags(rejected: str, kept: str) -> tuple[str, str] | None:
    """(the kept invocation up to its last new option, the rejected invocation) when the
    kept command is the rejected one's tool with options added (``git tag -a v1.2.0``)."""
    old, new = rejected.split(), kept.split()
    old_shapes = {re.sub(r"\d+", "0", t).lstrip("v") for t in old}
    last, seen_value_flag = -1, False
    for n, tok in enumerate(new):
        if seen_value_flag or tok.startswith(('"', "'")):
            break
        if tok in _VALUE_FLAGS:
            seen_value_flag = True
            continue
        if tok not in old and not ("/" in tok and tok.lstrip("./") in {o.lstrip("./") for o in old}):
            if re.sub(r"\d+", "0", tok).lstrip("v") in old_shapes and not tok.startswith("v"):
                continue  # the same value (a version, a path) written differently
            last = n
    if last < 0:
        return None
    return " ".join(new[: last + 1]), cmd.signature(rejected) or " ".join(old[:3])


def _shell_difference(rej: Step, kept: Step) -> Difference | None:
    if rej.segment == kept.segment:
        return None
    category = kept.category or kept.program.split()[0]
    evidence = f"`{rej.segment}` was rejected ({'failed' if rej.ok is False else 'corrected'}), `{kept.segment}` was kept"
    if cmd.core(cmd.signature(rej.segment)) != cmd.core(cmd.signature(kept.segment)):
        prefer = cmd.preferred_form(cmd.signature(kept.segment), cmd.signature(rej.segment))
        avoid = cmd.core(cmd.signature(rej.segment)) or cmd.signature(rej.segment)
        if prefer and prefer != avoid:
            return Difference(kind="command", prefer=prefer, avoid=avoid, category=category, evidence=evidence)
        return None
    flags = _flags(rej.segment, kept.segment)
    if flags is None:
        return None
    prefer, avoid = flags
    if prefer.startswith(avoid + " "):  # "git tag" says nothing: what it was given ("git tag 1.8.0") does
        avoid = " ".join(rej.segment.split()[: len(prefer.split())])
    return Difference(kind="flag", prefer=prefer, avoid=avoid, category=category, evidence=evidence)


def _edit_difference(rej: Step, kept: Step) -> Difference | None:
    kind = file_kind(kept.path)
    if rej.path != kept.path and posixpath.basename(rej.path) == posixpath.basename(kept.path):
        new_dir, old_dir = posixpath.dirname(kept.path) + "/", posixpath.dirname(rej.path) + "/"
        if new_dir != old_dir:
            evidence = f"`{rej.path}` was rejected, `{kept.path}` was kept"
            return Difference(kind="place", prefer=new_dir, avoid=old_dir if old_dir != "/" else "", category=kind,
                              where=kept.path, evidence=evidence)  # fmt: skip
    if rej.path != kept.path:
        return None
    old_lines = {" ".join(line.split()).lower() for line in rej.text.splitlines()}
    added = [line.strip() for line in kept.text.splitlines() if line.strip() and " ".join(line.split()).lower() not in old_lines]
    heading = next((line for line in added if _HEADING.match(line)), None)
    if heading is not None:
        return Difference(kind="heading", prefer=heading, category=kind, where=kept.path,
                          evidence=f"the kept edit of `{kept.path}` put it under `{heading}`")  # fmt: skip
    old_names, new_names = names(rej.text), names(kept.text)
    gained = [n for n in new_names if n not in old_names and n.rstrip("()") not in rej.text]
    lost = [n for n in old_names if n not in new_names and n.rstrip("()") not in kept.text]
    if not gained:
        return None
    prefer = _root(gained[0])
    avoid = _root(lost[0]) if lost else ""
    return Difference(kind="api", prefer=prefer, avoid=avoid if avoid != prefer else "", category=kind, where=kept.path,
                      evidence=f"the kept edit of `{kept.path}` uses `{gained[0]}`" + (f" instead of `{lost[0]}`" if lost else ""))  # fmt: skip


def _root(name: str) -> str:
    """``httpx.get`` → ``httpx``; ``@/lib/apiClient`` → ``apiClient``; ``log/slog`` → ``slog``; calls keep their dots."""
    if "/" in name:
        return name.rstrip("/").rsplit("/", 1)[-1]
    if name.endswith("()"):
        return name
    return name.split("::")[0].split(".")[0] if ("." in name or "::" in name) and not name[0].isupper() else name


def differences(rejected: list[Step], kept: list[Step]) -> list[Difference]:
    """What each kept step has instead of the rejected step it replaced (latest first)."""
    out: list[Difference] = []
    for k in kept:
        candidates = [r for r in rejected if r.index < k.index and _same_job(r, k)]
        if k.kind == "edit":
            candidates = [r for r in candidates if r.path == k.path or posixpath.basename(r.path) == posixpath.basename(k.path)]
        for r in reversed(candidates):
            diff = _shell_difference(r, k) if k.kind == "shell" else _edit_difference(r, k)
            if diff is not None:
                if diff not in out:
                    out.append(diff)
                break
    return out
