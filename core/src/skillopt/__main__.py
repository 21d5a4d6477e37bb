"""``python -m skillopt`` = the ``skillopt`` command."""

from skillopt.cli import main

main()
