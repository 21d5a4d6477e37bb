"""The env contract, registration under both names, presets and config keys."""

from skillopt.api import Backend
from skillopt.testing import ScriptedBackend, check_env_contract
from skillopt_envs_officeqa.env import OfficeQAConfig, OfficeQAEnv


def test_env_contract_in_both_modes():
    assert check_env_contract(OfficeQAEnv).name == "officeqa"
    check_env_contract(OfficeQAEnv, config=OfficeQAConfig(mode="oracle"))


def test_registered_as_officeqa_and_treasury():
    from skillopt.api import get_component

    assert get_component("envs", "treasury").obj is OfficeQAEnv  # an alias alone: found by loading the envs
    assert get_component("envs", "officeqa").obj is OfficeQAEnv
    assert get_component("envs", "officeqa").distribution == "skillopt-envs-officeqa"


def test_presets_and_auto_choice():
    # small on a backend declaring small_model (the local model, the scripted one), full elsewhere
    assert OfficeQAEnv.auto_preset(ScriptedBackend) == "small" and OfficeQAEnv.auto_preset(Backend) == "full"
    small, paper = OfficeQAEnv.presets["small"]["env"], OfficeQAEnv.presets["full"]["env"]
    assert small["mode"] == "oracle" and small["max_completion_tokens"] <= 64
    assert (paper["mode"], paper["max_tool_turns"], paper["oracle_pages"], paper["numeric_match"]) == ("tools", 24, True, False)
    for preset in (small, paper):
        OfficeQAConfig(**preset)  # every preset key is a real, valid config key


def test_data_dirs_accepts_a_comma_list():
    assert OfficeQAConfig(data_dirs="/a, /b").data_dirs == ("/a", "/b")


def test_initial_skill_and_analyst_prompts_ship():
    env = OfficeQAEnv()
    assert "<answer>" in env.initial_skill()
    assert "OfficeQA" in env.prompt("analyst_failure") and "OfficeQA" in env.prompt("analyst_success")
