"""Running items in other processes while the driver keeps the books.

An executor that ships items elsewhere (``ray``) needs three things, all here so every
such executor behaves the same:

* :class:`WorkerSpec` — what a worker needs to build the env and the target's backend
  once: the env's name, the run's config *without any secret*, and the versions the
  driver runs. Keys never travel: a worker reads its own environment or key store.
* :class:`WorkerRuntime` — the worker's side: builds the env and, per role, the backend
  once (so an embedded model loads once per worker), then runs items. Each item's calls
  go through a :class:`~skillopt.calls.ModelClient` whose bookkeeping is the driver's:
  the cache lookup and store, the request's reservation in the ledger (journaled in
  ``usage.jsonl`` before the request is sent), its in-flight slot, its outcome.
* :class:`CallHost` — the driver's side of that bookkeeping: it serves those requests
  with the run's own ledger, cache and limiters, so budgets, ``--max-calls`` across
  kills, the in-flight limit and the cache are exactly those of a run on threads.

The executor supplies the transport: a *link* with ``call(op, ticket, *args)`` (wait for
the driver's answer; raises what the driver raised) and ``post(op, ticket, *args)``
(one-way), delivered to :meth:`CallHost.handle`.
"""

from __future__ import annotations

import contextlib
import tempfile
import threading
from collections.abc import Iterator
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, cast

import attrs

from skillopt.calls import ModelClient
from skillopt.errors import Cancelled, ConfigError, EnvUnavailable, SkillOptError
from skillopt.executors import ItemOutcome, WorkItem, run_item
from skillopt.executors.spec_secrets import without_secrets

if TYPE_CHECKING:
    from skillopt.backends import Backend
    from skillopt.config.schema import RunConfig
    from skillopt.envs import Env
    from skillopt.records import Completion, CompletionRequest, Usage

#: roles whose clients a worker may build (rollouts use the target's)
ROLES = ("target", "optimizer")


class Link(Protocol):
    """A worker's line to the driver's :class:`CallHost` (the executor's transport)."""

    def call(self, op: str, ticket: int, *args: Any) -> Any:
        """Run ``op`` on the driver and return its result (raise what it raised)."""

    def post(self, op: str, ticket: int, *args: Any) -> None:
        """Run ``op`` on the driver without waiting."""


# --------------------------------------------------------------------------- the spec


def _without_secrets(data: Any) -> Any:
    """``data`` with every credential emptied (see :mod:`skillopt.executors.spec_secrets`)."""
    return without_secrets(data)[0]


@attrs.frozen(kw_only=True)
class WorkerSpec:
    """What every worker of a run is given once (plain data, no secret)."""

    #: the env's registered name
    env: str
    #: the run's config as data, every secret-named value emptied
    config: dict[str, Any]
    #: backend name per role, as resolved on the driver (``auto`` resolves the same everywhere)
    backends: dict[str, str]
    #: distribution -> version of what the workers must run alike (core, env, backends)
    versions: dict[str, str]

    @classmethod
    def for_run(cls, cfg: RunConfig, roles: tuple[str, ...] = ("target",)) -> WorkerSpec:
        """The spec of a resolved :class:`~skillopt.api.RunConfig`. Raises ConfigError
        for what a worker could not rebuild: a key written into the config (never
        shipped) or a component registered in this process only."""
        from skillopt.config.loading import config_data
        from skillopt.engine.models import backend_name
        from skillopt.registry import get

        for where, role_key in [("model", cfg.model.api_key), *((f"model.{r}", getattr(cfg.model, r).api_key) for r in roles)]:
            if role_key:
                raise ConfigError(
                    f"{where}.api_key holds a key, and keys are never sent to workers: set {where}.api_key_env "
                    "to the name of an environment variable that holds it on every worker (or run `skillopt keys set` there)"
                )
        from skillopt.config.schema import parse_hedge_after

        for role in roles:
            hedge = getattr(cfg.model, role).hedge_after or cfg.model.hedge_after
            if parse_hedge_after(hedge) is not None:
                raise ConfigError(
                    f"hedged requests (model.hedge_after={hedge} for the {role}) run on the threads executor only: a "
                    "losing copy outlives the item a worker ran it for, and its bill would be lost; set "
                    f"model.{role}.hedge_after=off or engine.executor=threads"
                )
        parts = [("envs", cfg.env.name)]
        backends = {}
        for role in roles:
            backends[role] = backend_name(cfg, role)[0]
            parts.append(("backends", backends[role]))
        versions = {"skillopt-core": _version("skillopt-core")}
        for kind, name in parts:
            comp = get(kind, name)
            if comp.distribution == "(in-process)":
                raise ConfigError(
                    f"the {kind[:-1]} '{name}' is registered in this process only; workers build it from an installed "
                    "distribution (an entry point), so install it as one on the driver and on every worker"
                )
            versions[comp.distribution] = comp.version
        config, removed = without_secrets(config_data(cfg))
        if removed:
            from skillopt.report import warn

            warn("credentials in " + ", ".join(removed[:6]) + (f" (+{len(removed) - 6})" if len(removed) > 6 else "")
                 + " are not sent to workers (a URL goes without its user:password@, a credential header empty); "
                 "a worker reads its key from the variable api_key_env names or `skillopt keys set` on its machine")
        return cls(env=cfg.env.name, config=config, backends=backends, versions=versions)


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "not installed"


