"""The public API of SkillOpt: the one module plugins import.

Everything a plugin needs is here: the base class of each plugin kind, the records
they receive and return, the errors they raise, and the helpers that keep a plugin
small. Every other module of ``skillopt`` is private and may change in any release; a
test fails when a bundled plugin imports one. The reference of every name is
``docs/api.md`` (generated from these classes).

Names load on first use, so ``from skillopt.api import hookimpl`` in a command plugin
(imported at every CLI start) costs no more than the name itself.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

#: public name -> "module:attribute", grouped as in docs/api.md
_GROUPS: dict[str, dict[str, str]] = {
    "Plugin hooks": {
        "hookimpl": "skillopt.hookspecs:hookimpl",
        "Register": "skillopt.hookspecs:Register",
    },
    "Envs": {
        "Env": "skillopt.envs:Env",
        "EnvConfig": "skillopt.config.schema:EnvConfig",
        "RolloutContext": "skillopt.envs:RolloutContext",
        "ChatModel": "skillopt.envs:ChatModel",
        "DataSource": "skillopt.envs:DataSource",
        "small_preset": "skillopt.config.presets:small_preset",
        "SMALL_LOCAL": "skillopt.config.presets:SMALL_LOCAL",
        "chat_request": "skillopt.envs:chat_request",
        "read_items": "skillopt.envs:read_items",
        "read_rows": "skillopt.envs:read_rows",
        "split_file": "skillopt.envs:split_file",
        "canonical_split": "skillopt.envs:canonical_split",
        "SPLITS": "skillopt.envs:SPLITS",
    },
    "Multi-turn envs": {
        "Tool": "skillopt.toolloop:Tool",
        "ToolCall": "skillopt.toolloop:ToolCall",
        "ToolLoopResult": "skillopt.toolloop:ToolLoopResult",
        "run_tool_loop": "skillopt.toolloop:run_tool_loop",
        "protocol_text": "skillopt.toolloop:protocol_text",
        "parse_reply": "skillopt.toolloop:parse_reply",
    },
    "Backends": {
        "Backend": "skillopt.backends:Backend",
        "BackendSettings": "skillopt.backends:BackendSettings",
        "register_secret": "skillopt.redact:register_secret",
        "get_key": "skillopt.keys:get_key",
        "stored_keys": "skillopt.keys:stored_keys",
        "role_env_family": "skillopt.config.environ:role_family",
        "env_lookup": "skillopt.config.environ:lookup",
    },
    "Gates": {
        "Gate": "skillopt.gates:Gate",
        "Evaluation": "skillopt.gates:Evaluation",
        "Look": "skillopt.gates:Look",
        "metric_of": "skillopt.gates:metric_of",
        "EvaluationConfig": "skillopt.config.schema:EvaluationConfig",
    },
    "Edit policies": {
        "EditPolicy": "skillopt.policies:EditPolicy",
        "OptimizerContext": "skillopt.policies:OptimizerContext",
        "PatchPolicy": "skillopt.policies.patch:PatchPolicy",
        "apply_edits": "skillopt.skilldoc:apply_edits",
        "get_block": "skillopt.skilldoc:get_block",
        "set_block": "skillopt.skilldoc:set_block",
        "normalise_skill": "skillopt.skilldoc:normalise",
    },
    "Search strategies": {
        "Strategy": "skillopt.strategies:Strategy",
        "PoolMember": "skillopt.strategies:PoolMember",
        "Sampler": "skillopt.strategies:Sampler",
    },
    "Folder skills": {
        "SkillFolder": "skillopt.skillfolder:SkillFolder",
        "SkillFile": "skillopt.records:SkillFile",
        "is_skill_folder": "skillopt.skillfolder:is_folder",
        "skill_of": "skillopt.skillfolder:skill_of",
        "SingleFile": "skillopt.skillfolder:SingleFile",
        "render_inline": "skillopt.skillfolder:render_inline",
        "render_installed": "skillopt.skillfolder:render_installed",
    },
    "Harvesters": {
        "Harvester": "skillopt.harvesters:Harvester",
        "Session": "skillopt.records:Session",
    },
    "Executors": {
        "Executor": "skillopt.executors:Executor",
        "ExecutorJob": "skillopt.executors:ExecutorJob",
        "WorkItem": "skillopt.executors:WorkItem",
        "ItemOutcome": "skillopt.executors:ItemOutcome",
        "run_item": "skillopt.executors:run_item",
        "new_ticket": "skillopt.executors:new_ticket",
        "EngineConfig": "skillopt.config.schema:EngineConfig",
        "WorkerSpec": "skillopt.executors.remote:WorkerSpec",
        "WorkerRuntime": "skillopt.executors.remote:WorkerRuntime",
        "CallHost": "skillopt.executors.remote:CallHost",
    },
    "Observers": {
        "RunInfo": "skillopt.engine.observers:RunInfo",
        "RunSummary": "skillopt.results:RunSummary",
        "RunStatus": "skillopt.results:RunStatus",
        "SplitScore": "skillopt.results:SplitScore",
        "Lift": "skillopt.results:Lift",
        "SeedsSummary": "skillopt.results:SeedsSummary",
        "SeedRun": "skillopt.results:SeedRun",
        "step_metrics": "skillopt.engine.tracking:step_metrics",
        "summary_metrics": "skillopt.engine.tracking:summary_metrics",
        "summary_tags": "skillopt.engine.tracking:summary_tags",
        "FinalPick": "skillopt.results:FinalPick",
        "flat_params": "skillopt.engine.tracking:flat_params",
        "tracker_memory": "skillopt.engine.tracking:tracker_memory",
        "remember": "skillopt.engine.tracking:remember",
    },
    "Records": {
        "Task": "skillopt.records:Task",
        "Score": "skillopt.records:Score",
        "Rollout": "skillopt.records:Rollout",
        "Turn": "skillopt.records:Turn",
        "TurnKind": "skillopt.records:TurnKind",
        "Message": "skillopt.records:Message",
        "CompletionRequest": "skillopt.records:CompletionRequest",
        "Completion": "skillopt.records:Completion",
        "Usage": "skillopt.records:Usage",
        "Edit": "skillopt.records:Edit",
        "EditResult": "skillopt.records:EditResult",
        "Suggestion": "skillopt.records:Suggestion",
        "Patch": "skillopt.records:Patch",
        "Verdict": "skillopt.records:Verdict",
        "GateAction": "skillopt.records:GateAction",
        "StepRecord": "skillopt.records:StepRecord",
        "StepAction": "skillopt.records:StepAction",
        "skill_hash": "skillopt.records:skill_hash",
    },
    "Errors": {
        "SkillOptError": "skillopt.errors:SkillOptError",
        "ConfigError": "skillopt.errors:ConfigError",
        "PluginError": "skillopt.errors:PluginError",
        "EnvUnavailable": "skillopt.errors:EnvUnavailable",
        "BackendError": "skillopt.errors:BackendError",
        "AuthError": "skillopt.errors:AuthError",
        "BadRequestError": "skillopt.errors:BadRequestError",
        "ContextLengthError": "skillopt.errors:ContextLengthError",
        "RateLimitError": "skillopt.errors:RateLimitError",
        "TransientError": "skillopt.errors:TransientError",
        "CallTimeout": "skillopt.errors:CallTimeout",
        "SchemaError": "skillopt.errors:SchemaError",
        "CacheMiss": "skillopt.errors:CacheMiss",
        "WorkerLost": "skillopt.errors:WorkerLost",
        "BudgetExceeded": "skillopt.errors:BudgetExceeded",
        "Cancelled": "skillopt.errors:Cancelled",
        "AwaitingAnswer": "skillopt.errors:AwaitingAnswer",
    },
    "Reporting, files and runs": {
        "say": "skillopt.report:say",
        "warn": "skillopt.report:warn",
        "set_reporter": "skillopt.report:set_reporter",
        "RichReporter": "skillopt.engine.progress:RichReporter",
        "NullReporter": "skillopt.engine.progress:NullReporter",
        "fail": "skillopt.cli.output:fail",
        "print_json": "skillopt.cli.output:print_json",
        "write_atomic": "skillopt.fsio:write_atomic",
        "replace_dir": "skillopt.fsio:replace_dir",
        "find_run": "skillopt.runstore:find_run",
        "is_run_dir": "skillopt.runstore:is_run_dir",
        "data_dir": "skillopt.paths:data_dir",
        "cache_dir": "skillopt.paths:cache_dir",
        "state_dir": "skillopt.paths:state_dir",
        "config_dir": "skillopt.paths:config_dir",
        "redact_text": "skillopt.redact:redact_text",
        "redact_data": "skillopt.redact:redact_data",
        "MASK": "skillopt.redact:MASK",
        "to_data": "skillopt.serde:to_data",
        "from_data": "skillopt.serde:from_data",
        "get_component": "skillopt.registry:get",
        "load_components": "skillopt.registry:load_components",
        "pid_alive": "skillopt.engine.lock:pid_alive",
    },
    "Driving the engine (applications such as sleep)": {
        "train": "skillopt.training:train",
        "RunConfig": "skillopt.config.schema:RunConfig",
        "ModelConfig": "skillopt.config.schema:ModelConfig",
        "RoleConfig": "skillopt.config.schema:RoleConfig",
        "Ledger": "skillopt.calls:Ledger",
        "ModelClient": "skillopt.calls:ModelClient",
        "build_clients": "skillopt.engine.models:build_clients",
        "backend_for_role": "skillopt.engine.models:backend_name",
        "ScriptedBackend": "skillopt.scripted:ScriptedBackend",
        "minimal_instance": "skillopt.scripted:minimal_instance",
    },
}

_WHERE: dict[str, str] = {name: target for group in _GROUPS.values() for name, target in group.items()}

__all__ = sorted(_WHERE)


def __getattr__(name: str) -> Any:
    target = _WHERE.get(name)
    if target is None:
        raise AttributeError(f"skillopt.api has no {name!r}; public names are listed in docs/api.md")
    module, _, attr = target.partition(":")
    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value  # later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return __all__


def groups() -> dict[str, dict[str, str]]:
    """The public names by section (for ``docs/api.md``)."""
    return {title: dict(names) for title, names in _GROUPS.items()}


if TYPE_CHECKING:  # generated by `python -m skillopt.api_gen` from _GROUPS; do not edit by hand
    from skillopt.backends import Backend as Backend, BackendSettings as BackendSettings
    from skillopt.calls import Ledger as Ledger, ModelClient as ModelClient
    from skillopt.cli.output import fail as fail, print_json as print_json
    from skillopt.config.environ import lookup as env_lookup, role_family as role_env_family
    from skillopt.config.presets import SMALL_LOCAL as SMALL_LOCAL, small_preset as small_preset
    from skillopt.config.schema import (
        EngineConfig as EngineConfig,
        EnvConfig as EnvConfig,
        EvaluationConfig as EvaluationConfig,
        ModelConfig as ModelConfig,
        RoleConfig as RoleConfig,
        RunConfig as RunConfig,
    )
    from skillopt.engine.lock import pid_alive as pid_alive
    from skillopt.engine.models import backend_name as backend_for_role, build_clients as build_clients
    from skillopt.engine.observers import RunInfo as RunInfo
    from skillopt.engine.progress import NullReporter as NullReporter, RichReporter as RichReporter
    from skillopt.engine.tracking import (
        flat_params as flat_params,
        remember as remember,
        step_metrics as step_metrics,
        summary_metrics as summary_metrics,
        summary_tags as summary_tags,
        tracker_memory as tracker_memory,
    )
    from skillopt.envs import (
        SPLITS as SPLITS,
        ChatModel as ChatModel,
        DataSource as DataSource,
        Env as Env,
        RolloutContext as RolloutContext,
        canonical_split as canonical_split,
        chat_request as chat_request,
        read_items as read_items,
        read_rows as read_rows,
        split_file as split_file,
    )
    from skillopt.errors import (
        AuthError as AuthError,
        AwaitingAnswer as AwaitingAnswer,
        BackendError as BackendError,
        BadRequestError as BadRequestError,
        BudgetExceeded as BudgetExceeded,
        CacheMiss as CacheMiss,
        CallTimeout as CallTimeout,
        Cancelled as Cancelled,
        ConfigError as ConfigError,
        ContextLengthError as ContextLengthError,
        EnvUnavailable as EnvUnavailable,
        PluginError as PluginError,
        RateLimitError as RateLimitError,
        SchemaError as SchemaError,
        SkillOptError as SkillOptError,
        TransientError as TransientError,
        WorkerLost as WorkerLost,
    )
    from skillopt.executors import (
        Executor as Executor,
        ExecutorJob as ExecutorJob,
        ItemOutcome as ItemOutcome,
        WorkItem as WorkItem,
        new_ticket as new_ticket,
        run_item as run_item,
    )
    from skillopt.executors.remote import CallHost as CallHost, WorkerRuntime as WorkerRuntime, WorkerSpec as WorkerSpec
    from skillopt.fsio import replace_dir as replace_dir, write_atomic as write_atomic
    from skillopt.gates import Evaluation as Evaluation, Gate as Gate, Look as Look, metric_of as metric_of
    from skillopt.harvesters import Harvester as Harvester
    from skillopt.hookspecs import Register as Register, hookimpl as hookimpl
    from skillopt.keys import get_key as get_key, stored_keys as stored_keys
    from skillopt.paths import cache_dir as cache_dir, config_dir as config_dir, data_dir as data_dir, state_dir as state_dir
    from skillopt.policies import EditPolicy as EditPolicy, OptimizerContext as OptimizerContext
    from skillopt.policies.patch import PatchPolicy as PatchPolicy
    from skillopt.records import (
        Completion as Completion,
        CompletionRequest as CompletionRequest,
        Edit as Edit,
        EditResult as EditResult,
        GateAction as GateAction,
        Message as Message,
        Patch as Patch,
        Rollout as Rollout,
        Score as Score,
        Session as Session,
        SkillFile as SkillFile,
        StepAction as StepAction,
        StepRecord as StepRecord,
        Suggestion as Suggestion,
        Task as Task,
        Turn as Turn,
        TurnKind as TurnKind,
        Usage as Usage,
        Verdict as Verdict,
        skill_hash as skill_hash,
    )
    from skillopt.redact import (
        MASK as MASK,
        redact_data as redact_data,
        redact_text as redact_text,
        register_secret as register_secret,
    )
    from skillopt.registry import get as get_component, load_components as load_components
    from skillopt.report import say as say, set_reporter as set_reporter, warn as warn
    from skillopt.results import (
        FinalPick as FinalPick,
        Lift as Lift,
        RunStatus as RunStatus,
        RunSummary as RunSummary,
        SeedRun as SeedRun,
        SeedsSummary as SeedsSummary,
        SplitScore as SplitScore,
    )
    from skillopt.runstore import find_run as find_run, is_run_dir as is_run_dir
    from skillopt.scripted import ScriptedBackend as ScriptedBackend, minimal_instance as minimal_instance
    from skillopt.serde import from_data as from_data, to_data as to_data
    from skillopt.skilldoc import (
        apply_edits as apply_edits,
        get_block as get_block,
        normalise as normalise_skill,
        set_block as set_block,
    )
    from skillopt.skillfolder import (
        SingleFile as SingleFile,
        SkillFolder as SkillFolder,
        is_folder as is_skill_folder,
        render_inline as render_inline,
        render_installed as render_installed,
        skill_of as skill_of,
    )
    from skillopt.strategies import PoolMember as PoolMember, Sampler as Sampler, Strategy as Strategy
    from skillopt.toolloop import (
        Tool as Tool,
        ToolCall as ToolCall,
        ToolLoopResult as ToolLoopResult,
        parse_reply as parse_reply,
        protocol_text as protocol_text,
        run_tool_loop as run_tool_loop,
    )
    from skillopt.training import train as train
