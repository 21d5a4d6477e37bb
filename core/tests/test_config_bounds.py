"""Config files are read with every cost bounded: no path, size or shape makes reading
a config hang or crash; each is refused with one line naming the file.

Each case runs in a daemon thread given a minute: a read that blocks (a FIFO) or
expands without end (an alias bomb) fails the test instead of hanging the suite. That
minute is a hang detector, not a speed check: a bounded read takes milliseconds.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from skillopt.config import ConfigSources, resolve_config
from skillopt.errors import ConfigError

ALIAS_BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8))


def refusal(path: Path) -> str:
    """The ConfigError message reading ``path`` as ``--config`` ends with (a hang fails)."""
    outcome: dict = {}

    def read():
        try:
            resolve_config(ConfigSources(file=path, plugin_sections=False))
            outcome["result"] = "accepted"
        except ConfigError as exc:
            outcome["result"] = str(exc)
        except BaseException as exc:  # noqa: BLE001 - a crash is what the test reports
            outcome["result"] = f"crashed: {type(exc).__name__}: {exc}"

    worker = threading.Thread(target=read, daemon=True)
    worker.start()
    worker.join(60)
    assert not worker.is_alive(), f"reading {path} hangs"
    return outcome["result"]


@pytest.fixture
def fifo(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    path = tmp_path / "pipe.toml"
    os.mkfifo(path)
    return path


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_fifo_or_a_device_is_not_read(fifo):
    assert "is not a regular file" in refusal(fifo)
    assert "is not a regular file" in refusal(Path(os.devnull))


@pytest.mark.parametrize("base", ["/dev/zero", "PIPE", "DIR"])
def test_a_base_that_is_no_regular_file_is_refused(tmp_path, fifo, base):
    base = {"PIPE": str(fifo), "DIR": str(tmp_path)}.get(base, base)
    if not Path(base).exists():
        pytest.skip(f"{base} does not exist here")
    said = refusal(write(tmp_path / "top.yaml", f"_base_: {base}\n"))
    assert ("is not a regular file" in said or "is a directory" in said) and "_base_ of" in said, said


@pytest.mark.parametrize("base", ["5", "[1, 2]", "{a: b}", "[x.yaml, 3]"])
def test_a_base_that_is_no_path_is_refused(tmp_path, base):
    said = refusal(write(tmp_path / "top.yaml", f"_base_: {base}\n"))
    assert "_base_ is a path or a list of paths" in said, said


def test_a_long_base_chain_is_refused(tmp_path):
    for n in range(3000):
        write(tmp_path / f"c{n}.yaml", f"_base_: c{n + 1}.yaml\n" if n < 2999 else "train: {seed: 1}\n")
    assert "_base_ chain is deeper than" in refusal(tmp_path / "c0.yaml")


def test_a_base_fan_out_reads_a_bounded_number_of_files(tmp_path):
    """Each file naming the next level twice: 2^20 reads without a file budget."""
    for n in range(20):
        write(tmp_path / f"f{n}.yaml", f"_base_: [f{n + 1}.yaml, f{n + 1}.yaml]\n" if n < 19 else "train: {seed: 1}\n")
    assert "read more than" in refusal(tmp_path / "f0.yaml")


def test_a_short_chain_still_merges(tmp_path):
    write(tmp_path / "base.yaml", "train:\n  seed: 7\n")
    write(tmp_path / "mid.yaml", "_base_: base.yaml\n")
    top = write(tmp_path / "top.yaml", "_base_: [mid.yaml]\n")
    cfg = resolve_config(ConfigSources(file=top, plugin_sections=False))
    assert cfg.train.seed == 7


def test_yaml_that_expands_without_end_is_refused(tmp_path):
    assert len(ALIAS_BOMB) < 1100  # 9 anchors of 9 references: 387 million values expanded
    assert "expands to more than" in refusal(write(tmp_path / "bomb.yaml", ALIAS_BOMB))
    assert "nested more than" in refusal(write(tmp_path / "cycle.yaml", "a: &a [*a, 1]\n"))  # a list inside itself


@pytest.mark.parametrize("suffix", [".toml", ".yaml"])
def test_deep_nesting_is_refused(tmp_path, suffix):
    for depth in (100, 50_000):
        body = ("model:\n  options: " + "{a: " * depth + "1" + "}" * depth if suffix == ".yaml"
                else "[model]\noptions = " + "{a = " * depth + "1" + "}" * depth)
        said = refusal(write(tmp_path / f"deep{suffix}", body + "\n"))
        assert "nested" in said and "deep" in said, (depth, said)


def test_a_huge_file_is_refused_before_it_is_parsed(tmp_path):
    """A 70 MB TOML of comments took minutes; its size alone refuses it now."""
    big = tmp_path / "big.toml"
    with big.open("wb") as fh:
        fh.write(b"# comment\n")
        fh.truncate(70_000_000)  # sparse: no 70 MB written
    said = refusal(big)
    assert "70,000,000 bytes" in said and "at most 1,048,576" in said


def test_a_file_under_the_limit_is_read_whole(tmp_path):
    from skillopt.config.bounded import read_config_bytes

    text = "# " + "x" * 1000 + "\n"
    path = write(tmp_path / "ok.toml", text * 100 + "[train]\nseed = 3\n")
    assert read_config_bytes(path) == path.read_bytes()
    assert resolve_config(ConfigSources(file=path, plugin_sections=False)).train.seed == 3


def test_a_skill_front_matter_alias_bomb_is_refused(tmp_path):
    from skillopt.skillfolder import front_matter_fields

    front = "---\n" + ALIAS_BOMB + "---\n"
    with pytest.raises(ConfigError, match="expands to more than"):
        front_matter_fields(front, "SKILL.md")


def test_the_cli_says_one_line_for_a_fifo(fifo, run_cli):
    result = run_cli("config", "show", "--config", str(fifo))
    assert result.exit_code == 2 and "is not a regular file" in result.output and "Traceback" not in result.output
