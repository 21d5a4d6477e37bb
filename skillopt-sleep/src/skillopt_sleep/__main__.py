"""``python -m skillopt_sleep …`` (used by the cron line): the ``sleep`` sub-app alone."""

from __future__ import annotations


def main() -> None:
    from skillopt_sleep.cli import sleep_app

    sleep_app(prog_name="skillopt-sleep")


if __name__ == "__main__":
    main()