# --------------------------------------------------------------------------- the worker


class _LedgerLink:
    """The ledger a worker's client books into: the driver's, through the link (which
    books in the scope of the client the engine gave the item, so ``scope`` is not sent)."""

    def __init__(self, link: Link, ticket: int) -> None:
        self.link, self.ticket = link, ticket

    def record(self, *, role: str, stage: str, usage: Usage, cost_usd: float | None, cached: bool, truncated: bool = False,
               scope: str | None = None) -> None:
        self.link.call("record", self.ticket, role, stage, usage, cost_usd, cached, truncated)

    def record_attempt_failure(self, *, role: str, stage: str, scope: str | None = None) -> None:
        self.link.call("record_attempt_failure", self.ticket, role, stage)

    def record_failure(self, *, role: str, stage: str, scope: str | None = None) -> None:
        self.link.call("record_failure", self.ticket, role, stage)

    def abandon(self, *, role: str, stage: str, scope: str | None = None) -> None:
        self.link.call("abandon", self.ticket, role, stage)


class _CacheLink:
    """The call cache a worker's client reads and fills: the driver's, through the link."""

    def __init__(self, link: Link, ticket: int) -> None:
        self.link, self.ticket = link, ticket

    def get(self, key: str) -> Completion | None:
        found: Completion | None = self.link.call("cache_get", self.ticket, key)
        return found

    def put(self, key: str, identity: dict[str, Any], request: CompletionRequest, completion: Completion) -> None:
        self.link.call("cache_put", self.ticket, key, identity, request, completion)

    def close(self) -> None:
        """The cache is the driver's to close."""


class WorkerClient(ModelClient):
    """A :class:`ModelClient` on a worker, for one item: the backend runs here; the cache,
    the ledger and the run's in-flight slots are the driver's. A backend that serves a
    limited number of calls at once (the embedded model: one) is limited here, per worker,
    since each worker has its own copy."""

    def __init__(self, backend: Backend, *, link: Link, ticket: int, local_limit: contextlib.AbstractContextManager[Any] | None,
                 **options: Any) -> None:
        cache_mode = options.get("cache_mode", "read-write")
        options.pop("max_in_flight", None)
        # the links stand in for the driver's Ledger and CallCache (same methods, over the link)
        super().__init__(backend, ledger=_LedgerLink(link, ticket), cache=_CacheLink(link, ticket) if cache_mode != "off" else None,  # type: ignore[arg-type]
                         **options)
        self.link, self.ticket = link, ticket
        self.limiter = local_limit or contextlib.nullcontext()

    @contextlib.contextmanager
    def _reserved(self, label: str, scope: str | None = None) -> Iterator[None]:
        with self.limiter:
            self.link.call("reserve", self.ticket, self.role, label)  # the driver's slot and journaled reservation
            try:
                yield
            finally:
                self.link.post("release", self.ticket)


