"""Options shared by ``run``, ``eval`` and ``config show``, and their mapping to config keys."""

from pathlib import Path
from typing import Annotated, Any

import typer

EnvOpt = Annotated[str | None, typer.Option("--env", "-e", help="Benchmark env to use (see `skillopt envs`).")]
ConfigOpt = Annotated[Path | None, typer.Option("--config", "-c", help="TOML config file.", exists=False)]
CfgOptionsOpt = Annotated[list[str] | None, typer.Option("--cfg-options", help="Upstream-style key=value overrides of a YAML --config: several pairs after one flag, as upstream (or repeat the flag).")]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", help="Override any key: --set section.key=value (typed; lists as [a,b]; null)."),
]
OutOpt = Annotated[Path | None, typer.Option("--out", "-o", help="Run directory (re-run the same command to resume).")]
BackendOpt = Annotated[str | None, typer.Option("--backend", "-b", help="Backend for both roles (see `skillopt backends`).")]
OptBackendOpt = Annotated[str | None, typer.Option("--optimizer-backend", help="Backend of the optimizer role.")]
TgtBackendOpt = Annotated[str | None, typer.Option("--target-backend", help="Backend of the target role.")]
ModelOpt = Annotated[str | None, typer.Option("--model", "-m", help="Model for both roles.")]
OptModelOpt = Annotated[str | None, typer.Option("--optimizer-model", help="Model of the optimizer role.")]
TgtModelOpt = Annotated[str | None, typer.Option("--target-model", help="Model of the target role.")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="Base URL for OpenAI-compatible servers.")]
PresetOpt = Annotated[str | None, typer.Option("--preset", help="Env preset: 'small' (quick local run) or 'paper'.")]
EpochsOpt = Annotated[int | None, typer.Option("--epochs", help="train.num_epochs")]
BatchOpt = Annotated[int | None, typer.Option("--batch-size", help="train.batch_size")]
SeedOpt = Annotated[int | None, typer.Option("--seed", help="train.seed")]
SeedsOpt = Annotated[str | None, typer.Option("--seeds", help="Run once per seed (e.g. 1,2,3) into OUT/seed-N; the test lift's interval spans seeds.")]
LrOpt = Annotated[int | None, typer.Option("--learning-rate", "--lr", help="optimizer.learning_rate (max edits per step)")]
ModeOpt = Annotated[str | None, typer.Option("--update-mode", help="optimizer.skill_update_mode: patch, rewrite, full-rewrite")]
GateOpt = Annotated[str | None, typer.Option("--gate", help="evaluation.gate: strict, paired, ...")]
NoGateOpt = Annotated[bool, typer.Option("--no-gate", help="Force-accept every candidate (changes the experiment).")]
LimitOpt = Annotated[int | None, typer.Option("--limit", help="env.limit: first N items of each split.")]
MaxCostOpt = Annotated[float | None, typer.Option("--max-cost", help="Stop cleanly once this many USD are spent.")]
MaxCallsOpt = Annotated[int | None, typer.Option("--max-calls", help="Stop cleanly after this many paid model calls.")]
MaxTokensOpt = Annotated[int | None, typer.Option("--max-tokens", help="Stop cleanly after this many tokens.")]
NoCacheOpt = Annotated[bool, typer.Option("--no-cache", help="Do not read or write the call cache.")]
ReplayOpt = Annotated[bool, typer.Option("--replay", help="Answer only from the call cache; a miss is an error.")]
IgnoreRejectedOpt = Annotated[bool, typer.Option("--ignore-rejected", help="Start without earlier runs' rejected candidates (optimizer.ignore_rejected).")]
ForceOpt = Annotated[bool, typer.Option("--force-config", help="Resume even though the config changed.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print the summary as JSON on stdout.")]


def flag_values(**kw: Any) -> dict[str, Any]:
    """Translate first-class flags into dotted config keys (None = not given)."""
    flags: dict[str, Any] = {
        "env.name": kw.get("env"),
        "model.backend": kw.get("backend"),
        "model.optimizer.backend": kw.get("optimizer_backend"),
        "model.target.backend": kw.get("target_backend"),
        "model.model": kw.get("model"),
        "model.optimizer.model": kw.get("optimizer_model"),
        "model.target.model": kw.get("target_model"),
        "model.base_url": kw.get("base_url"),
        "train.num_epochs": kw.get("epochs"),
        "train.batch_size": kw.get("batch_size"),
        "train.seed": kw.get("seed"),
        "optimizer.learning_rate": kw.get("learning_rate"),
        "optimizer.skill_update_mode": kw.get("update_mode"),
        "evaluation.gate": kw.get("gate"),
        "env.limit": kw.get("limit"),
        "budget.max_cost_usd": kw.get("max_cost"),
        "budget.max_calls": kw.get("max_calls"),
        "budget.max_tokens": kw.get("max_tokens"),
        "out_dir": str(kw["out"]) if kw.get("out") else None,
        "preset": kw.get("preset"),
    }
    if kw.get("no_gate"):
        flags["evaluation.use_gate"] = False
    if kw.get("ignore_rejected"):
        flags["optimizer.ignore_rejected"] = True
    if kw.get("no_cache"):
        flags["model.cache"] = "off"
    if kw.get("replay"):
        flags["model.cache"] = "replay"
    return {k: v for k, v in flags.items() if v is not None}
