"""``skillopt run`` and ``skillopt eval``."""

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from skillopt.cli.options import (
    BackendOpt,
    BaseUrlOpt,
    BatchOpt,
    CfgOptionsOpt,
    ConfigOpt,
    EnvOpt,
    EpochsOpt,
    ForceOpt,
    GateOpt,
    IgnoreRejectedOpt,
    JsonOpt,
    LimitOpt,
    LrOpt,
    MaxCallsOpt,
    MaxCostOpt,
    MaxTokensOpt,
    ModelOpt,
    ModeOpt,
    NoCacheOpt,
    NoGateOpt,
    OptBackendOpt,
    OptModelOpt,
    OutOpt,
    PresetOpt,
    ReplayOpt,
    SeedOpt,
    SeedsOpt,
    SetOpt,
    TgtBackendOpt,
    TgtModelOpt,
    flag_values,
)
from skillopt.cli.output import fail, print_json

if TYPE_CHECKING:
    from collections.abc import Callable

    from skillopt.results import RunStatus, RunSummary, SeedsSummary

T = TypeVar("T")


def run(
    env: EnvOpt = None,
    config: ConfigOpt = None,
    cfg_options: CfgOptionsOpt = None,
    set_: SetOpt = None,
    out: OutOpt = None,
    backend: BackendOpt = None,
    optimizer_backend: OptBackendOpt = None,
    target_backend: TgtBackendOpt = None,
    model: ModelOpt = None,
    optimizer_model: OptModelOpt = None,
    target_model: TgtModelOpt = None,
    base_url: BaseUrlOpt = None,
    preset: PresetOpt = None,
    epochs: EpochsOpt = None,
    batch_size: BatchOpt = None,
    seed: SeedOpt = None,
    seeds: SeedsOpt = None,
    learning_rate: LrOpt = None,
    update_mode: ModeOpt = None,
    gate: GateOpt = None,
    no_gate: NoGateOpt = False,
    limit: LimitOpt = None,
    max_cost: MaxCostOpt = None,
    max_calls: MaxCallsOpt = None,
    max_tokens: MaxTokensOpt = None,
    no_cache: NoCacheOpt = False,
    replay: ReplayOpt = False,
    ignore_rejected: IgnoreRejectedOpt = False,
    force_config: ForceOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Train a skill on an env: rollout, reflect, edit, gate; resumes when --out exists."""
    flags = flag_values(**locals())
    options = tuple(cfg_options or ())
    summary: RunSummary | SeedsSummary
    if seeds is not None:
        summary = _training(lambda: _series(config, set_ or [], flags, seeds, force_config, options))
        codes = [exit_code_of(r.status) for r in summary.runs]
        code = next((c for c in codes if c), 0)
    else:
        summary = _training(lambda: _single(config, set_ or [], flags, force_config, options))
        code = summary.exit_code
    if as_json:
        from skillopt.serde import to_data

        print_json(to_data(summary))
    if code:
        raise typer.Exit(code)


def exit_code_of(status: "RunStatus") -> int:
    from skillopt.results import EXIT_CODES

    return EXIT_CODES.get(status, 1)


def _training(train: "Callable[[], T]") -> T:
    """Run ``train()``; an interrupt or a SkillOpt error becomes one line and an exit code."""
    from skillopt.errors import SkillOptError

    try:
        return train()
    except KeyboardInterrupt:
        raise fail("interrupted; re-run the same command (same --out) to resume", code=130) from None
    except SkillOptError as exc:
        raise fail(str(exc)) from None


def _single(config: Path | None, assignments: list[str], flags: dict[str, Any], force_config: bool,
            cfg_options: tuple[str, ...]) -> "RunSummary":
    from skillopt.engine.session import open_session

    session = open_session(config_file=config, assignments=assignments, flags=flags, cfg_options=cfg_options)
    return session.train(force_config=force_config)


def _series(config: Path | None, assignments: list[str], flags: dict[str, Any], seeds_text: str, force_config: bool,
            cfg_options: tuple[str, ...]) -> "SeedsSummary":
    from skillopt.cli.output import info
    from skillopt.engine.series import parse_seeds, train_series

    return train_series(config_file=config, assignments=assignments, flags=flags, seeds=parse_seeds(seeds_text),
                        force_config=force_config, say=info, cfg_options=cfg_options)


SkillOpt = Annotated[Path, typer.Option("--skill", help="Skill to evaluate: a file, or an Agent Skills folder (SKILL.md, references/, scripts/).")]
SplitOpt = Annotated[str, typer.Option("--split", help="train, val or test (upstream's valid_seen = val, valid_unseen = test).")]
RepeatsOpt = Annotated[int, typer.Option("--repeats", help="Rollouts per item (stochastic targets).")]


def eval_(
    skill: SkillOpt,
    env: EnvOpt = None,
    split: SplitOpt = "test",
    config: ConfigOpt = None,
    cfg_options: CfgOptionsOpt = None,
    set_: SetOpt = None,
    out: OutOpt = None,
    backend: BackendOpt = None,
    target_backend: TgtBackendOpt = None,
    model: ModelOpt = None,
    target_model: TgtModelOpt = None,
    base_url: BaseUrlOpt = None,
    preset: PresetOpt = None,
    limit: LimitOpt = None,
    repeats: RepeatsOpt = 1,
    no_cache: NoCacheOpt = False,
    replay: ReplayOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Evaluate one skill file on a split, without training."""
    from skillopt.engine.session import open_session
    from skillopt.errors import SkillOptError

    flags = flag_values(**locals())
    try:
        from skillopt.envs import read_skill

        text = read_skill(skill, "--skill")
        session = open_session(config_file=config, assignments=set_ or [], flags=flags, for_eval=True,
                               cfg_options=tuple(cfg_options or ()))
        summary = session.evaluate(text, split=split, repeats=repeats, skill_path=str(skill))
    except KeyboardInterrupt:
        raise fail("interrupted", code=130) from None
    except SkillOptError as exc:
        raise fail(str(exc)) from None
    if as_json:
        print_json(summary)
