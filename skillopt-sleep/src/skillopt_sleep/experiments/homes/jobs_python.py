"""Recurring Python jobs and their house conventions (data written for this project, CC0-1.0)."""

from __future__ import annotations

from skillopt_sleep.experiments.homes.convention import Convention, ed as _ed, sh as _sh

PY_IMPORT_ERROR = "ImportError while loading conftest '/src/tests/conftest.py'.\ntests/conftest.py:3: in <module>\n    from {pkg} import app\nE   ModuleNotFoundError: No module named '{pkg}'"

PYTHON: tuple[Convention, ...] = (
    Convention(
        name="py-tests-runner",
        stacks=("python",),
        family="tool",
        requests={
            "en": ("run the tests for {obj}", "the {obj} tests fail since this morning, run them and fix it",
                   "can you check the {obj} tests still pass?", "are the tests for {obj} green?"),
            "de": ("lass bitte die Tests für {obj} laufen", "laufen die Tests für {obj} noch durch?"),
            "fr": ("lance les tests de {obj}", "est-ce que les tests de {obj} passent encore ?"),
            "es": ("ejecuta los tests de {obj}", "¿siguen pasando los tests de {obj}?"),
        },  # fmt: skip
        generic=_sh("python -m pytest tests/test_{mod}.py -q", 1, PY_IMPORT_ERROR),
        right=_sh("{run} pytest tests/test_{mod}.py -q", 0, "........\n8 passed in 0.61s"),
        prefer="{run} pytest",
        avoid="python -m pytest",
        cue=r"{run} pytest",
    ),
    Convention(
        name="py-tests-xdist",
        stacks=("python",),
        family="flag",
        requests={
            "en": ("run the full test suite", "run all the tests before I merge the {obj} branch",
                   "does the whole suite pass after the {obj} change?", "kick off the complete test run"),
            "de": ("lass die komplette Testsuite laufen", "läuft die ganze Suite nach der {obj}-Änderung?"),
            "fr": ("lance toute la suite de tests", "est-ce que toute la suite passe après le changement {obj} ?"),
            "es": ("ejecuta toda la suite de tests", "¿pasa la suite completa después del cambio de {obj}?"),
        },  # fmt: skip
        generic=_sh("python -m pytest", 1, PY_IMPORT_ERROR),
        base=_sh("{run} pytest", 0, "........................................ [ 31%]\n(412 passed in 184.20s)"),
        right=_sh("{run} pytest -n auto", 0, "8 workers [412 items]\n412 passed in 29.77s"),
        prefer="{run} pytest -n auto",
        avoid="{run} pytest",
        cue=r"-n auto",
        memory_line="Run tests with `{run} pytest`.",
    ),
    Convention(
        name="py-lint",
        stacks=("python",),
        family="tool",
        requests={
            "en": ("lint the {obj} code", "run the linter on {pkg}/{mod}.py and fix what it finds",
                   "any lint errors in {obj}?", "lint everything before I push"),
            "de": ("lint bitte den {obj}-Code", "gibt es Lint-Fehler in {obj}?"),
            "fr": ("passe le linter sur {obj}", "il y a des erreurs de lint dans {obj} ?"),
            "es": ("pasa el linter por {obj}", "¿hay errores de lint en {obj}?"),
        },  # fmt: skip
        generic=_sh("ruff check .", 127, "bash: ruff: command not found"),
        right=_sh("{run} ruff check .", 0, "All checks passed!"),
        prefer="{run} ruff check",
        avoid="ruff check",
        cue=r"{run} ruff check",
    ),
    Convention(
        name="py-typecheck",
        stacks=("python",),
        family="flag",
        requests={
            "en": ("type-check the {obj} module", "run the type checker over {pkg}", "do the types in {obj} still check out?"),
            "de": ("mach einen Typcheck für {obj}", "stimmen die Typen in {obj} noch?"),
            "fr": ("vérifie les types de {obj}", "les types de {obj} sont toujours bons ?"),
            "es": ("comprueba los tipos de {obj}", "¿siguen bien los tipos de {obj}?"),
        },  # fmt: skip
        generic=_sh("mypy .", 127, "bash: mypy: command not found"),
        base=_sh("{run} mypy {pkg}", 0, "Success: no issues found in 41 source files"),
        right=_sh("{run} mypy --strict {pkg}", 0, "Success: no issues found in 41 source files"),
        prefer="{run} mypy --strict",
        avoid="{run} mypy",
        cue=r"mypy --strict",
        memory_line="Type-check with `{run} mypy {pkg}`.",
    ),
    Convention(
        name="py-migration",
        stacks=("python",),
        family="tool",
        requests={
            "en": ("create a migration for the new {mod} table", "write a migration adding an index on {mod}.created_at",
                   "we need a migration that renames the {mod} column", "generate a migration for {obj}"),
            "de": ("erstell eine Migration für die neue Tabelle {mod}", "wir brauchen eine Migration für {obj}"),
            "fr": ("crée une migration pour la table {mod}", "il faut une migration pour {obj}"),
            "es": ("crea una migración para la tabla {mod}", "necesitamos una migración para {obj}"),
        },  # fmt: skip
        generic=_sh('alembic revision --autogenerate -m "{mod}"', 127, "bash: alembic: command not found"),
        right=_sh('{run} alembic revision --autogenerate -m "{mod}"', 0, "Generating migrations/versions/3c1d_{mod}.py ...  done"),
        prefer="{run} alembic revision",
        avoid="alembic revision",
        cue=r"{run} alembic",
    ),
    Convention(
        name="py-deps",
        stacks=("python",),
        family="tool",
        requests={
            "en": ("add {dep} as a dependency", "we need {dep} for the {obj} work, install it", "install {dep} please"),
            "de": ("füg {dep} als Abhängigkeit hinzu", "installier bitte {dep}"),
            "fr": ("ajoute {dep} aux dépendances", "installe {dep} s'il te plaît"),
            "es": ("añade {dep} como dependencia", "instala {dep}, por favor"),
        },  # fmt: skip
        generic=_sh("pip install {dep}", 1, "error: externally-managed-environment"),
        right=_sh("{add} {dep}", 0, "Resolved 48 packages in 312ms\n + {dep}"),
        prefer="{add}",
        avoid="pip install",
        cue=r"{add}\b",
    ),
    Convention(
        name="py-httpx",
        stacks=("python",),
        family="api",
        requests={
            "en": ("write a client for the {obj} API", "add a function that fetches {obj} from the partner service",
                   "we need to call the {obj} endpoint from {pkg}", "add an HTTP call to load {obj}"),
            "de": ("schreib einen Client für die {obj}-API", "ruf den {obj}-Endpunkt aus {pkg} auf"),
            "fr": ("écris un client pour l'API {obj}", "ajoute un appel HTTP pour charger {obj}"),
            "es": ("escribe un cliente para la API de {obj}", "añade una llamada HTTP para cargar {obj}"),
        },  # fmt: skip
        generic=_ed("{pkg}/clients/{mod}.py", "import requests\n\n\ndef fetch_{mod}(base_url):\n    response = requests.get(f\"{{base_url}}/{mod}\", timeout=10)\n    response.raise_for_status()\n    return response.json()"),
        right=_ed("{pkg}/clients/{mod}.py", "import httpx\n\n\ndef fetch_{mod}(base_url):\n    response = httpx.get(f\"{{base_url}}/{mod}\", timeout=10)\n    response.raise_for_status()\n    return response.json()"),
        prefer="httpx",
        avoid="requests",
        cue=r"\bhttpx\b",
    ),
    Convention(
        name="py-pathlib",
        stacks=("python",),
        family="api",
        requests={
            "en": ("add a helper that writes the {obj} report to disk", "save the {obj} export as a CSV next to the data dir",
                   "load the {obj} fixtures from the data folder"),
            "de": ("schreib eine Funktion, die den {obj}-Bericht speichert", "lade die {obj}-Fixtures aus dem Datenordner"),
            "fr": ("ajoute une fonction qui écrit le rapport {obj} sur disque", "charge les fixtures {obj} depuis le dossier data"),
            "es": ("añade una función que guarde el informe de {obj}", "carga los fixtures de {obj} desde la carpeta data"),
        },  # fmt: skip
        generic=_ed("{pkg}/io/{mod}.py", "import os\n\n\ndef {mod}_path(base):\n    return os.path.join(base, \"data\", \"{mod}.csv\")"),
        right=_ed("{pkg}/io/{mod}.py", "from pathlib import Path\n\n\ndef {mod}_path(base):\n    return Path(base) / \"data\" / \"{mod}.csv\""),
        prefer="pathlib",
        avoid="os.path",
        cue=r"\bpathlib\b",
    ),
    Convention(
        name="py-structlog",
        stacks=("python",),
        family="api",
        requests={
            "en": ("add logging to the {obj} worker", "log when {obj} sync starts and finishes", "we need logs in the {obj} job"),
            "de": ("füg Logging im {obj}-Worker hinzu", "logge Start und Ende vom {obj}-Sync"),
            "fr": ("ajoute des logs au worker {obj}", "logue le début et la fin de la synchro {obj}"),
            "es": ("añade logs al worker de {obj}", "registra cuándo empieza y termina la sincronización de {obj}"),
        },  # fmt: skip
        generic=_ed("{pkg}/workers/{mod}.py", "import logging\n\nlogger = logging.getLogger(__name__)\n\n\ndef run_{mod}():\n    logger.info(\"{mod} started\")"),
        right=_ed("{pkg}/workers/{mod}.py", "import structlog\n\nlog = structlog.get_logger()\n\n\ndef run_{mod}():\n    log.info(\"{mod}.started\")"),
        prefer="structlog",
        avoid="logging",
        cue=r"\bstructlog\b",
    ),
    Convention(
        name="py-utc",
        stacks=("python",),
        family="api",
        requests={
            "en": ("stamp each {obj} record with the time it was created", "add a created_at timestamp to {obj}"),
            "de": ("gib jedem {obj}-Eintrag einen Zeitstempel", "füg {obj} ein created_at hinzu"),
            "fr": ("ajoute un horodatage created_at à {obj}", "horodate chaque enregistrement {obj}"),
            "es": ("añade un created_at a {obj}", "pon la hora de creación en cada registro de {obj}"),
        },  # fmt: skip
        generic=_ed("{pkg}/models/{mod}.py", "from datetime import datetime\n\n\ndef stamp_{mod}(row):\n    row[\"created_at\"] = datetime.utcnow()\n    return row"),
        right=_ed("{pkg}/models/{mod}.py", "from datetime import datetime, timezone\n\n\ndef stamp_{mod}(row):\n    row[\"created_at\"] = datetime.now(timezone.utc)\n    return row"),
        prefer="datetime.now(timezone.utc)",
        avoid="datetime.utcnow()",
        cue=r"timezone\.utc",
    ),
    Convention(
        name="py-test-place",
        stacks=("python",),
        family="place",
        requests={
            "en": ("write unit tests for {obj}", "add a test covering the empty {obj} case", "cover {mod} with tests"),
            "de": ("schreib Unit-Tests für {obj}", "füg einen Test für den leeren {obj}-Fall hinzu"),
            "fr": ("écris des tests unitaires pour {obj}", "ajoute un test pour le cas {obj} vide"),
            "es": ("escribe tests unitarios para {obj}", "añade un test para el caso de {obj} vacío"),
        },  # fmt: skip
        generic=_ed("tests/test_{mod}.py", "from {pkg}.{mod} import handle\n\n\ndef test_{mod}_empty():\n    assert handle([]) == []"),
        right=_ed("tests/unit/test_{mod}.py", "from {pkg}.{mod} import handle\n\n\ndef test_{mod}_empty():\n    assert handle([]) == []"),
        prefer="tests/unit/",
        avoid="tests/",
        cue=r"tests/unit",
    ),
)
