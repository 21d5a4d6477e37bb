"""``schedule``/``unschedule``: the generated line, refusals, and a crontab that is a
file (or a fake command) — the real user crontab is never touched."""

import json
import shlex
import stat
import sys

import pytest

from skillopt.errors import ConfigError
from skillopt_sleep import schedule as sched


def test_cron_line_runs_the_project_cycle_with_its_options(tmp_path):
    line = sched.cron_line(
        tmp_path,
        hour=3,
        minute=17,
        args=["--backend", "openai", "--max-cost", "0.5", "--auto-adopt"],
        log=tmp_path / "cron.log",
        python="/usr/bin/python3",
    )
    timing, rest = line[:9], line[9:]
    assert timing == "17 3 * * "
    command, _, tag = rest.partition(" # ")
    assert tag == sched.project_tag(tmp_path)
    argv = shlex.split(command.split("&& ", 1)[1].split(" >> ")[0])
    assert argv[:6] == ["/usr/bin/python3", "-m", "skillopt_sleep", "run", "--project", str(tmp_path.resolve())]
    assert argv[6:] == ["--backend", "openai", "--max-cost", "0.5", "--auto-adopt"], "run options survive (bug §6.15)"


@pytest.mark.parametrize("bad", ["a'b", 'a"b', "a\nb", "a\x07b", "50%", "a\\b", "$(rm -rf ~)", "`id`"])
def test_cron_line_refuses_quotes_and_control_characters(tmp_path, bad):
    with pytest.raises(ConfigError, match="refusing"):
        sched.cron_line(tmp_path, hour=1, minute=2, args=["--model", bad], log=tmp_path / "log")


def test_install_and_remove_in_a_crontab_file(tmp_path):
    tab = tmp_path / "crontab"
    tab.write_text("MAILTO=dev@example.com\n0 1 * * * backup.sh\n")
    crontab = sched.Crontab(file=tab)
    p1, p2 = tmp_path / "p1", tmp_path / "p2"
    for p in (p1, p2):
        p.mkdir()
        sched.install(crontab, p, sched.cron_line(p, hour=3, minute=17, args=[], log=p / "log"))
    sched.install(crontab, p1, sched.cron_line(p1, hour=4, minute=0, args=[], log=p1 / "log"))
    text = tab.read_text()
    assert text.startswith("MAILTO=dev@example.com\n0 1 * * * backup.sh\n")
    assert text.count(sched.BEGIN) == 1 and "0 4 * * *" in text and "17 3 * * *" in text
    assert sched.remove(crontab, p1) == 1
    assert sched.project_tag(p1) not in tab.read_text() and sched.project_tag(p2) in tab.read_text()
    assert sched.remove(crontab, p2, everything=True) == 1
    assert tab.read_text() == "MAILTO=dev@example.com\n0 1 * * * backup.sh\n"


def test_crontab_command_is_injectable(tmp_path):
    """A fake `crontab` program stands in for the real one (-l prints, - stores)."""
    store = tmp_path / "store"
    fake = tmp_path / "fake-crontab"
    fake.write_text(
        f"#!{sys.executable}\nimport sys, pathlib\np = pathlib.Path({str(store)!r})\n"
        "if sys.argv[1] == '-l':\n    sys.stdout.write(p.read_text() if p.exists() else '')\n"
        "    p.exists() or sys.stderr.write('no crontab for dev\\n')\n"
        "    sys.exit(0 if p.exists() else 1)\np.write_text(sys.stdin.read())\n"
    )
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    crontab = sched.Crontab(command=(str(fake),))
    sched.install(crontab, tmp_path, sched.cron_line(tmp_path, hour=2, minute=30, args=[], log=tmp_path / "log"))
    assert "30 2 * * *" in store.read_text()


def test_schedule_cli_prints_and_installs(run_cli, tmp_path):
    tab = tmp_path / "tab"
    res = run_cli("sleep", "schedule", "--project", str(tmp_path), "--print", "--backend", "scripted", "--json")
    assert res.exit_code == 0 and json.loads(res.stdout)["installed"] is False
    assert not tab.exists()
    res = run_cli("sleep", "schedule", "--project", str(tmp_path), "--crontab-file", str(tab), "--hour", "2", "--json")
    assert res.exit_code == 0 and "17 2 * * *" in tab.read_text()
    res = run_cli("sleep", "schedule", "--project", str(tmp_path), "--crontab-file", str(tab), "--model", "x'; rm -rf ~")
    assert res.exit_code == 2
    res = run_cli("sleep", "unschedule", "--project", str(tmp_path), "--crontab-file", str(tab), "--json")
    assert json.loads(res.stdout) == {"removed": 1}
