"""SkillOpt env plugin: SearchQA (snippet reading comprehension), the reference benchmark.

The package itself stays empty: the command plugin ``skillopt_envs_searchqa.cli`` is
imported at every CLI start (and imports this package first), while the env lives in
``skillopt_envs_searchqa.env``, the ``skillopt.envs`` entry point, imported only when a
command names the env.
"""

__version__ = "0.1.0"