class WorkerRuntime:
    """One worker's env and backends, built once from a :class:`WorkerSpec`.

    ``where`` names the worker in errors (``Ray worker on HOST, pid N``). Construction
    raises :class:`~skillopt.api.EnvUnavailable` naming the worker when it cannot build
    what the run needs (a distribution missing or of another version, a key variable
    unset): the run stops with that line instead of failing item after item."""

    def __init__(self, spec: WorkerSpec, link: Link, *, where: str = "worker") -> None:
        self.spec, self.link, self.where = spec, link, where
        self._lock = threading.Lock()
        self._backends: dict[str, tuple[Any, dict[str, Any], Any]] = {}
        self._cancels: dict[int, threading.Event] = {}
        try:
            self._check_versions()
            self.cfg = self._config()
            self.env = self._env()
            for role in spec.backends:
                self._backend(role)
        except EnvUnavailable:
            raise
        except (SkillOptError, ImportError) as exc:
            raise EnvUnavailable(f"{where}: {exc}") from None

    def _check_versions(self) -> None:
        for dist, wanted in self.spec.versions.items():
            here = _version(dist)
            if here != wanted:
                raise EnvUnavailable(
                    f"{self.where} has {dist} {here}, the driver {wanted}: install the same distributions and versions "
                    "on the driver and on every worker"
                )

    def _config(self) -> RunConfig:
        from skillopt.config.schema import RunConfig
        from skillopt.serde import from_data

        data = dict(self.spec.config)
        data.pop("env", None)
        model = dict(data.get("model") or {})
        for role, name in self.spec.backends.items():
            model[role] = {**(model.get(role) or {}), "backend": name}
        return from_data({**data, "model": model}, RunConfig)

    def _env(self) -> Env:
        from skillopt.registry import get
        from skillopt.serde import from_data

        env_cls = get("envs", self.spec.env).obj
        env: Env = env_cls(from_data(self.spec.config.get("env") or {}, env_cls.Config))
        return env

    def _backend(self, role: str) -> tuple[Any, dict[str, Any], Any]:
        """(backend, client options, per-worker concurrency limit) of a role, built once."""
        from skillopt.engine.models import build_backend, client_options

        with self._lock:
            if role not in self._backends:
                backend, _ = build_backend(self.cfg, role)
                limit = type(backend).max_concurrency
                self._backends[role] = (backend, client_options(self.cfg, role, backend),
                                        threading.BoundedSemaphore(limit) if limit else None)
            return self._backends[role]

    def run(self, item: WorkItem) -> ItemOutcome:
        """Run one item here: the env gets a temporary folder, whose files come back in the
        outcome for the driver to write."""
        cancel = self._cancels[item.ticket] = threading.Event()
        try:
            backend, options, limit = self._backend(item.role)
            client = WorkerClient(backend, role=item.role, link=self.link, ticket=item.ticket, local_limit=limit,
                                  cancel=cancel, **options)
            model = client.for_stage(item.stage) if item.stage else client
            with tempfile.TemporaryDirectory(prefix="skillopt-item-") as tmp:
                workdir = Path(tmp) / "item"
                outcome = run_item(self.env, item, model, cancel=cancel, workdir=workdir)
                files = {p.relative_to(workdir).as_posix(): p.read_bytes() for p in sorted(workdir.rglob("*")) if p.is_file()}
            return attrs.evolve(outcome, files=files, error=travelling(outcome.error))
        finally:
            self._cancels.pop(item.ticket, None)

    def cancel(self, ticket: int) -> None:
        """The driver gave up on an item: its env and its calls see the cancel."""
        event = self._cancels.get(ticket)
        if event is not None:
            event.set()

    def close(self) -> None:
        self.env.close()
        for backend, _, _ in self._backends.values():
            backend.close()


def travelling(exc: BaseException | None) -> BaseException | None:
    """``exc`` fit to cross to the driver: an unexpected error keeps its traceback as
    ``remote_traceback`` (tracebacks do not travel), and one that cannot be pickled is
    replaced by a RuntimeError with its type, message and traceback."""
    if exc is None or isinstance(exc, SkillOptError):
        return exc
    import pickle
    import traceback

    trace = "".join(traceback.format_exception(exc))
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:  # noqa: BLE001 - any pickling problem: send a plain copy
        exc = RuntimeError(f"{type(exc).__name__}: {exc}")
    exc.remote_traceback = trace  # type: ignore[attr-defined]
    return exc


# --------------------------------------------------------------------------- the driver


