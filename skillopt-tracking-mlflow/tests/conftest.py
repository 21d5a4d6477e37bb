from skillopt.testing import run_cli, scripted_client, skillopt_home  # noqa: F401  (pytest_plugins lives in the root conftest)
