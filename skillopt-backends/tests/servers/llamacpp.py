"""A real ``llama_cpp.server`` (llama-cpp-python's OpenAI-compatible server) serving
the bundled SmolLM2, started as a subprocess on a free port."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

MODEL_ALIAS = "smollm2"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LlamaCppServer:
    def __init__(self, gguf: Path, *, n_ctx: int = 2048, threads: int = 2):
        self.gguf = gguf
        self.port = free_port()
        self.n_ctx = n_ctx
        self.threads = threads
        self.proc: subprocess.Popen | None = None
        # A file, not a pipe: an unread pipe fills up and blocks the server's logging.
        self.log = tempfile.TemporaryFile()  # noqa: SIM115 - the server's log for its lifetime; closed in stop()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self, wait_s: float = 90.0) -> LlamaCppServer:
        cmd = [
            sys.executable,
            "-m",
            "llama_cpp.server",
            "--model",
            str(self.gguf),
            "--model_alias",
            MODEL_ALIAS,
            "--host",
            "127.0.0.1",
            "--port",
            str(self.port),
            "--n_ctx",
            str(self.n_ctx),
            "--n_threads",
            str(self.threads),
            "--seed",
            "0",
            "--verbose",
            "False",
        ]
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        self.proc = subprocess.Popen(cmd, stdout=self.log, stderr=subprocess.STDOUT, env=env)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                self.log.seek(0)
                out = self.log.read().decode("utf-8", "replace")[-2000:]
                raise RuntimeError(f"llama_cpp.server exited with {self.proc.returncode}:\n{out}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as resp:
                    if resp.status == 200:
                        return self
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError(f"llama_cpp.server did not answer on port {self.port} within {wait_s:g}s")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.log.close()
