"""SkillOpt env plugin: OfficeQA (questions over Treasury Bulletins, answered with local document tools).

The package stays import-light: the ``skillopt.envs`` entry point ``officeqa`` names
``skillopt_envs_officeqa.env`` (which registers the alias ``treasury``), imported only when a
command selects the env.
"""

__version__ = "0.1.0"
