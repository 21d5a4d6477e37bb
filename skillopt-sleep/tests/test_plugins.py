"""Plugin wiring: the command module stays import-light, harvesters and the handoff
backend are found through the registry, and third-party harvesters work the same way."""

import subprocess
import sys
from pathlib import Path

from skillopt.harvesters import Harvester
from skillopt.hookspecs import hookimpl
from skillopt.records import Session, Turn


def test_command_module_imports_only_typer():
    code = (
        "import sys, skillopt_sleep.cli as c; "
        "bad = [m for m in sys.modules if m.startswith('skillopt_sleep.') and m != 'skillopt_sleep.cli']; "
        "heavy = [m for m in ('attrs', 'cattrs', 'sqlite3', 'rich') if m in sys.modules]; print(bad, heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout.strip()
    assert out == "[] []", out


def test_all_harvesters_registered_through_entry_points():
    from skillopt.registry import get_registry

    names = {c.name for c in get_registry().load_all("harvesters")}
    assert names >= {"claude-code", "codex", "copilot-cli", "vscode-copilot", "cursor", "opencode", "pi"}
    from skillopt.registry import get

    assert get("backends", "handoff").distribution == "skillopt-sleep"


class _Notes:
    """A third-party harvester, registered in-process like any plugin."""

    class NotesHarvester(Harvester):
        name = "notes-agent"
        summary = "plain text notes, one session per file"

        def default_roots(self):
            return [Path("/nonexistent")]

        def sessions(self, roots, since=None):
            for root in roots:
                for f in sorted(Path(root).glob("*.txt")):
                    lines = f.read_text().splitlines()
                    yield Session(
                        id=f"notes-agent:{f.stem}",
                        source="notes-agent",
                        project=lines[0],
                        turns=tuple(Turn(role="user", content=line) for line in lines[1:]),
                    )

    @staticmethod
    @hookimpl
    def skillopt_register_harvesters(register):
        register(_Notes.NotesHarvester)


def test_third_party_harvester_is_used_like_a_builtin(tmp_path):
    from skillopt.plugins import get_host
    from skillopt_sleep.harvest import HarvestRequest, harvest

    get_host().register(_Notes, name="test-notes-plugin")
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.txt").write_text(f"{tmp_path}\nrun the test suite with make check please\n")
    result = harvest(HarvestRequest(sources=("notes-agent",), roots={"notes-agent": (notes,)}, project=tmp_path))
    assert [s.id for s in result.sessions] == ["notes-agent:a"]
    auto = harvest(HarvestRequest(sources=("auto",), roots={"notes-agent": (notes,)}, project=tmp_path))
    assert "notes-agent" in auto.sources_tried


def test_unknown_source_is_an_error(tmp_path):
    import pytest

    from skillopt.errors import ConfigError
    from skillopt_sleep.harvest import HarvestRequest, harvest

    with pytest.raises(ConfigError, match="unknown harvester 'claude'"):
        harvest(HarvestRequest(sources=("claude",), project=tmp_path))


def test_modules_stay_small():
    """Bug §6.16: upstream's staging.py (3.1k lines) and backend.py (2.6k) did several jobs each."""
    import skillopt_sleep

    root = Path(skillopt_sleep.__file__).parent
    sizes = {p.relative_to(root): len(p.read_text().splitlines()) for p in root.rglob("*.py")}
    assert max(sizes.values()) <= 400, max(sizes.items(), key=lambda kv: kv[1])
