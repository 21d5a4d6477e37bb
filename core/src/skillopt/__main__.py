"""``python -m skillopt`` = the ``skillopt`` command."""

from skillopt.cli import console_main

console_main()
