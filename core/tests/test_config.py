"""Config: paper defaults, TOML files, typed --set overrides, strict keys, resume fingerprint."""

from __future__ import annotations

from typing import Any, ClassVar

import attrs
import pytest

from skillopt.config import ConfigSources, RunConfig, resolve_config
from skillopt.config.loading import apply_assignment, config_data, config_diff, config_fingerprint, redacted_config_data
from skillopt.config.schema import EnvConfig
from skillopt.errors import ConfigError


def test_defaults_are_the_paper_settings():
    cfg = RunConfig()
    assert (cfg.train.num_epochs, cfg.train.batch_size, cfg.train.accumulation, cfg.train.seed) == (4, 40, 1, 42)
    assert (cfg.gradient.minibatch_size, cfg.gradient.merge_batch_size, cfg.gradient.analyst_workers) == (8, 8, 16)
    assert (cfg.optimizer.learning_rate, cfg.optimizer.min_learning_rate, cfg.optimizer.lr_scheduler) == (4, 2, "cosine")
    assert cfg.optimizer.skill_update_mode == "patch" and cfg.optimizer.lr_control_mode == "fixed"
    assert cfg.optimizer.use_slow_update and cfg.optimizer.use_meta_skill and not cfg.optimizer.slow_update_gate_with_selection
    assert cfg.optimizer.slow_update_samples == 20 and cfg.optimizer.longitudinal_pair_policy == "mixed"
    assert not cfg.optimizer.use_skill_aware_reflection
    assert cfg.evaluation.use_gate and cfg.evaluation.gate_metric == "hard"
    assert cfg.evaluation.gate_mixed_weight == 0.5 and cfg.evaluation.eval_test
    # the one deliberate difference: the default gate is the paired test (``--preset paper`` restores strict)
    assert cfg.evaluation.gate == "paired" and cfg.evaluation.gate_confidence == 0.95


def test_paper_preset_is_exact_only_when_asked_for():
    from skillopt.config.presets import resolve_preset

    class Env:
        presets: ClassVar[dict[str, dict[str, Any]]] = {"small": {"train": {"num_epochs": 1}}, "full": {"env": {"workers": 24}}}

    assert resolve_preset(Env, "paper", explicit=True) == ("paper", {"env": {"workers": 24}, "evaluation": {"gate": "strict"}})
    # an env (or an old plugin) choosing "paper" automatically gets the full-size settings, not the paper's gate
    assert resolve_preset(Env, "paper", explicit=False) == ("full", {"env": {"workers": 24}})
    assert resolve_preset(Env, "full", explicit=True) == ("full", {"env": {"workers": 24}})
    with pytest.raises(ConfigError, match="presets: full, paper, small"):
        resolve_preset(Env, "tiny", explicit=True, env_name="x")


def test_toml_file_then_set_then_flags(tmp_path):
    path = tmp_path / "run.toml"
    path.write_text('[train]\nbatch_size = 10\nnum_epochs = 2\n[optimizer]\nlr_scheduler = "linear"\n')
    cfg = resolve_config(ConfigSources(file=path, assignments=("train.batch_size=12",), flags={"train.num_epochs": 3}))
    assert cfg.train.batch_size == 12 and cfg.train.num_epochs == 3 and cfg.optimizer.lr_scheduler == "linear"


@pytest.mark.parametrize(
    ("assignment", "getter", "expected"),
    [
        ("evaluation.leading_words=[MUST,NEVER]", lambda c: c.evaluation.leading_words, ("MUST", "NEVER")),
        ("evaluation.leading_words=MUST, SHOULD", lambda c: c.evaluation.leading_words, ("MUST", "SHOULD")),
        ("budget.max_cost_usd=null", lambda c: c.budget.max_cost_usd, None),
        ("budget.max_cost_usd=2.5", lambda c: c.budget.max_cost_usd, 2.5),
        ("evaluation.use_gate=false", lambda c: c.evaluation.use_gate, False),
        ("model.target.temperature=0.7", lambda c: c.model.target.temperature, 0.7),
        ("model.target.options={n_ctx = 4096}", lambda c: c.model.target.options, {"n_ctx": 4096}),
        ("model.optimizer.options.structured=json_object", lambda c: c.model.optimizer.options, {"structured": "json_object"}),
        ("optimizer.skill_update_mode=rewrite_from_suggestions", lambda c: c.optimizer.skill_update_mode, "rewrite"),
        ("env.name=searchqa", lambda c: c.env.name, "searchqa"),
    ],
)
def test_set_is_typed_from_the_schema(assignment, getter, expected):
    assert getter(resolve_config(ConfigSources(assignments=(assignment,)))) == expected


