"""The jobs a generated home's developer repeats, each with its house convention
(data written for this project, CC0-1.0).

A :class:`Convention` is one recurring job: how the developer asks for it (per
language), what a convention-blind agent does (``generic``), what an agent that
follows only the project's memory file does (``base``, when the memory states a
related convention), and what the developer keeps (``right``). ``family`` says how the
difference shows in a session: ``tool`` (another tool; the generic attempt fails),
``flag`` (the same tool with an option the developer wants), ``api`` (code written
with another library or call), ``place`` (a file written under another directory),
``late`` (an edit the developer corrects after the agent said it was done).

Texts take placeholders filled per project and per session: ``{run}`` (the Python
runner: ``uv run`` or ``poetry run``), ``{pm}`` (the Node package manager), ``{pkg}``
(the project's package), ``{obj}`` / ``{mod}`` / ``{Mod}`` (what one request is about:
in words, as an identifier, as a class name), ``{ver}`` (a release number), ``{dep}``
(a dependency). ``cue`` is what a document must say for the stand-in coding model to
do the job the developer's way (:mod:`.follower`).
"""

from __future__ import annotations

import attrs


@attrs.frozen(kw_only=True)
class Act:
    """One attempt at a job: a shell command (``text``), or an edit writing ``text`` to ``path``."""

    kind: str  # shell | edit
    text: str
    path: str = ""
    exit_code: int = 0
    output: str = ""


@attrs.frozen(kw_only=True)
class Convention:
    name: str
    stacks: tuple[str, ...]
    family: str  # tool | flag | api | place | late
    requests: dict[str, tuple[str, ...]]
    generic: Act
    right: Act
    #: what the developer says to prefer and to avoid (``late``: where it should go, and where it went, in words)
    prefer: str
    avoid: str
    #: a regex: a document matching it makes the stand-in model do the job the developer's way
    cue: str
    #: the memory file's line stating a related, coarser convention ('' = the memory says nothing about this job)
    memory_line: str = ""
    #: what an agent following only that memory line does
    base: Act | None = None


def _sh(text: str, exit_code: int = 0, output: str = "") -> Act:
    return Act(kind="shell", text=text, exit_code=exit_code, output=output)


def _ed(path: str, text: str) -> Act:
    return Act(kind="edit", path=path, text=text)


PY_IMPORT_ERROR = "ImportError while loading conftest '/src/tests/conftest.py'.\ntests/conftest.py:3: in <module>\n    from {pkg} import app\nE   ModuleNotFoundError: No module named '{pkg}'"

