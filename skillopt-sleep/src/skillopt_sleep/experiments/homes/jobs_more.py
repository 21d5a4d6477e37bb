"""Recurring Node, Go, Rust and stack-independent jobs (data written for this project, CC0-1.0)."""

from __future__ import annotations

from skillopt_sleep.experiments.homes.convention import Convention, ed as _ed, sh as _sh

MORE: tuple[Convention, ...] = (
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