@pytest.mark.parametrize(
    ("assignment", "fragment"),
    [
        ("train.batchsize=3", "did you mean 'train.batch_size'"),
        ("trian.batch_size=3", "did you mean 'train'"),
        ("train.batch_size=ten", "train.batch_size"),
        ("evaluation.use_gate=maybe", "evaluation.use_gate"),
        ("optimizer.lr_scheduler=cosnie", "lr_scheduler"),
        ("gradient.merge_batch_size=1", "merge_batch_size"),
        ("train.batch_size.x=1", "not a section"),
        ("novalue", "section.key=value"),
    ],
)
def test_bad_overrides_name_the_key(assignment, fragment):
    with pytest.raises(ConfigError) as exc:
        resolve_config(ConfigSources(assignments=(assignment,)))
    assert fragment.lower() in str(exc.value).lower()


@pytest.mark.parametrize(
    ("assignment", "fragment"),
    [
        ("model.timeout_s=-1", "'timeout_s' must be > 0"),
        ("model.timeout_s=0", "'timeout_s' must be > 0"),
        ("model.timeout_s=nan", "finite number, got nan @ config.model.timeout_s"),
        ("model.optimizer.timeout_s=-5", "config.model.optimizer"),
        ("model.target.temperature=-0.5", "'temperature' must be >= 0"),
        ("model.temperature=inf", "finite number, got inf @ config.model.temperature"),
        ("model.target.max_tokens=0", "'max_tokens' must be >= 1"),
        ("model.optimizer.max_in_flight=-2", "'max_in_flight' must be >= 1"),
        ("budget.max_cost_usd=-1", "'max_cost_usd' must be >= 0"),
        ("budget.max_cost_usd=nan", "config.budget.max_cost_usd"),
        ("budget.max_calls=-3", "'max_calls' must be >= 0"),
        ("budget.max_tokens=-1", "'max_tokens' must be >= 0"),
        ("evaluation.gate_min_margin=inf", "config.evaluation.gate_min_margin"),
        ("evaluation.semantic_density_weight=-1", "'semantic_density_weight' must be >= 0"),
        ("env.exec_timeout=nan", "env.exec_timeout"),
        ("env.max_completion_tokens=-1", "'max_completion_tokens' must be >= 1"),
        ("model.prices={m = {input = -1.0, output = 2.0}}", "'prices.m.input' must be >= 0"),
    ],
)
def test_numbers_out_of_range_or_not_finite_are_refused_naming_the_key(assignment, fragment):
    with pytest.raises(ConfigError) as exc:
        resolve_config(ConfigSources(assignments=(assignment,)))
    assert fragment in str(exc.value)


def _numeric_keys(cls, prefix=""):
    from skillopt.serde import attrs_class_of, field_types

    for name, tp in field_types(cls).items():
        sub = attrs_class_of(tp)
        if sub is not None:
            yield from _numeric_keys(sub, f"{prefix}{name}.")
        elif float in (tp, *getattr(tp, "__args__", ())):
            yield f"{prefix}{name}"


@pytest.mark.parametrize("key", sorted(_numeric_keys(RunConfig)))
def test_no_float_setting_takes_nan_or_infinity(key):
    """Every comparison with NaN is false, so a NaN passes any ``>= 0`` check unless the
    converter refuses it: this walks every float key of the schema."""
    is_table = key == "search.select_weights"  # a table of floats: the bad value goes in an entry
    for bad in ("nan", "inf", "-inf"):
        value = f"{{accuracy = {bad}}}" if is_table else bad
        with pytest.raises(ConfigError, match="finite number"):
            resolve_config(ConfigSources(assignments=(f"{key}={value}",)))


