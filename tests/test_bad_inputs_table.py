"""Bad input at the real command line, table-driven (issue 29): each case runs the
installed ``skillopt`` program in its own process and must end with exit status 2, one
line on stderr naming the problem, and no traceback anywhere.

A usage error click finds itself (an option out of range, an unknown option) prints its
standard frame around that one line ("Usage: ...", "Try ... --help", a box); the frame is
not counted, the line inside the box is. Everything else goes through the project's
``error: ...`` line. Each process is given 30 seconds: a read that would block (a FIFO,
``/dev/zero``) or expand without end (a YAML alias bomb) fails its case instead of
hanging the suite; that limit is a hang detector, not a speed check.

The run the run-taking commands read is a real one written by the engine (the toy env
with scripted models of core/tests/engine_helpers.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("skillopt_envs_searchqa")  # the env named where a case needs a valid one

#: the YAML alias bomb of the issue: 9 anchors of 9 references each, ~300 bytes, 9**9 values
ALIAS_BOMB = "a: &a [x,x,x,x,x,x,x,x,x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [" + ",".join([f"*{chr(97 + i)}"] * 9) + "]\n" for i in range(8))

ENV = ("--env", "searchqa")

#: (id, arguments, what the one message line must say). ``{run}`` is a real run directory,
#: ``{file}`` a plain file, ``{dir}`` the folder of the bad inputs, ``{out}`` a fresh --out.
CASES = [
    # the ones the issue names
    ("report-into-proc", ["report", "{run}", "-o", "/proc/version"], "cannot write the report to /proc/version"),
    ("export-project-is-a-file", ["export", "{run}", "--to", "claude-code", "--project", "{file}"],
     "is a file, not a project folder"),
    ("ui-port-too-large", ["ui", "--port", "99999"], "Invalid value for '--port'"),
    ("ui-runs-dir-is-a-file", ["ui", "--runs-dir", "{file}"], "is a file, not a folder of runs"),
    ("yaml-base-is-a-folder", ["config", "show", *ENV, "--config", "{dir}/base_etc.yaml"], "/etc is a directory"),
    ("yaml-base-is-a-number", ["config", "show", *ENV, "--config", "{dir}/base_5.yaml"],
     "_base_ is a path or a list of paths"),
    ("yaml-base-chain-of-3000", ["run", *ENV, "--config", "{dir}/chain/c0.yaml", "--out", "{out}"],
     "_base_ chain is deeper than"),
    ("yaml-alias-bomb", ["run", *ENV, "--config", "{dir}/bomb.yaml", "--out", "{out}"], "expands to more than"),
    ("yaml-base-dev-zero", ["config", "show", *ENV, "--config", "{dir}/base_zero.yaml"], "/dev/zero is not a regular file"),
    ("yaml-base-fifo", ["config", "show", *ENV, "--config", "{dir}/base_fifo.yaml"], "pipe.yaml is not a regular file"),
    ("config-fifo", ["run", *ENV, "--config", "{dir}/pipe.toml", "--out", "{out}"], "pipe.toml is not a regular file"),
    ("toml-of-comments-past-1mib", ["run", *ENV, "--config", "{dir}/comments.toml", "--out", "{out}"],
     "a config file may hold at most"),
    ("timeout-negative", ["run", *ENV, "--set", "model.timeout_s=-1", "--out", "{out}"], "'timeout_s' must be > 0"),
    ("timeout-nan", ["run", *ENV, "--set", "model.timeout_s=nan", "--out", "{out}"], "finite number, got nan"),
    # typos and unknown names
    ("set-key-typo", ["config", "show", *ENV, "--set", "model.tmeout_s=5"], "Did you mean 'model.timeout_s'"),
    ("toml-key-typo", ["run", *ENV, "--config", "{dir}/typo.toml", "--out", "{out}"], "Did you mean 'model.timeout_s'"),
    ("unknown-section", ["config", "show", *ENV, "--set", "nosection.x=1"], "unknown config key 'nosection'"),
    ("unknown-env", ["run", "--env", "nosuchenv", "--out", "{out}"], "unknown env 'nosuchenv'"),
    ("no-env", ["config", "show"], "pass --env NAME"),
    ("unknown-backend", ["run", *ENV, "--backend", "nosuchbackend", "--out", "{out}"], "unknown backend 'nosuchbackend'"),
    ("config-show-unknown-backend", ["config", "show", *ENV, "--backend", "nosuchbackend"], "unknown backend 'nosuchbackend'"),
    ("unknown-preset", ["run", *ENV, "--preset", "huge", "--out", "{out}"], "unknown preset 'huge'"),
    ("unknown-option", ["run", *ENV, "--bogus"], "No such option: --bogus"),
    ("unknown-export-target", ["export", "{run}", "--to", "nosuchtarget"], "unknown export target 'nosuchtarget'"),
    ("unknown-key-provider", ["keys", "set", "nosuchprovider"], "no installed backend reads a key named 'nosuchprovider'"),
    # runs that are not there
    ("runs-show-missing-run", ["runs", "show", "nosuchrun"], "no run named 'nosuchrun'"),
    ("report-missing-run", ["report", "nosuchrun"], "no run named 'nosuchrun'"),
    ("export-missing-run", ["export", "nosuchrun", "--to", "claude-code"], "no run named 'nosuchrun'"),
    ("blame-missing-run", ["blame", "nosuchrun"], "no run named 'nosuchrun'"),
    ("runs-diff-missing-version", ["runs", "diff", "{run}", "1", "999"], "no such skill version"),
    ("runs-dir-is-a-file", ["runs", "--runs-dir", "{file}"], "is a file, not a folder of runs"),
    # files that are not what they should be
    ("report-out-is-a-folder", ["report", "{run}", "-o", "{dir}"], "is a folder; name the HTML file"),
    ("config-missing", ["run", *ENV, "--config", "{dir}/nowhere.toml", "--out", "{out}"], "config file not found"),
    ("config-is-a-folder", ["config", "show", *ENV, "--config", "{dir}"], "is a directory; pass a file"),
    ("config-bad-toml", ["config", "show", *ENV, "--config", "{dir}/bad_syntax.toml"], "invalid TOML"),
    ("config-not-utf8", ["config", "show", *ENV, "--config", "{dir}/binary.toml"], "not UTF-8 text"),
    ("yaml-base-cycle", ["config", "show", *ENV, "--config", "{dir}/cycle_a.yaml"], "loops back to itself"),
    ("yaml-base-missing", ["config", "show", *ENV, "--config", "{dir}/base_missing.yaml"], "config file not found"),
    ("out-is-a-file", ["run", *ENV, "--out", "{file}"], "is a file, not a run directory"),
    ("eval-skill-missing", ["eval", *ENV, "--skill", "{dir}/no_skill.md"], "no such file"),
    # values
    ("set-without-equals", ["config", "show", *ENV, "--set", "noequals"], "expects section.key=value"),
    ("set-wrong-type", ["config", "show", *ENV, "--set", "model.temperature=abc"], "cannot read 'abc' as float"),
    ("epochs-zero", ["run", *ENV, "--epochs", "0", "--out", "{out}"], "'num_epochs' must be >= 1"),
    ("seeds-not-numbers", ["run", *ENV, "--seeds", "a,b", "--out", "{out}"], "--seeds takes integers"),
    ("max-retries-negative", ["config", "show", *ENV, "--set", "model.max_retries=-3"], "'max_retries' must be >= 0"),
]


@pytest.fixture(scope="module")
def bad(tmp_path_factory) -> Path:
    """The folder of bad inputs, written once for the table."""
    where = tmp_path_factory.mktemp("bad-inputs")
    files = {
        "plain.txt": "not a folder\n",
        "base_etc.yaml": "_base_: /etc\n",
        "base_5.yaml": "_base_: 5\n",
        "base_zero.yaml": "_base_: /dev/zero\n",
        "base_fifo.yaml": "_base_: pipe.yaml\n",
        "bomb.yaml": ALIAS_BOMB,
        "comments.toml": ("# " + "x" * 78 + "\n") * 14_000,  # 1.12 MB of comments
        "typo.toml": "[model]\ntmeout_s = 5\n",
        "bad_syntax.toml": "[model\n",
        "cycle_a.yaml": "_base_: cycle_b.yaml\n",
        "cycle_b.yaml": "_base_: cycle_a.yaml\n",
        "base_missing.yaml": "_base_: nowhere.yaml\n",
    }
    for name, text in files.items():
        (where / name).write_text(text, encoding="utf-8")
    assert (where / "comments.toml").stat().st_size > 1024 * 1024
    (where / "binary.toml").write_bytes(b"\xff\xfe\x00not text")
    chain = where / "chain"
    chain.mkdir()
    for i in range(3000):
        (chain / f"c{i}.yaml").write_text(f"_base_: c{i + 1}.yaml\n" if i < 2999 else "train:\n  seed: 1\n")
    if hasattr(os, "mkfifo"):
        os.mkfifo(where / "pipe.yaml")
        os.mkfifo(where / "pipe.toml")
    return where


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    from engine_helpers import make_trainer

    root = tmp_path_factory.mktemp("runs") / "toy-run"
    make_trainer(root, num_epochs=1).train()
    return root


def message_lines(stderr: str) -> list[str]:
    """stderr's lines less click's usage frame (and a box's borders)."""
    lines = []
    for line in stderr.splitlines():
        text = line.strip()
        if not text or text.startswith(("Usage:", "Try '", "╭", "╰")):
            continue
        lines.append(text.strip("│").strip())
    return lines


@pytest.mark.parametrize(("argv", "says"), [pytest.param(argv, says, id=name) for name, argv, says in CASES])
def test_bad_input_exits_2_with_one_line_and_no_traceback(argv, says, bad, run_dir, tmp_path):
    if any("pipe." in a for a in argv) and not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    values = {"run": str(run_dir), "file": str(bad / "plain.txt"), "dir": str(bad), "out": str(tmp_path / "out")}
    args = [a.format(**values) for a in argv]
    home = tmp_path / "home"
    env = {**os.environ, "SKILLOPT_HOME": str(home), "SKILLOPT_NO_DOTENV": "1", "COLUMNS": "400", "NO_COLOR": "1"}
    try:
        done = subprocess.run([sys.executable, "-m", "skillopt", *args], capture_output=True, text=True, env=env,
                              cwd=tmp_path, stdin=subprocess.DEVNULL, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail(f"skillopt {' '.join(args)} still running after 30 s")
    shown = f"skillopt {' '.join(args)}\n--- stdout\n{done.stdout[-2000:]}\n--- stderr\n{done.stderr[-4000:]}"
    assert "Traceback" not in done.stdout + done.stderr, shown
    assert done.returncode == 2, shown
    lines = message_lines(done.stderr)
    assert len(lines) == 1, shown
    assert says in lines[0], shown
    assert (bad / "plain.txt").read_text() == "not a folder\n"  # nothing written over a file named as input
    assert not (tmp_path / "out").exists(), "a refused run leaves no run directory behind (not even run.lock)"


def test_the_table_holds_every_case_the_issue_names():
    """At least 30 cases, each id once; the issue's own list is in it."""
    names = [name for name, _, _ in CASES]
    assert len(names) >= 30 and len(set(names)) == len(names)
    named = {"report-into-proc", "export-project-is-a-file", "ui-port-too-large", "ui-runs-dir-is-a-file",
             "yaml-base-is-a-folder", "yaml-base-is-a-number", "yaml-base-chain-of-3000", "yaml-alias-bomb",
             "yaml-base-dev-zero", "yaml-base-fifo", "config-fifo", "toml-of-comments-past-1mib", "timeout-negative",
             "timeout-nan"}
    assert named <= set(names)