class CallHost:
    """The driver's side of the workers' model calls: each ticket is routed to the client
    the engine gave that item, and served with its ledger and cache and the run's
    in-flight limit for the role (``model.ROLE.max_in_flight``: global across workers)."""

    #: operations that may wait (an in-flight slot): the transport runs them off its receiving thread
    BLOCKING = frozenset({"reserve"})

    def __init__(self, config: RunConfig | None = None) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._routes: dict[int, ModelClient] = {}
        self._scopes: dict[int, str | None] = {}
        self._held: dict[int, list[Any]] = {}
        self._closed = threading.Event()

    def route(self, ticket: int, model: Any) -> None:
        """Serve the calls of item ``ticket`` with ``model`` (the client the engine gave it,
        booked in its ledger scope when it names one)."""
        client = getattr(model, "client", model)  # a StageClient books through its client
        with self._lock:
            self._routes[ticket] = client
            self._scopes[ticket] = getattr(model, "scope", None)

    def forget(self, ticket: int) -> None:
        """The item is over (finished, abandoned or lost with its worker): free the slots it
        still holds; its late calls are refused."""
        with self._lock:
            self._routes.pop(ticket, None)
            self._scopes.pop(ticket, None)
            held = self._held.pop(ticket, [])
        for limiter in held:
            limiter.release()

    def close(self) -> None:
        """Refuse every further call (the run is over); waiting reservations give up."""
        self._closed.set()
        with self._lock:
            tickets = list(self._routes)
        for ticket in tickets:
            self.forget(ticket)

    def _client(self, ticket: int) -> ModelClient:
        with self._lock:
            client = self._routes.get(ticket)
        if client is None or self._closed.is_set():
            raise Cancelled("the driver no longer waits for this item")
        return client

    def _limiter(self, client: ModelClient, role: str) -> threading.BoundedSemaphore:
        from skillopt.calls.pipeline import shared_limiter
        from skillopt.engine.models import configured_in_flight

        if self.config is None:
            return cast(threading.BoundedSemaphore, client.limiter)  # a driver-side client's is a semaphore
        return shared_limiter(client.endpoint_key, configured_in_flight(self.config, role))

    def handle(self, op: str, ticket: int, *args: Any) -> Any:
        """Serve one operation of a worker's client (see :class:`WorkerClient`)."""
        client = self._client(ticket)
        ledger = client.ledger
        with self._lock:
            scope = self._scopes.get(ticket)
        if op == "reserve":
            return self._reserve(ticket, client, *args, scope=scope)
        if op == "release":
            with self._lock:
                held = self._held.get(ticket)
                limiter = held.pop() if held else None
            if limiter is not None:
                limiter.release()
            return None
        if op == "record":
            role, stage, usage, cost_usd, cached, truncated = args
            return ledger.record(role=role, stage=stage, usage=usage, cost_usd=cost_usd, cached=cached, truncated=truncated,
                                 scope=scope)
        if op == "record_attempt_failure":
            return ledger.record_attempt_failure(role=args[0], stage=args[1], scope=scope)
        if op == "record_failure":
            return ledger.record_failure(role=args[0], stage=args[1], scope=scope)
        if op == "abandon":
            return ledger.abandon(role=args[0], stage=args[1], scope=scope)
        if op == "cache_get":
            return client.cache.get(args[0]) if client.cache is not None else None
        if op == "cache_put":
            if client.cache is not None:
                client.cache.put(*args)
            return None
        raise ValueError(f"unknown call-host operation {op!r}")

    def _reserve(self, ticket: int, client: ModelClient, role: str, stage: str, *, scope: str | None = None) -> None:
        limiter = self._limiter(client, role)
        while not limiter.acquire(timeout=0.2):
            self._client(ticket)  # raises once the item or the run is over
        try:
            self._client(ticket)
            client.ledger.begin(role=role, stage=stage, scope=scope)  # journaled before the worker sends it
        except BaseException:
            limiter.release()
            raise
        with self._lock:
            if ticket in self._routes:
                self._held.setdefault(ticket, []).append(limiter)
                return None
        limiter.release()  # forgotten meanwhile
        raise Cancelled("the driver no longer waits for this item")


__all__ = ["CallHost", "Link", "WorkerClient", "WorkerRuntime", "WorkerSpec", "travelling"]
