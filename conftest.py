"""Root conftest: the SkillOpt pytest plugin (isolated SKILLOPT_HOME per test) for every
package's tests. Package conftests must not set ``pytest_plugins`` themselves (pytest
allows it only here); to run one package's tests alone they import the fixtures."""

pytest_plugins = ["skillopt.testing"]
