"""Running an A/B comparison: every task of a fixed manifest, under skill A and skill
B, with the same seeds, through the night's replay and judges.

An attempt that errs (the backend failed, an empty reply) is missing data, never a
fail: its (task, seed) pair is left out of both arms and counted, so a flaky endpoint
cannot decide the comparison.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import attrs

from skillopt_sleep.ab.stats import BootstrapCI, McNemar, discordant, mcnemar_exact, paired_bootstrap
from skillopt_sleep.documents import Doc
from skillopt_sleep.mine.tasks import SleepTask


@attrs.frozen(kw_only=True)
class PairedOutcome:
    """One task under one seed: did A pass (hard score 1), did B pass."""

    task: str
    seed: int
    a: int
    b: int


@attrs.frozen(kw_only=True)
class SeedTest:
    seed: int
    mcnemar: McNemar


@attrs.frozen(kw_only=True)
class ABResult:
    """Everything the comparison found; ``pairs`` lets anyone recompute the figures."""

    skill_a: str
    skill_b: str
    memory: str
    tasks: int
    seeds: tuple[int, ...]
    pairs: tuple[PairedOutcome, ...]
    #: B − A success rate over tasks (each task averaged over its seeds) and its interval
    bootstrap: BootstrapCI | None
    #: all (task, seed) pairs pooled; with several seeds they are not independent, so the
    #: per-seed tests and the task-level interval are the ones to lean on
    mcnemar: McNemar
    per_seed: tuple[SeedTest, ...] = ()
    rate_a: float | None = None
    rate_b: float | None = None
    #: (task, seed) pairs left out because an attempt in either arm had no answer
    missing: int = 0
    #: a line for people: which arm is better, and whether the data can tell
    verdict: str = ""


def load_doc(path: Path, role: str) -> Doc:
    from skillopt.api import ConfigError

    path = Path(path).expanduser()
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise ConfigError(f"cannot read the {role} file {path}: {exc.strerror or exc}") from None
    kind = "skill" if role.startswith("skill") else "memory"
    return Doc(role=kind, path=path, original=raw, text=raw.decode("utf-8", "replace"))


def compare(
    tasks: Sequence[SleepTask],
    docs_a: Sequence[Doc],
    docs_b: Sequence[Doc],
    clients,
    *,
    seeds: int = 3,
    base_seed: int = 42,
    confidence: float = 0.95,
    resamples: int = 10_000,
    workers: int = 4,
    project_name: str = "",
    on_progress=None,
) -> ABResult:
    from skillopt_sleep.replay import replay

    if not tasks:
        from skillopt.api import ConfigError

        raise ConfigError("the task manifest holds no task")
    outcome: dict[tuple[str, str, int], int | None] = {}
    for arm, docs in (("a", docs_a), ("b", docs_b)):
        for s in range(seeds):
            result = replay(
                tasks, docs, clients.target, clients.optimizer, phase=f"ab-{arm}-seed{s}", seed=base_seed, salt=s,
                project_name=project_name, workers=workers,
            )  # fmt: skip
            for attempt in result.attempts:
                outcome[(arm, attempt.task_id, s)] = int(attempt.hard >= 1.0) if attempt.status == "ok" else None
            if on_progress is not None:
                on_progress(arm, s)
    pairs, missing = [], 0
    for task in tasks:
        for s in range(seeds):
            a, b = outcome.get(("a", task.id, s)), outcome.get(("b", task.id, s))
            if a is None or b is None:
                missing += 1
                continue
            pairs.append(PairedOutcome(task=task.id, seed=s, a=a, b=b))
    return summarise(pairs, seeds=seeds, missing=missing, confidence=confidence, resamples=resamples,
                     skill_a=str(docs_a[0].path), skill_b=str(docs_b[0].path),
                     memory=next((str(d.path) for d in docs_a if d.role == "memory"), ""))  # fmt: skip


def summarise(
    pairs: Sequence[PairedOutcome],
    *,
    seeds: int,
    missing: int = 0,
    confidence: float = 0.95,
    resamples: int = 10_000,
    skill_a: str = "",
    skill_b: str = "",
    memory: str = "",
) -> ABResult:
    """The statistics of paired outcomes (the part of :func:`compare` after replay)."""
    by_task: dict[str, tuple[list[int], list[int]]] = {}
    for p in pairs:
        runs = by_task.setdefault(p.task, ([], []))
        runs[0].append(p.a)
        runs[1].append(p.b)
    bootstrap = paired_bootstrap(list(by_task.values()), confidence=confidence, resamples=resamples) if by_task else None
    pooled = mcnemar_exact(*discordant((p.a, p.b) for p in pairs))
    per_seed = tuple(
        SeedTest(seed=s, mcnemar=mcnemar_exact(*discordant((p.a, p.b) for p in pairs if p.seed == s))) for s in range(seeds)
    )
    return ABResult(
        skill_a=skill_a,
        skill_b=skill_b,
        memory=memory,
        tasks=len(by_task),
        seeds=tuple(range(seeds)),
        pairs=tuple(pairs),
        bootstrap=bootstrap,
        mcnemar=pooled,
        per_seed=per_seed,
        rate_a=_rate(by_task, 0),
        rate_b=_rate(by_task, 1),
        missing=missing,
        verdict=verdict(bootstrap, pooled),
    )


def _rate(by_task: dict[str, tuple[list[int], list[int]]], arm: int) -> float | None:
    """An arm's success rate over tasks, each task averaged over its seeds."""
    if not by_task:
        return None
    return sum(sum(runs[arm]) / len(runs[arm]) for runs in by_task.values()) / len(by_task)


def verdict(ci: BootstrapCI | None, test: McNemar) -> str:
    if ci is None:
        return "no task was answered in both arms; nothing can be said"
    level = f"{ci.confidence:.0%}"
    shown = f"{level} CI {ci.low:+.3f} to {ci.high:+.3f}; McNemar p={test.p_value:.3g}"
    if ci.low > 0:
        return f"B is better: +{ci.difference:.3f} success rate ({shown})"
    if ci.high < 0:
        return f"A is better: {ci.difference:.3f} success rate ({shown})"
    return (
        f"no difference shown: {ci.difference:+.3f} success rate, {level} CI {ci.low:+.3f} to {ci.high:+.3f} includes 0 "
        f"(McNemar p={test.p_value:.3g}); more tasks or seeds would narrow it"
    )
