"""``skillopt keys``: store provider keys in the user's keys file (mode 0600)."""

from typing import Annotated

import typer

from skillopt.cli.output import fail, print_json

app = typer.Typer(help="Manage stored API keys (env vars take precedence).", no_args_is_help=True, rich_markup_mode=None)


@app.command("set")
def set_(
    name: Annotated[str, typer.Argument(
        help="Provider whose key it is: openai, anthropic, azure-openai, openai-compatible (what the installed backends read).")],
    value: Annotated[str | None, typer.Option("--value", help="The key (prompted, hidden, when omitted).")] = None,
) -> None:
    """Store a key (refused for a name no installed backend reads, or an empty key)."""
    from skillopt.keys import set_key

    known = known_key_names()
    if name not in known:
        listed = ", ".join(known) or "none (install skillopt-backends)"
        raise fail(f"no installed backend reads a key named {name!r}; known providers: {listed}")
    secret = value if value is not None else typer.prompt(f"key for {name}", hide_input=True, default="", show_default=False)
    if not secret.strip():
        raise fail(f"the key for {name!r} is empty; nothing stored (pass it with --value or paste it at the prompt)")
    path = set_key(name, secret.strip())
    typer.echo(f"stored key '{name}' in {path}", err=True)


def known_key_names() -> list[str]:
    """The keys-file names the installed backends read (:attr:`Backend.key_name`); a
    backend plugin that fails to import is left out, with the loader's warning."""
    from skillopt.registry import load_components

    return sorted({c.obj.key_name for c in load_components("backends") if getattr(c.obj, "key_name", "")})


@app.command("list")
def list_(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
    """List stored key names (never the values)."""
    from skillopt.keys import stored_keys

    names = sorted(stored_keys())
    if as_json:
        print_json(names)
    else:
        for name in names:
            typer.echo(name)


@app.command("path")
def path() -> None:
    """Print where keys are stored."""
    from skillopt.paths import keys_file

    typer.echo(str(keys_file()))


@app.command("delete")
def delete(name: str) -> None:
    """Remove a stored key."""
    from skillopt.keys import delete_key

    if not delete_key(name):
        typer.echo(f"no stored key '{name}'", err=True)
        raise typer.Exit(1)
