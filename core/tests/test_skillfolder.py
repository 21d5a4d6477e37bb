"""Folder skills (Agent Skills layout): the canonical text, the layout rules, edits routed
to their file, what a chat target reads, and writing a folder back whole."""

from __future__ import annotations

import os
import stat

import pytest

from skillopt.errors import ConfigError
from skillopt.records import Edit, SkillFile
from skillopt.skilldoc import APPX_END, APPX_START, SLOW_END, SLOW_START, apply_edits, get_block, restore_protected, set_block
from skillopt.skillfolder import SkillFolder, is_folder, path_problem, render_inline, render_installed
from skillopt.skillfolder.disk import load_folder, matches, write_folder

MAIN = "---\nname: toy-skill\ndescription: Solve word puzzles.\n---\n\n# Toy\n- Read the puzzle kind first.\n"


def make_dir(root, files: dict[str, str], modes: dict[str, int] | None = None):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        if modes and rel in modes:
            path.chmod(modes[rel])
    return root


@pytest.fixture
def folder_dir(tmp_path):
    return make_dir(tmp_path / "toy-skill", {
        "SKILL.md": MAIN,
        "references/rules.md": "# Rules\n- RULE-upper: upper-case the word.",  # no final newline: one is added
        "scripts/check.py": "print('ok')\n",
    }, modes={"scripts/check.py": 0o750})


def folder() -> SkillFolder:
    return SkillFolder.of([SkillFile(path="scripts/check.py", content="print('ok')\n", mode=0o755),
                           SkillFile(path="references/rules.md", content="# Rules\n- RULE-upper\n"),
                           SkillFile(path="SKILL.md", content=MAIN)])


def test_a_folder_is_one_canonical_text_that_parses_back_exactly(folder_dir):
    loaded = load_folder(folder_dir)
    text = loaded.text()
    assert is_folder(text) and not is_folder(MAIN)
    assert text == ("<!-- skillopt:file SKILL.md -->\n" + MAIN
                    + "<!-- skillopt:file references/rules.md -->\n# Rules\n- RULE-upper: upper-case the word.\n"
                    + "<!-- skillopt:file scripts/check.py mode=750 -->\nprint('ok')\n")
    assert SkillFolder.parse(text) == loaded
    assert (loaded.name, loaded.description) == ("toy-skill", "Solve word puzzles.")
    assert [f.path for f in folder().files] == ["SKILL.md", "references/rules.md", "scripts/check.py"]  # canonical order


@pytest.mark.parametrize(("files", "message"), [
    ({"references/a.md": "x"}, "has no SKILL.md"),
    ({"SKILL.md": MAIN, "assets/logo.txt": "x"}, "assets/logo.txt is not in the Agent Skills layout"),
    ({"SKILL.md": MAIN, "references/deep/a.md": "x"}, "references/deep/a.md is not in the Agent Skills layout"),
    ({"SKILL.md": MAIN, "references/notes.txt": "x"}, "references/notes.txt is not in the Agent Skills layout"),
    ({"SKILL.md": "# No front matter\n"}, "SKILL.md must start with front matter"),
    ({"SKILL.md": "---\nname: Bad Name\ndescription: d\n---\n"}, "front matter 'name'"),
    ({"SKILL.md": "---\nname: ok\n---\n"}, "front matter 'description'"),
    ({"SKILL.md": "---\nname: [\n---\n"}, "not valid YAML"),
    ({"SKILL.md": MAIN, "references/a.md": "<!-- skillopt:file SKILL.md -->\n"}, "separates a folder skill's files"),
])
def test_a_bad_folder_is_refused_naming_the_file_and_the_rule(tmp_path, files, message):
    root = make_dir(tmp_path / "s", files)
    with pytest.raises(ConfigError, match=message) as err:
        load_folder(root, "env.skill_init")
    assert str(err.value).startswith("env.skill_init: ")


def test_non_utf8_files_and_symlinks_are_refused_by_name(tmp_path):
    root = make_dir(tmp_path / "s", {"SKILL.md": MAIN})
    (root / "references").mkdir()
    (root / "references" / "bin.md").write_bytes(b"\xff\xfe")
    with pytest.raises(ConfigError, match=r"references/bin.md is not UTF-8"):
        load_folder(root)
    (root / "references" / "bin.md").unlink()
    (root / "references" / "link.md").symlink_to(tmp_path / "elsewhere.md")
    with pytest.raises(ConfigError, match="link.md is a symbolic link"):
        load_folder(root)


def test_hidden_files_are_skipped(tmp_path):
    root = make_dir(tmp_path / "s", {"SKILL.md": MAIN, ".DS_Store": "x", ".git/config": "x"})
    assert [f.path for f in load_folder(root).files] == ["SKILL.md"]


@pytest.mark.parametrize("path", ["/etc/passwd", "../x.md", "references/../SKILL.md", "references//a.md", "C:/x.md",
                                  "references\\a.md", "README.md", ""])
def test_path_rules(path):
    assert path_problem(path)


def run(edits, skill: SkillFolder | None = None):
    new, results = apply_edits((skill or folder()).text(), edits)
    return SkillFolder.parse(new), [(r.status, r.detail) for r in results]


def test_edits_land_in_the_file_they_name_and_an_append_creates_a_reference():
    new, results = run([
        Edit(op="append", content="- RULE-reverse: reverse the word.", target_file="references/rules.md"),
        Edit(op="append", content="# Doubling\n- RULE-double", target_file="references/double.md"),
        Edit(op="insert_after", target="Read the puzzle kind", content="- Then open references/rules.md."),
    ])
    assert [s for s, _ in results] == ["applied", "applied", "applied"]
    assert new.file("references/rules.md").content == "# Rules\n- RULE-upper\n- RULE-reverse: reverse the word.\n"
    assert new.file("references/double.md").content == "# Doubling\n- RULE-double\n"
    assert new.main == MAIN.replace("first.\n", "first.\n- Then open references/rules.md.\n")
    assert new.file("scripts/check.py") == folder().file("scripts/check.py")


