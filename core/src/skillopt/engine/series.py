"""One config trained under several seeds (``skillopt run --seeds 1,2,3``).

A lift measured on one seed mixes the skill's effect with the luck of that seed's batch
order and sampling. A series runs the same config once per seed, each in its own run
directory (``<out>/seed-<N>``, resumable like any run), and reports the test lift with
an interval that spans seeds and items (:func:`skillopt.engine.lift.bootstrap_lift`).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skillopt.errors import ConfigError
from skillopt.results import RunStatus, SeedRun, SeedsSummary

if TYPE_CHECKING:
    from collections.abc import Callable


def parse_seeds(text: str) -> tuple[int, ...]:
    """``"1,2,3"`` → (1, 2, 3); duplicates and non-integers are refused by name."""
    try:
        seeds = tuple(int(part) for part in text.replace(" ", "").split(",") if part)
    except ValueError:
        raise ConfigError(f"--seeds takes integers separated by commas (e.g. 1,2,3), not {text!r}") from None
    if not seeds:
        raise ConfigError("--seeds needs at least one seed (e.g. --seeds 1,2,3)")
    if len(set(seeds)) != len(seeds):
        raise ConfigError(f"--seeds lists a seed twice: {text}")
    return seeds


def train_series(*, config_file: Path | None, assignments: list[str], flags: dict[str, Any], seeds: tuple[int, ...],
                 force_config: bool = False, say: Callable[[str], None] | None = None, cfg_options: tuple[str, ...] = ()) -> SeedsSummary:
    """Train every seed in turn (a finished seed is not run again), then the pooled lift."""
    from skillopt.engine.lift import bootstrap_lift, describe
    from skillopt.engine.rundir import write_json
    from skillopt.engine.session import default_out_dir, open_session
    from skillopt.engine.stages.final_eval import saved_item_lift
    from skillopt.serde import to_data

    if "train.seed" in flags or any(a.split("=", 1)[0].strip() == "train.seed" for a in assignments):
        raise ConfigError("--seeds sets train.seed for each run: drop --seed / --set train.seed")
    first = open_session(config_file=config_file, assignments=assignments, flags=dict(flags, **{"train.seed": seeds[0]}),
                         cfg_options=cfg_options)
    base = Path(first.cfg.out_dir).expanduser() if first.cfg.out_dir else default_out_dir(first.cfg)
    runs, groups = [], []
    for seed in seeds:
        out = base / f"seed-{seed}"
        if say:
            say(f"[bold]seed {seed}[/bold] ({seeds.index(seed) + 1} of {len(seeds)}): {out}")
        session = open_session(config_file=config_file, assignments=assignments,
                               flags=dict(flags, **{"train.seed": seed, "out_dir": str(out)}), cfg_options=cfg_options)
        summary = session.train(force_config=force_config)
        runs.append(SeedRun(seed=seed, out_dir=str(out), status=summary.status, test_lift=summary.test_lift))
        item_lift = saved_item_lift(out)
        if summary.status is RunStatus.FINISHED and item_lift:
            groups.append(list(item_lift.values()))
    lift = bootstrap_lift(groups, seed=seeds[0]) if len(groups) == len(seeds) else None
    result = SeedsSummary(env=first.cfg.env.name, runs=tuple(runs), test_lift=lift, finished_at=time.strftime("%Y-%m-%dT%H:%M:%S%z"))
    write_json(base / "seeds_summary.json", to_data(result))
    if say:
        ended = ", ".join(f"seed {r.seed}: {r.status.value}" for r in runs)
        say(f"seeds done ({ended}); test hard " + (describe(lift) if lift else "lift not measured (a seed did not finish)")
            + f"; {base / 'seeds_summary.json'}")
    return result
