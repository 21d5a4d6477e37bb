"""The plugin loader and registry, against real (temp) installed distributions."""

from __future__ import annotations

import sys

import pytest
from fakedists import env_module, forget_modules, make_dist

from skillopt.errors import PluginError
from skillopt.plugins import get_host, reset_host
from skillopt.registry import get_registry


@pytest.fixture
def site(tmp_path, monkeypatch):
    root = tmp_path / "site"
    root.mkdir()
    monkeypatch.syspath_prepend(str(root))
    yield root
    forget_modules("fakeplug_")
    reset_host()


def test_lookup_imports_only_the_named_plugin_and_records_its_distribution(site):
    make_dist(site, "skillopt-envs-alpha", {"skillopt.envs": {"alpha": "fakeplug_alpha"}}, {"fakeplug_alpha": env_module("alpha")})
    make_dist(site, "skillopt-envs-beta", {"skillopt.envs": {"beta": "fakeplug_beta"}}, {"fakeplug_beta": env_module("beta")})
    comp = get_registry().get("envs", "alpha")
    assert comp.obj.name == "alpha"
    assert comp.distribution == "skillopt-envs-alpha" and comp.version == "0.1.0"
    assert "fakeplug_alpha" in sys.modules and "fakeplug_beta" not in sys.modules


def test_listing_reads_metadata_without_importing(site):
    make_dist(site, "skillopt-envs-gamma", {"skillopt.envs": {"gamma": "fakeplug_gamma"}}, {"fakeplug_gamma": "raise RuntimeError('imported!')"})
    assert "gamma" in get_registry().names("envs")
    assert "fakeplug_gamma" not in sys.modules


def test_same_name_from_two_distributions_is_an_error_naming_both(site):
    make_dist(site, "skillopt-envs-one", {"skillopt.envs": {"dup": "fakeplug_one"}}, {"fakeplug_one": env_module("dup")})
    make_dist(site, "skillopt-envs-two", {"skillopt.envs": {"dup": "fakeplug_two"}}, {"fakeplug_two": env_module("dup", "Other")})
    with pytest.raises(PluginError) as exc:
        get_registry().get("envs", "dup")
    assert "skillopt-envs-one" in str(exc.value) and "skillopt-envs-two" in str(exc.value)


def test_two_plugins_registering_the_same_component_name_is_an_error_naming_both(site):
    make_dist(site, "skillopt-envs-first", {"skillopt.envs": {"first": "fakeplug_first"}}, {"fakeplug_first": env_module("shared")})
    make_dist(site, "skillopt-envs-second", {"skillopt.envs": {"second": "fakeplug_second"}}, {"fakeplug_second": env_module("shared", "Other")})
    with pytest.raises(PluginError) as exc:
        get_registry().load_all("envs")
    assert "skillopt-envs-first" in str(exc.value) and "skillopt-envs-second" in str(exc.value)


def test_a_plugin_that_fails_to_import_is_a_warning_naming_it_and_others_still_load(site, capsys):
    make_dist(site, "skillopt-envs-broken", {"skillopt.envs": {"broken": "fakeplug_broken"}}, {"fakeplug_broken": "import nosuchmodule_xyz"})
    make_dist(site, "skillopt-envs-fine", {"skillopt.envs": {"fine": "fakeplug_fine"}}, {"fakeplug_fine": env_module("fine")})
    names = [c.name for c in get_registry().load_all("envs")]
    assert "fine" in names and "broken" not in names
    err = capsys.readouterr().err
    assert "broken" in err and "skillopt-envs-broken" in err and "nosuchmodule_xyz" in err
    with pytest.raises(PluginError, match=r"installed \(skillopt-envs-broken 0.1.0\) but failed to import"):
        get_registry().get("envs", "broken")


def test_disable_plugins_blocks_by_entry_point_or_distribution_name(site, monkeypatch):
    make_dist(site, "skillopt-envs-delta", {"skillopt.envs": {"delta": "fakeplug_delta"}}, {"fakeplug_delta": env_module("delta")})
    make_dist(site, "skillopt-envs-eps", {"skillopt.envs": {"eps": "fakeplug_eps"}}, {"fakeplug_eps": env_module("eps")})
    monkeypatch.setenv("SKILLOPT_DISABLE_PLUGINS", "delta, skillopt-envs-eps")
    with pytest.raises(PluginError, match="disabled by SKILLOPT_DISABLE_PLUGINS"):
        get_registry().get("envs", "delta")
    with pytest.raises(PluginError, match="disabled"):
        get_registry().get("envs", "eps")
    assert "fakeplug_delta" not in sys.modules
    assert "delta" not in get_registry().names("envs")


def test_aliases_resolve_to_the_same_component(site):
    make_dist(site, "skillopt-envs-zeta", {"skillopt.envs": {"zeta": "fakeplug_zeta", "z": "fakeplug_zeta"}},
              {"fakeplug_zeta": env_module("zeta", aliases=("z",))})
    assert get_registry().get("envs", "z").obj is get_registry().get("envs", "zeta").obj


def test_unknown_component_lists_installed_ones_and_suggests(site):
    make_dist(site, "skillopt-envs-omega", {"skillopt.envs": {"omega": "fakeplug_omega"}}, {"fakeplug_omega": env_module("omega")})
    with pytest.raises(PluginError) as exc:
        get_registry().get("envs", "omgea")
    assert "Did you mean 'omega'" in str(exc.value) and "Installed envs:" in str(exc.value)


def test_in_process_plugins_register_through_the_same_hooks():
    from toy import ToyEnv

    from skillopt import hookimpl

    class Plugin:
        @hookimpl
        def skillopt_register_envs(self, register):
            register(ToyEnv, aliases=("toy2",))

    get_host().register(Plugin(), name="toy-plugin")
    comp = get_registry().get("envs", "toy2")
    assert comp.obj is ToyEnv and comp.distribution == "(in-process)"


def test_builtin_policies_and_gates_come_from_core_entry_points():
    registry = get_registry()
    for kind, name in [("edit_policies", "patch"), ("edit_policies", "rewrite"), ("edit_policies", "full-rewrite"),
                       ("gates", "strict"), ("gates", "paired"), ("backends", "scripted")]:
        assert registry.get(kind, name).distribution == "skillopt-core"


def test_installed_metadata_is_scanned_once_per_process_until_sys_path_changes(site, monkeypatch):
    from skillopt import plugins

    scans = []
    real = plugins.metadata.distributions
    monkeypatch.setattr(plugins.metadata, "distributions", lambda *a, **k: scans.append(1) or real(*a, **k))
    make_dist(site, "skillopt-envs-once", {"skillopt.envs": {"once": "fakeplug_once"}}, {"fakeplug_once": env_module("once")})
    for kind in ("envs", "backends", "gates", "edit_policies", "observers", "commands"):
        plugins.declared(kind)
    assert get_registry().get("envs", "once").obj.name == "once"
    assert len(scans) == 1
    monkeypatch.syspath_prepend(str(site / "elsewhere"))  # a newly installed location is seen
    assert [e.name for e in plugins.declared("envs") if e.name == "once"] == ["once"] and len(scans) == 2