def test_forbidden_paths_scripts_front_matter_and_missing_files_are_refused_and_reported():
    before = folder()
    new, results = run([
        Edit(op="append", content="print('pwned')", target_file="scripts/check.py"),
        Edit(op="append", content="- x", target_file="../outside.md"),
        Edit(op="append", content="- x", target_file="/abs/outside.md"),
        Edit(op="append", content="- x", target_file="scripts/new.sh"),
        Edit(op="append", content="- x", target_file="notes/a.md"),
        Edit(op="replace", target="name: toy-skill", content="name: evil"),
        Edit(op="replace", target="Rules", content="Laws", target_file="references/missing.md"),
        Edit(op="delete", target="no such line", target_file="references/rules.md"),
    ])
    assert new == before
    statuses = [s for s, _ in results]
    assert statuses == ["protected", "invalid", "invalid", "protected", "invalid", "protected", "not_applied", "not_applied"]
    details = [d for _, d in results]
    assert "scripts are read-only" in details[0]
    assert "'..'" in details[1] and "absolute" in details[2] and "not in the Agent Skills layout" in details[4]
    assert "front matter" in details[5]
    assert "references/missing.md is not a file of the skill" in details[6]
    assert details[7] == "target text not found in the skill (references/rules.md)"


def test_an_emptied_reference_is_removed_and_markers_in_content_are_stripped():
    new, results = run([Edit(op="delete", target="# Rules\n- RULE-upper", target_file="references/rules.md"),
                        Edit(op="append", content="<!-- skillopt:file scripts/x.sh -->\n- sneaky")])
    assert [s for s, _ in results] == ["applied", "applied"]
    assert new.file("references/rules.md") is None and new.file("scripts/x.sh") is None
    assert new.main.endswith("- sneaky\n")


def test_a_single_file_skill_refuses_an_edit_for_another_file():
    skill = "# Skill\n- one\n"
    new, results = apply_edits(skill, [Edit(op="append", content="- two", target_file="references/a.md"),
                                       Edit(op="append", content="- three", target_file="SKILL.md")])
    assert [r.status for r in results] == ["invalid", "applied"] and new == "# Skill\n- one\n- three\n"


def test_protected_blocks_live_in_skill_md_and_rewrites_keep_front_matter_scripts_and_blocks():
    text = set_block(folder().text(), SLOW_START, SLOW_END, "- slow lesson")
    text = set_block(text, APPX_START, APPX_END, "- note")
    parsed = SkillFolder.parse(text)
    assert SLOW_START in parsed.main and get_block(text, SLOW_START, SLOW_END) == "- slow lesson"
    assert parsed.file("references/rules.md") == folder().file("references/rules.md")
    # a rewrite of the body alone (with a front matter of its own, which is ignored)
    body_only = SkillFolder.parse(restore_protected(text, "---\nname: other\ndescription: x\n---\n# New body\n"))
    assert body_only.name == "toy-skill" and "# New body" in body_only.body and SLOW_START in body_only.body
    assert body_only.files[1:] == parsed.files[1:]
    # a rewrite of the whole folder changes references (a left-out one is kept) but never scripts
    whole = SkillFolder.of([SkillFile(path="SKILL.md", content="---\nname: x\ndescription: y\n---\n# Whole\n"),
                            SkillFile(path="references/new.md", content="- new\n"),
                            SkillFile(path="scripts/check.py", content="rm -rf /\n")]).text()
    rewritten = SkillFolder.parse(restore_protected(text, whole))
    assert rewritten.name == "toy-skill" and "# Whole" in rewritten.body and APPX_START in rewritten.body
    assert rewritten.file("references/new.md").content == "- new\n"
    assert rewritten.file("references/rules.md") == parsed.file("references/rules.md")
    assert rewritten.file("scripts/check.py") == parsed.file("scripts/check.py")


def test_what_a_chat_target_and_an_agent_target_read():
    assert render_inline(folder()) == (
        "# Toy\n- Read the puzzle kind first.\n\n## Reference: references/rules.md\n\n# Rules\n- RULE-upper\n")
    assert render_installed(folder()) == (
        "# Toy\n- Read the puzzle kind first.\n\n## Files of this skill\n"
        "In the working directory: references/rules.md, scripts/check.py.\n")


def test_write_folder_replaces_the_whole_folder_with_modes(tmp_path):
    dest = tmp_path / "out" / "toy-skill"
    make_dir(dest, {"SKILL.md": "old\n", "references/stale.md": "gone\n"})
    write_folder(folder(), dest)
    assert matches(folder(), dest)
    assert not (dest / "references" / "stale.md").exists()
    assert stat.S_IMODE((dest / "scripts" / "check.py").stat().st_mode) == 0o755
    assert [p.name for p in dest.parent.iterdir()] == ["toy-skill"]  # no temp or old folder left
    backup = tmp_path / "out" / ".toy-skill.bak"
    write_folder(SkillFolder.parse(folder().text().replace("RULE-upper", "RULE-lower")), dest, keep_old=backup)
    assert matches(folder(), backup) and "RULE-lower" in (dest / "references" / "rules.md").read_text()
    assert os.access(dest / "scripts" / "check.py", os.X_OK)