def test_valid_numbers_still_pass():
    cfg = resolve_config(ConfigSources(assignments=("model.timeout_s=30", "model.target.temperature=0", "budget.max_calls=1",
                                                    "budget.max_cost_usd=0.5", "model.prices={m = {input = 0.0, output = 2}}")))
    assert (cfg.model.timeout_s, cfg.model.target.temperature, cfg.budget.max_calls) == (30.0, 0.0, 1)
    assert cfg.model.prices == {"m": {"input": 0.0, "output": 2.0}}
    nothing = resolve_config(ConfigSources(assignments=("budget.max_calls=0", "budget.max_tokens=0", "budget.max_cost_usd=0")))
    assert (nothing.budget.max_calls, nothing.budget.max_tokens, nothing.budget.max_cost_usd) == (0, 0, 0.0)  # spends nothing


def test_typo_in_config_file_names_the_key(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text("[evaluation]\ngate_metrc = 'soft'\n")
    with pytest.raises(ConfigError, match=r"evaluation\.gate_metrc.*evaluation\.gate_metric"):
        resolve_config(ConfigSources(file=path))


def test_invalid_toml_names_the_file(tmp_path):
    path = tmp_path / "broken.toml"
    path.write_text("[train\n")
    with pytest.raises(ConfigError, match="broken.toml"):
        resolve_config(ConfigSources(file=path))


@attrs.frozen(kw_only=True)
class PuzzleConfig(EnvConfig):
    difficulty: int = 1
    tags: tuple[str, ...] = ()


def test_env_section_is_typed_and_strict_with_the_env_schema():
    cfg = resolve_config(ConfigSources(assignments=("env.difficulty=3", "env.tags=[a,b]")), PuzzleConfig)
    assert isinstance(cfg.env, PuzzleConfig) and cfg.env.difficulty == 3 and cfg.env.tags == ("a", "b")
    with pytest.raises(ConfigError, match="env.dificulty"):
        resolve_config(ConfigSources(assignments=("env.dificulty=3",)), PuzzleConfig)


def test_redaction_hides_secrets_but_not_key_env_names():
    cfg = resolve_config(ConfigSources(assignments=("model.api_key=sk-test-aaaaaaaaaaaaaaaaaaaaaaaa", "model.target.api_key_env=MY_KEY")))
    data = redacted_config_data(cfg)
    assert "sk-test" not in repr(data)
    assert data["model"]["target"]["api_key_env"] == "MY_KEY"
    assert config_data(cfg)["model"]["api_key"].startswith("sk-test")


def test_fingerprint_ignores_resume_neutral_keys_and_diff_lists_real_changes():
    a = config_data(resolve_config(ConfigSources()))
    b = config_data(resolve_config(ConfigSources(assignments=("env.workers=2", "budget.max_calls=10", "out_dir=/x"))))
    c = config_data(resolve_config(ConfigSources(assignments=("train.seed=7",))))
    assert config_fingerprint(a) == config_fingerprint(b) != config_fingerprint(c)
    assert config_diff(a, c) == ["train.seed: 42 -> 7"]


def test_apply_assignment_does_not_mutate_its_input():
    raw = {"train": {"seed": 1}}
    out = apply_assignment(raw, "train.seed=2")
    assert raw == {"train": {"seed": 1}} and out == {"train": {"seed": 2}}


def test_every_key_is_explained_and_the_reference_doc_is_current():
    from pathlib import Path

    from skillopt.config.reference import help_for, render_markdown, schema_keys

    missing = [key for key, _, _ in schema_keys() if not help_for(key)]
    assert not missing, f"add help for {missing} in skillopt/config/reference.py"
    doc = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"
    assert doc.read_text() == render_markdown(), "regenerate: python -m skillopt.config.reference > docs/configuration.md"


def test_config_keys_command_lists_keys(run_cli):
    import json

    rows = json.loads(run_cli("config", "keys", "--json").stdout)
    assert {"key": "train.batch_size", "type": "int", "default": 40, "help": "items rolled out per micro-batch"} in rows
