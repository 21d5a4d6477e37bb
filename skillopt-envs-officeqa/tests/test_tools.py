"""glob/read/grep over real files in a tmp dir: results, limits, confinement, errors as messages."""

import os

import pytest

from skillopt_envs_officeqa.docs import DocsIndex, ToolError, roots_from
from skillopt_envs_officeqa.tools import MAX_GLOB, MAX_GREP_LINES, MAX_READ_CHARS, run_tool


@pytest.fixture
def corpus(tmp_path):
    root = tmp_path / "docs"
    root.mkdir()
    (root / "treasury_bulletin_1949_06.txt").write_text("\n".join(f"line {i} Customs {i * 7}" for i in range(1, 301)) + "\n", encoding="utf-8")
    (root / "treasury_bulletin_1950_03.txt").write_text("Receipts\nCUSTOMS 12\n", encoding="utf-8")
    (root / "latin1.txt").write_bytes("Caf\xe9 receipts\n".encode("latin-1"))
    for i in range(60):
        (root / f"extra_{i:02d}.txt").write_text("x\n", encoding="utf-8")
    outside = tmp_path / "secret.txt"
    outside.write_text("top secret\n", encoding="utf-8")
    os.symlink(outside, root / "link.txt")
    return root


def index(root):
    return DocsIndex.build(roots_from([str(root)], environ={}))


def test_glob_lists_matches_within_the_limit(corpus):
    idx = index(corpus)
    assert run_tool(idx, (), "glob", {"pattern": "treasury_*.txt"}).splitlines() == [
        "treasury_bulletin_1949_06.txt", "treasury_bulletin_1950_03.txt"]
    many = run_tool(idx, (), "glob", {"pattern": "*.txt"}).splitlines()
    assert len(many) == MAX_GLOB + 1 and "more not shown" in many[-1]
    allowed = ("treasury_bulletin_1950_03.txt",)
    assert run_tool(idx, allowed, "glob", {"pattern": "*"}) == "treasury_bulletin_1950_03.txt"
    assert "no files match" in run_tool(idx, (), "glob", {"pattern": "*.pdf"})


def test_read_returns_a_numbered_window_capped_in_characters(corpus):
    idx = index(corpus)
    out = run_tool(idx, (), "read", {"path": "treasury_bulletin_1949_06.txt", "start": "3", "limit": 2})
    assert out.splitlines() == ["treasury_bulletin_1949_06.txt lines 3-4 of 300 (continue with start=5)",
                                "    3: line 3 Customs 21", "    4: line 4 Customs 28"]
    big = run_tool(idx, (), "read", {"path": "treasury_bulletin_1949_06.txt", "limit": 400})
    assert len(big) <= MAX_READ_CHARS + 100 and "continue with start=" in big
    with pytest.raises(ToolError, match="past the end"):
        run_tool(idx, (), "read", {"path": "treasury_bulletin_1950_03.txt", "start": 50})
    with pytest.raises(ToolError, match="whole number"):
        run_tool(idx, (), "read", {"path": "treasury_bulletin_1950_03.txt", "start": "ten"})


def test_grep_is_case_insensitive_and_limited(corpus):
    idx = index(corpus)
    out = run_tool(idx, (), "grep", {"pattern": "customs", "path": "treasury_bulletin_1949_06.txt"}).splitlines()
    assert len(out) == MAX_GREP_LINES + 1 and out[0] == "    1: line 1 Customs 7" and "280 more" in out[-1]
    across = run_tool(idx, ("treasury_bulletin_1950_03.txt",), "grep", {"pattern": "customs"})
    assert across == "treasury_bulletin_1950_03.txt:2: CUSTOMS 12"
    assert "no lines contain" in run_tool(idx, (), "grep", {"pattern": "zzz", "path": "treasury_bulletin_1950_03.txt"})


@pytest.mark.parametrize("path, message", [
    ("../../etc/passwd", "outside the document folder"),
    ("../secret.txt", "outside the document folder"),
    ("link.txt", "outside the document folder"),
    ("/etc/passwd", "absolute paths are not allowed"),
    ("C:\\Windows\\win.ini", "absolute paths are not allowed"),
    ("nope.txt", "no such file"),
    ("", "missing 'path'"),
])  # fmt: skip
def test_paths_are_confined_to_the_roots(corpus, path, message):
    with pytest.raises(ToolError, match=message):
        run_tool(index(corpus), (), "read", {"path": path})


def test_only_the_items_source_files_can_be_opened(corpus):
    idx = index(corpus)
    with pytest.raises(ToolError, match="not a document of this question"):
        run_tool(idx, ("treasury_bulletin_1950_03.txt",), "read", {"path": "treasury_bulletin_1949_06.txt"})
    assert "CUSTOMS 12" in run_tool(idx, ("treasury_bulletin_1950_03.txt",), "read", {"path": "treasury_bulletin_1950_03.txt"})


def test_bad_calls_and_non_utf8_files_are_tool_errors(corpus):
    idx = index(corpus)
    with pytest.raises(ToolError, match="not UTF-8"):
        run_tool(idx, (), "read", {"path": "latin1.txt"})
    with pytest.raises(ToolError, match="unknown tool"):
        run_tool(idx, (), "cat", {"path": "x"})
    with pytest.raises(ToolError, match="unknown argument"):
        run_tool(idx, (), "grep", {"pattern": "x", "file": "y"})
    with pytest.raises(ToolError, match="missing 'pattern'"):
        run_tool(idx, (), "grep", {})


def test_roots_come_from_data_dirs_then_the_env_var_with_no_home_fallback(tmp_path, monkeypatch):
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    assert roots_from([str(a)], environ={"OFFICEQA_DOCS_DIR": str(b)}) == (a.resolve(), b.resolve())
    assert roots_from([str(tmp_path / "missing")], environ={}) == ()
    monkeypatch.setenv("HOME", str(tmp_path))
    assert roots_from([], environ={}) == ()
    with pytest.raises(ToolError, match="no document folder"):
        DocsIndex.build(()).resolve("x.txt", ())


def test_grep_over_every_file_skips_a_link_out_of_the_folder_and_says_so(corpus):
    """One symlink in the document root pointing outside made a grep without a path fail
    as a whole; now that file (and the non-UTF-8 one) is skipped, by name, and the
    other files are still searched. Nothing of the outside file is shown."""
    idx = index(corpus)
    out = run_tool(idx, (), "grep", {"pattern": "customs"})
    lines = out.splitlines()
    assert "treasury_bulletin_1950_03.txt:2: CUSTOMS 12" in out or "more matching lines" in out
    assert lines[0] == "treasury_bulletin_1949_06.txt:1: line 1 Customs 7"
    note = lines[-1]
    assert note.startswith("skipped 2 files:"), out
    assert "link.txt (resolves outside the document folder)" in note and "latin1.txt (not UTF-8 text)" in note
    secret = run_tool(idx, (), "grep", {"pattern": "top secret"})
    assert secret.splitlines()[0] == "no lines contain 'top secret'" and "link.txt" in secret.splitlines()[-1]
    with pytest.raises(ToolError, match="outside the document folder"):  # named on its own, it is still refused
        run_tool(idx, (), "grep", {"pattern": "secret", "path": "link.txt"})
