"""``skillopt export`` of a folder skill: the whole Agent Skills folder, in one step.

The folder is written beside its destination and renamed into place (see
:func:`~skillopt.skillfolder.disk.write_folder`), so an agent loading its skills sees the
old folder or the new one. An existing different folder needs ``force`` and is kept as
a hidden ``.NAME.bak-TIME`` sibling: a backup named like the skill would be loaded by
the agent as a second skill of the same name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import time
from pathlib import Path

from skillopt.errors import ConfigError
from skillopt.records import SkillFile
from skillopt.redact import redact_text
from skillopt.skillfolder import MAIN, SkillFolder, front_matter_fields
from skillopt.skillfolder.disk import matches, write_folder

if TYPE_CHECKING:
    from skillopt.export import Exported


def exported_main(folder: SkillFolder, name: str, description: str) -> str:
    """``SKILL.md`` as installed: as trained when ``name`` and ``description`` are the
    folder's own, else with its front matter rebuilt: those two first, every other key
    of the original after them."""
    if name == folder.name and description == folder.description:
        return folder.main
    import yaml

    from skillopt.export import _yaml_string

    rest = {k: v for k, v in front_matter_fields(folder.front_matter, MAIN).items() if k not in ("name", "description")}
    head = f"name: {name}\ndescription: {_yaml_string(description)}\n"
    head += yaml.safe_dump(rest, sort_keys=False, allow_unicode=True) if rest else ""
    return f"---\n{head}---\n{folder.body}"


def export_folder(folder: SkillFolder, *, target: str, name: str, description: str, project: Path | None, force: bool = False) -> Exported:
    """Install ``folder`` as the Agent Skills folder ``name`` for ``target`` (secrets
    masked in every file, scripts with their modes); returns an :class:`~skillopt.export.Exported`."""
    from skillopt.export import Exported, destination

    dest = destination(target, name, project=project).parent
    out = SkillFolder.of([
        SkillFile(path=f.path, content=redact_text(exported_main(folder, name, description) if f.path == MAIN else f.content),
                  mode=f.mode)
        for f in folder.files
    ])
    if matches(out, dest):
        return Exported(target=target, path=str(dest), name=name, replaced=False, unchanged=True)
    keep = None
    if dest.exists() or dest.is_symlink():
        if not force:
            raise ConfigError(f"{dest} exists with other content; pass --force to replace it "
                              "(the old folder is kept as a backup)")
        keep = dest.with_name(f".{dest.name}.bak-{time.strftime('%Y%m%d-%H%M%S')}")
    write_folder(out, dest, keep_old=keep)
    return Exported(target=target, path=str(dest), name=name, replaced=keep is not None, backup=str(keep) if keep else "")