CONVENTIONS: tuple[Convention, ...] = (
    # ------------------------------------------------------------------ Python
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
    # ------------------------------------------------------------------ Node
    Convention(
        name="js-tests",
        stacks=("node",),
        family="tool",
        requests={
            "en": ("run the unit tests for the {obj} component", "the {obj} tests are red, run them and fix it",
                   "make sure the {obj} tests pass"),
            "de": ("lass die Unit-Tests der {obj}-Komponente laufen", "sind die {obj}-Tests grün?"),
            "fr": ("lance les tests unitaires du composant {obj}", "vérifie que les tests {obj} passent"),
            "es": ("ejecuta los tests del componente {obj}", "asegúrate de que pasan los tests de {obj}"),
        },  # fmt: skip
        generic=_sh("npm test -- {mod}", 1, "npm ERR! This project is configured to use {pm}"),
        right=_sh("{pm} test {mod}", 0, " ✓ src/{mod}.test.ts (6 tests) 41ms\n Test Files  1 passed (1)"),
        prefer="{pm} test",
        avoid="npm test",
        cue=r"{pm} test",
    ),
    Convention(
        name="js-lint",
        stacks=("node",),
        family="tool",
        requests={
            "en": ("lint the {obj} folder", "fix the lint errors in the {obj} component", "run the linter before I commit"),
            "de": ("lint bitte den {obj}-Ordner", "behebe die Lint-Fehler in {obj}"),
            "fr": ("passe le lint sur le dossier {obj}", "corrige les erreurs de lint dans {obj}"),
            "es": ("pasa el lint por la carpeta {obj}", "arregla los errores de lint en {obj}"),
        },  # fmt: skip
        generic=_sh("npx eslint .", 2, "ESLint couldn't find a configuration file."),
        right=_sh("{pm} lint", 0, "✔ No problems found"),
        prefer="{pm} lint",
        avoid="npx eslint",
        cue=r"{pm} lint",
    ),
    Convention(
        name="js-build",
        stacks=("node",),
        family="tool",
        requests={
            "en": ("build the app and tell me if it compiles", "does the production build still work after the {obj} change?"),
            "de": ("bau die App und sag mir, ob sie kompiliert", "klappt der Produktions-Build nach der {obj}-Änderung?"),
            "fr": ("compile l'app et dis-moi si ça passe", "le build de prod marche toujours après {obj} ?"),
            "es": ("compila la app y dime si funciona", "¿sigue funcionando el build después del cambio de {obj}?"),
        },  # fmt: skip
        generic=_sh("npm run build", 1, "npm ERR! missing script: build"),
        right=_sh("{pm} build", 0, "✓ built in 4.21s"),
        prefer="{pm} build",
        avoid="npm run build",
        cue=r"{pm} build",
    ),
    Convention(
        name="js-dayjs",
        stacks=("node",),
        family="api",
        requests={
            "en": ("show the {obj} date as a relative time", "format the {obj} timestamps for the table"),
            "de": ("zeig das {obj}-Datum als relative Zeit an", "formatiere die {obj}-Zeitstempel für die Tabelle"),
            "fr": ("affiche la date {obj} en temps relatif", "formate les dates {obj} pour le tableau"),
            "es": ("muestra la fecha de {obj} como tiempo relativo", "formatea las fechas de {obj} para la tabla"),
        },  # fmt: skip
        generic=_ed("src/lib/{mod}Dates.ts", "import moment from \"moment\";\n\nexport const format{Mod} = (d: string) => moment(d).fromNow();"),
        right=_ed("src/lib/{mod}Dates.ts", "import dayjs from \"dayjs\";\n\nexport const format{Mod} = (d: string) => dayjs(d).fromNow();"),
        prefer="dayjs",
        avoid="moment",
        cue=r"\bdayjs\b",
    ),
    Convention(
        name="js-apiclient",
        stacks=("node",),
        family="api",
        requests={
            "en": ("load the {obj} list from the backend", "fetch {obj} when the page opens", "call the {obj} endpoint from the dashboard"),
            "de": ("lade die {obj}-Liste vom Backend", "hol {obj} beim Öffnen der Seite"),
            "fr": ("charge la liste {obj} depuis le backend", "récupère {obj} à l'ouverture de la page"),
            "es": ("carga la lista de {obj} del backend", "pide {obj} al abrir la página"),
        },  # fmt: skip
        generic=_ed("src/api/{mod}.ts", "import axios from \"axios\";\n\nexport const load{Mod} = () => axios.get(\"/api/{mod}\").then((r) => r.data);"),
        right=_ed("src/api/{mod}.ts", "import {{ apiClient }} from \"@/lib/apiClient\";\n\nexport const load{Mod} = () => apiClient.get(\"/api/{mod}\");"),
        prefer="apiClient",
        avoid="axios",
        cue=r"\bapiClient\b",
    ),
    Convention(
        name="js-component-place",
        stacks=("node",),
        family="place",
        requests={
            "en": ("create a {Mod} button component", "add a small {Mod} badge component", "make a reusable {Mod} card"),
            "de": ("bau eine {Mod}-Button-Komponente", "erstell eine kleine {Mod}-Badge-Komponente"),
            "fr": ("crée un composant bouton {Mod}", "fais un composant carte {Mod} réutilisable"),
            "es": ("crea un componente botón {Mod}", "haz una tarjeta {Mod} reutilizable"),
        },  # fmt: skip
        generic=_ed("src/{Mod}.tsx", "export function {Mod}(props: {{ label: string }}) {{\n  return <span className=\"{mod}\">{{props.label}}</span>;\n}}"),
        right=_ed("src/components/ui/{Mod}.tsx", "export function {Mod}(props: {{ label: string }}) {{\n  return <span className=\"{mod}\">{{props.label}}</span>;\n}}"),
        prefer="src/components/ui/",
        avoid="src/",
        cue=r"components/ui",
    ),
    # ------------------------------------------------------------------ Go
    Convention(
        name="go-tests-race",
        stacks=("go",),
        family="flag",
        requests={
            "en": ("run the go tests for {obj}", "are the {obj} package tests passing?", "test the {obj} handler"),
            "de": ("lass die Go-Tests für {obj} laufen", "laufen die Tests im Paket {obj}?"),
            "fr": ("lance les tests go de {obj}", "les tests du paquet {obj} passent ?"),
            "es": ("ejecuta los tests de go de {obj}", "¿pasan los tests del paquete {obj}?"),
        },  # fmt: skip
        generic=_sh("go test ./...", 0, "ok  \texample.com/svc/{mod}\t0.412s"),
        right=_sh("go test -race ./...", 0, "ok  \texample.com/svc/{mod}\t1.904s"),
        prefer="go test -race",
        avoid="go test",
        cue=r"go test -race",
    ),
    Convention(
        name="go-lint",
        stacks=("go",),
        family="tool",
        requests={
            "en": ("lint the {obj} package", "check {obj} for lint issues", "run the linters before the {obj} PR"),
            "de": ("lint das Paket {obj}", "prüf {obj} auf Lint-Probleme"),
            "fr": ("passe les linters sur le paquet {obj}", "vérifie le lint de {obj}"),
            "es": ("pasa el linter al paquete {obj}", "revisa el lint de {obj}"),
        },  # fmt: skip
        generic=_sh("go vet ./...", 0, ""),
        right=_sh("golangci-lint run ./...", 0, "0 issues."),
        prefer="golangci-lint run",
        avoid="go vet",
        cue=r"golangci-lint",
    ),
    Convention(
        name="go-slog",
        stacks=("go",),
        family="api",
        requests={
            "en": ("log failed {obj} requests", "add a log line when {obj} retries", "we need logging in the {obj} handler"),
            "de": ("logge fehlgeschlagene {obj}-Anfragen", "füg Logging im {obj}-Handler hinzu"),
            "fr": ("logue les requêtes {obj} en échec", "ajoute des logs dans le handler {obj}"),
            "es": ("registra las peticiones fallidas de {obj}", "añade logs al handler de {obj}"),
        },  # fmt: skip
        generic=_ed("internal/{mod}/handler.go", "package {mod}\n\nimport \"log\"\n\nfunc logFailure(err error) {{\n\tlog.Printf(\"{mod} failed: %v\", err)\n}}"),
        right=_ed("internal/{mod}/handler.go", "package {mod}\n\nimport \"log/slog\"\n\nfunc logFailure(err error) {{\n\tslog.Error(\"{mod} failed\", \"err\", err)\n}}"),
        prefer="slog",
        avoid="log.Printf",
        cue=r"\bslog\b",
    ),
    # ------------------------------------------------------------------ Rust
    Convention(
        name="rs-nextest",
        stacks=("rust",),
        family="tool",
        requests={
            "en": ("run the tests for the {obj} crate", "do the {obj} tests still pass?", "test {obj} after my refactor"),
            "de": ("lass die Tests im Crate {obj} laufen", "laufen die {obj}-Tests noch?"),
            "fr": ("lance les tests de la crate {obj}", "les tests {obj} passent toujours ?"),
            "es": ("ejecuta los tests del crate {obj}", "¿siguen pasando los tests de {obj}?"),
        },  # fmt: skip
        generic=_sh("cargo test -p {mod}", 101, "error: linking with `cc` failed: exit status: 1\nnote: run with the nextest profile"),
        right=_sh("cargo nextest run -p {mod}", 0, "     Summary [   2.114s] 37 tests run: 37 passed, 0 skipped"),
        prefer="cargo nextest run",
        avoid="cargo test",
        cue=r"cargo nextest",
    ),
    Convention(
        name="rs-clippy",
        stacks=("rust",),
        family="flag",
        requests={
            "en": ("run clippy on {obj}", "any clippy warnings in {obj}?", "lint the {obj} crate"),
            "de": ("lass clippy über {obj} laufen", "gibt es clippy-Warnungen in {obj}?"),
            "fr": ("passe clippy sur {obj}", "il y a des warnings clippy dans {obj} ?"),
            "es": ("pasa clippy por {obj}", "¿hay avisos de clippy en {obj}?"),
        },  # fmt: skip
        generic=_sh("cargo clippy", 0, "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 3.02s"),
        right=_sh("cargo clippy --all-targets -- -D warnings", 0, "    Finished `dev` profile [unoptimized + debuginfo] target(s) in 3.40s"),
        prefer="cargo clippy --all-targets -- -D warnings",
        avoid="cargo clippy",
        cue=r"-D warnings",
    ),
    Convention(
        name="rs-anyhow",
        stacks=("rust",),
        family="api",
        requests={
            "en": ("return an error when {obj} parsing fails", "handle the {obj} read error instead of panicking"),
            "de": ("gib einen Fehler zurück, wenn das Parsen von {obj} scheitert", "behandle den {obj}-Lesefehler statt zu paniken"),
            "fr": ("renvoie une erreur quand le parsing de {obj} échoue", "gère l'erreur de lecture {obj} au lieu de paniquer"),
            "es": ("devuelve un error cuando falle el parseo de {obj}", "maneja el error de lectura de {obj} en vez de hacer panic"),
        },  # fmt: skip
        generic=_ed("src/{mod}.rs", "use std::error::Error;\n\npub fn load_{mod}(path: &str) -> Result<String, Box<dyn Error>> {{\n    Ok(std::fs::read_to_string(path)?)\n}}"),
        right=_ed("src/{mod}.rs", "use anyhow::{{Context, Result}};\n\npub fn load_{mod}(path: &str) -> Result<String> {{\n    std::fs::read_to_string(path).context(\"reading {mod}\")\n}}"),
        prefer="anyhow",
        avoid="Box<dyn Error>",
        cue=r"\banyhow\b",
    ),
    # ------------------------------------------------------------------ any stack
    Convention(
        name="release-tag",
        stacks=("python", "node", "go", "rust"),
        family="tool",
        requests={
            "en": ("tag the {ver} release", "cut the release tag for {ver}", "please tag this commit as {ver}"),
            "de": ("tagge das Release {ver}", "setz den Release-Tag für {ver}"),
            "fr": ("tague la version {ver}", "crée le tag de release {ver}"),
            "es": ("etiqueta la versión {ver}", "crea el tag de la release {ver}"),
        },  # fmt: skip
        generic=_sh("git tag {ver}", 0, ""),
        right=_sh("git tag -a v{ver} -m \"Release v{ver}\"", 0, ""),
        prefer="git tag -a v{ver}",
        avoid="git tag {ver}",
        cue=r"git tag -a v",
    ),
    Convention(
        name="changelog-late",
        stacks=("python", "node", "go", "rust"),
        family="late",
        requests={
            "en": ("add a changelog entry for the {obj} fix", "note the {obj} change in the changelog", "put {obj} in the changelog"),
            "de": ("trag den {obj}-Fix ins Changelog ein", "schreib die {obj}-Änderung ins Changelog"),
            "fr": ("ajoute une entrée au changelog pour {obj}", "note le changement {obj} dans le changelog"),
            "es": ("añade una entrada al changelog para {obj}", "apunta el cambio de {obj} en el changelog"),
        },  # fmt: skip
        generic=_ed("CHANGELOG.md", "- Fix {obj}"),
        right=_ed("CHANGELOG.md", "## [Unreleased]\n- Fix {obj}"),
        prefer="## [Unreleased]",
        avoid="at the end of the file",
        cue=r"Unreleased",
    ),
    Convention(
        name="compose",
        stacks=("python", "node", "go"),
        family="tool",
        requests={
            "en": ("start the local database", "bring up the dev services for {obj}", "spin up postgres and redis"),
            "de": ("start die lokale Datenbank", "fahr die Dev-Services für {obj} hoch"),
            "fr": ("démarre la base locale", "lance les services de dev pour {obj}"),
            "es": ("arranca la base de datos local", "levanta los servicios de desarrollo para {obj}"),
        },  # fmt: skip
        generic=_sh("docker-compose up -d", 127, "bash: docker-compose: command not found"),
        right=_sh("docker compose up -d", 0, " ✔ Container db-1  Started\n ✔ Container redis-1  Started"),
        prefer="docker compose",
        avoid="docker-compose",
        cue=r"docker compose",
    ),
)

BY_NAME = {c.name: c for c in CONVENTIONS}
