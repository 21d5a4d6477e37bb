"""Every message and help text reaches the terminal with every bracket it holds.

rich reads ``[word]`` as markup and drops it: an install hint printed ``pip install
'skillopt-backends'`` for ``…[local]``, and ``--set``'s help "lists as ; null" for
``lists as [a,b]; null``. These tests print through each way text reaches rich (the
reporter port, the CLI's lines and errors, progress lines, plugin warnings, tables, typer's
help of every command, plugin commands included) and read what came out."""

from __future__ import annotations

import json
import re

import pytest
import typer

from skillopt.richtext import literal, plain, styled

#: what users and install hints really put in brackets
MESSAGE = ("pip install 'skillopt-backends[local]' then --set tracking=[mlflow], lists as [a,b]; "
           "the [train] split of /tmp/[x]/items.json, arr[i], a stray [/bold] and [link=x]")
TOKENS = ("skillopt-backends[local]", "tracking=[mlflow]", "[a,b]", "[train]", "/tmp/[x]/items.json", "arr[i]",
          "[/bold]", "[link=x]")


def squeeze(text: str) -> str:
    """``text`` without whitespace and box lines: rich wraps and frames long lines."""
    return re.sub(r"[\s│┃║]+", "", text)


def assert_all_brackets_kept(output: str, tokens=TOKENS) -> None:
    flat = squeeze(output)
    missing = [t for t in tokens if squeeze(t) not in flat]
    assert not missing, f"eaten as markup: {missing}\n{output}"


def test_styled_renders_only_our_tags_and_keeps_every_other_bracket():
    text = styled("[bold]run[/bold] " + MESSAGE + " [yellow]done[/]")
    assert text.plain == "run " + MESSAGE + " done"
    styles = {str(span.style) for span in text.spans}
    assert styles == {"bold", "yellow"}
    assert styled(r"rich's escape \[local] stays literal").plain == "rich's escape [local] stays literal"
    assert plain("[bold red]error:[/bold red] [train]") == "error: [train]"
    assert literal("[bold]x[/bold]").plain == "[bold]x[/bold]"


def _say(message):
    from skillopt.report import say

    say(message)


def _warn(message):
    from skillopt.report import warn

    warn(message)


def _info(message):
    from skillopt.cli.output import info

    info(message)


def _fail(message):
    from skillopt.cli.output import fail

    assert isinstance(fail(message), typer.Exit)


def _progress_line(message):
    from skillopt.engine.progress import RichReporter

    reporter = RichReporter()
    try:
        reporter.line(message)
    finally:
        reporter.close()


def _plugin_warning(message):
    from skillopt.plugins import _stderr_warning

    _stderr_warning(message)


@pytest.mark.parametrize("sink", [_say, _warn, _info, _fail, _progress_line, _plugin_warning])
def test_every_message_sink_prints_every_bracket(sink, capsys, monkeypatch):
    from skillopt import report

    monkeypatch.setattr(report, "_reporter", None)  # the CLI's default: rich on stderr
    monkeypatch.setenv("COLUMNS", "400")
    sink("[bold]note[/bold] " + MESSAGE)
    err = capsys.readouterr().err
    assert_all_brackets_kept(err)
    if sink is not _fail and sink is not _plugin_warning:  # those two print their text verbatim
        assert "[bold]note" not in err  # our own tag is styling, not text


def test_check_shows_a_failing_detail_with_its_brackets(run_cli, toy_registered):
    result = run_cli("check", "--env", "toy", "--backend", "nosuch[local]", "--no-call")
    assert result.exit_code == 1
    assert_all_brackets_kept(result.stderr, ("nosuch[local]",))


def test_config_keys_table_keeps_the_brackets_of_its_help(run_cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    result = run_cli("config", "keys")
    assert result.exit_code == 0, result.output
    helps = [r["help"] for r in json.loads(run_cli("config", "keys", "--json").stdout)]
    tokens = sorted({t for h in helps for t in re.findall(r"\[[^\]\[]*\]", h)})
    assert "[gates.NAME]" in tokens  # "typed settings of gate plugins, [gates.NAME]"
    assert_all_brackets_kept(result.stdout, tokens)


def _commands(command, path=()):
    yield path, command
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        yield from _commands(sub, (*path, name))


def test_the_help_of_every_command_keeps_its_brackets(run_cli, monkeypatch):
    """Each command's help (built-ins and installed plugins' commands), read from the
    source before the CLI escapes it, against what ``--help`` prints."""
    import skillopt.richtext
    from skillopt.cli import make_app

    monkeypatch.setattr(skillopt.richtext, "escape_help", lambda command: None)
    source = typer.main.get_command(make_app())
    monkeypatch.undo()
    monkeypatch.setenv("COLUMNS", "300")
    checked = set()
    for path, command in _commands(source):
        texts = [command.help or ""] + [getattr(p, "help", None) or "" for p in command.params]
        tokens = {t for text in texts for t in re.findall(r"\[[^\]\[]*\]", text)}
        if not tokens:
            continue
        shown = run_cli(*path, "--help")
        assert shown.exit_code == 0, (path, shown.output)
        assert_all_brackets_kept(shown.stdout, sorted(tokens))
        checked |= {(" ".join(path), t) for t in tokens}
    assert ("run", "[a,b]") in checked and ("eval", "[a,b]") in checked  # `--set`: "lists as [a,b]"
