"""Upstream microsoft/SkillOpt and this project on the same workload, alternating, in one run.

Why: a ratio is only honest when both sides ran on the same machine, under the same load,
against the same fake provider, minutes apart. This script runs upstream's ``scripts/train.py``
and our ``skillopt run`` (one or more venvs of ours, e.g. main and a branch) in alternating
order, ``--rounds`` times per latency setting, and prints per metric the median of each side
and the median (and range) of the per-round ratios ours / upstream.

The workload and the provider are the upstream kit's (a folder holding ``fake_openai_perf.py``
and ``split/``; see its README): 40 train / 20 val / 20 test SearchQA items, 1 epoch, batch 20,
minibatch 8, merge fan-in 8, cosine edit budget 4 -> 2, 24 rollout / 16 analyst workers, gate
and test on; ours with ``--preset paper`` (upstream's strict gate), so both sides take the same
decisions. The fake target is right or wrong by a hash of the question plus a bonus per rule
marker the optimizer's edits put in the skill; the optimizer answers one generic JSON object.

Latency settings: a number is a fixed per-call latency in seconds; ``realistic`` is the kit's
lognormal model per call kind (``target=1.0:0.6,optimizer=6:0.5``: median seconds and sigma), with
the same latency seed for both sides of a round.

Each round holds ``--lock`` (flock) for its runs, so no test suite shares the CPU with them; each
run's line says the load average when it started. ``PYTHONDONTWRITEBYTECODE`` is removed from the
runs' environment (as ``cli_start.py`` does): set, it has every module of an editable install compiled
again on each start, which no installed copy does.

Metrics (per run): wall (process start to exit), start -> first request, request span,
exit after the last response, client CPU (user, user + sys, of the training process and its
children), max RSS, calls (by kind), prompt characters, sequential waves (the longest chain of
requests each sent after the previous one was answered: at a fixed latency, the schedule's
depth), and the outcome (accepts, val and test scores). ``--prefix-cache`` also saves every
prompt and reports the characters a provider's prefix cache would serve (see
:func:`prefix_cache`).

    python benchmarks/side_by_side.py --kit KIT --upstream CHECKOUT --upstream-venv VENV \
        [--ours .venv] [--ours main=/path/to/main/.venv] [--ours p90=.venv:model.target.hedge_after=p90] \
        --rounds 5 --latency 0.2 0 realistic

An ``--ours`` side may carry settings after a colon (``NAME=VENV:key=value,key=value``), passed to
its runs as ``--set``: the same code with hedging on, for instance. Ours' outcome also gives the
ledger's requests, hedges sent and hedges won (``summary.json``): a losing copy still out when the
run exits is in neither the fake's log nor ``calls``, but it is in ``requests`` and ``hedges``.

``--kit``, ``--upstream`` and ``--upstream-venv`` default to the environment variables
``SKILLOPT_UPSTREAM_KIT``, ``SKILLOPT_UPSTREAM`` and ``SKILLOPT_UPSTREAM_VENV``.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import signal
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

REALISTIC = "target=1.0:0.6,optimizer=6:0.5"
ROOT = Path(__file__).resolve().parent.parent

#: the workload, as the kit's run_ours.sh / run_upstream.sh set it
OURS_SETS = (
    "model.backend=openai-compatible", "model.base_url={url}", "model.api_key=dummy",
    "model.optimizer.model=fake-optimizer", "model.target.model=fake-target",
    "train.num_epochs=1", "train.batch_size=20", "train.train_size=40", "evaluation.eval_test=true",
    "env.split_dir={split}", "env.workers=24", "env.exec_timeout=120", "gradient.analyst_workers=16",
    "model.max_in_flight=24",
)
# upstream HEAD bdfdc30 drops the YAML `env:` section while loading, so the kit re-supplies every
# env.* value of its searchqa config through --cfg-options (they are applied after the YAML merge)
UPSTREAM_OPTIONS = (
    "model.optimizer_backend=openai_compatible", "model.target_backend=openai_compatible",
    "model.optimizer=fake-optimizer", "model.target=fake-target",
    "train.num_epochs=1", "train.batch_size=20", "train.train_size=40", "evaluation.eval_test=true",
    "env.name=searchqa", "env.skill_init=skillopt/envs/searchqa/skills/initial.md",
    "env.split_mode=split_dir", "env.split_seed=42", "env.exec_timeout=120", "env.max_turns=1",
    "env.max_completion_tokens=16384", "env.workers=24", "env.limit=0",
    "env.split_dir={split}", "env.out_root={out}",
)

METRICS = (
    ("wall_s", "wall, s"), ("first_request_s", "start -> first request, s"), ("span_s", "first -> last request, s"),
    ("exit_s", "last response -> exit, s"), ("cpu_user_s", "client CPU user, s"), ("cpu_s", "client CPU user+sys, s"),
    ("rss_mb", "max RSS, MB"), ("calls", "calls"), ("prompt_chars", "prompt characters"), ("waves", "sequential waves"),
)


class Side:
    """How to start one contender's training run against a fake server."""

    def __init__(self, name: str, kind: str, venv: Path, checkout: Path | None = None, sets: tuple[str, ...] = ()):
        self.name, self.kind, self.venv, self.checkout = name, kind, venv, checkout
        #: extra ``--set key=value`` of this side of ours (hedging on, ...)
        self.sets = sets

    def command(self, run: Path, url: str, split: Path) -> tuple[list[str], dict[str, str], Path]:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        # each side's own sources are editable installs: without bytecode caching they are compiled again
        # on every start (0.2-0.3 s of ours on this machine), which an installed copy never does
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if self.kind == "upstream":
            assert self.checkout is not None
            options = [o.format(split=split, out=run / "out") for o in UPSTREAM_OPTIONS]
            env.update(OPENAI_COMPATIBLE_BASE_URL=url, OPENAI_COMPATIBLE_API_KEY="dummy", OPENAI_COMPATIBLE_MODEL="fake-model")
            cmd = [str(self.venv / "bin" / "python"), "scripts/train.py", "--config", "configs/searchqa/default.yaml",
                   "--cfg-options", *options]
            return cmd, env, self.checkout
        env["SKILLOPT_HOME"] = str(run / "home")  # a fresh call cache: every call is paid
        cmd = [str(self.venv / "bin" / "skillopt"), "run", "--env", "searchqa", "--preset", "paper", "--out", str(run / "out")]
        for s in OURS_SETS:
            cmd += ["--set", s.format(url=url, split=split)]
        for s in self.sets:
            cmd += ["--set", s]
        return cmd, env, ROOT


@contextmanager
def held(lock: str):
    """The shared CPU lock (flock), so no test suite runs beside a measurement."""
    if not lock:
        yield
        return
    with open(lock, "a") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def run_once(side: Side, run: Path, kit: Path, latency: str, seed: int, dump: bool) -> dict:
    run.mkdir(parents=True, exist_ok=True)
    fixed, model = ("0", REALISTIC) if latency == "realistic" else (latency, "")
    server_cmd = [sys.executable, str(kit / "fake_openai_perf.py"), "--latency", fixed, "--latency-seed", str(seed),
                  "--items", str(kit / "split"), "--generic-json", "--log", str(run / "requests.jsonl")]
    if model:
        server_cmd += ["--latency-model", model]
    if dump:
        server_cmd += ["--dump-dir", str(run / "prompts")]
    server = subprocess.Popen(server_cmd, stdout=subprocess.PIPE, stderr=open(run / "server.err", "w"), text=True)  # noqa: SIM115 - the server's stderr for its life
    try:
        port = server.stdout.readline().strip()
        cmd, env, cwd = side.command(run, f"http://127.0.0.1:{port}/v1", kit / "split")
        with open(run / "train.log", "w") as log:
            t_start = time.time()
            proc = subprocess.Popen(cmd, env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT)
            _, status, usage = os.wait4(proc.pid, 0)
            t_end = time.time()
            proc.returncode = os.waitstatus_to_exitcode(status)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(10)
    out = analyse(run, side.kind, t_start, t_end)
    out.update(rc=proc.returncode, cpu_user_s=round(usage.ru_utime, 3), cpu_s=round(usage.ru_utime + usage.ru_stime, 3),
               rss_mb=round(usage.ru_maxrss / 1024, 1))
    if dump:
        out["prefix_cache"] = prefix_cache(run)
    (run / "analysis.json").write_text(json.dumps(out, indent=1))
    return out


def waves(requests: list[dict]) -> int:
    """The longest chain of requests each sent after the previous one was answered (the most
    requests that are pairwise sequential: greedy by earliest answer)."""
    count, free_at = 0, float("-inf")
    for r in sorted(requests, key=lambda r: r["t1"]):
        if r["t0"] >= free_at:
            count, free_at = count + 1, r["t1"]
    return count


def analyse(run: Path, kind: str, t_start: float, t_end: float) -> dict:
    requests = [json.loads(line) for line in (run / "requests.jsonl").read_text().splitlines()] if (run / "requests.jsonl").exists() else []
    requests.sort(key=lambda r: r["t0"])
    by_kind: dict[str, int] = {}
    for r in requests:
        sub = "target" if r["kind"] == "target" else r["sub"]
        by_kind[sub] = by_kind.get(sub, 0) + 1
    out = {"wall_s": round(t_end - t_start, 3), "calls": len(requests), "by_kind": by_kind,
           "prompt_chars": sum(r["chars"] for r in requests), "waves": waves(requests)}
    if requests:
        out["first_request_s"] = round(requests[0]["t0"] - t_start, 3)
        last = max(r["t1"] for r in requests)
        out["span_s"] = round(last - requests[0]["t0"], 3)
        out["exit_s"] = round(t_end - last, 3)
    out["outcome"] = outcome(run / "out", kind)
    return out


def outcome(out: Path, kind: str) -> dict:
    """Accepts and scores, from either side's summary.json."""
    try:
        s = json.loads((out / "summary.json").read_text())
    except (OSError, ValueError):
        return {}
    if kind == "upstream":
        return {"accepts": s.get("total_accepts"), "val": [s.get("baseline_selection_hard"), s.get("best_selection_hard")],
                "test": [s.get("baseline_test_hard"), s.get("test_hard")]}
    test = s.get("test") or {}
    usage = s.get("usage") or {}
    return {"accepts": s.get("total_accepts"), "val": [s["val"].get("baseline_gate_score"), s["val"].get("best_gate_score")],
            "test": [(test.get("initial") or {}).get("hard"), (test.get("best") or {}).get("hard")],
            "requests": usage.get("requests"), "hedges": usage.get("hedges", 0), "hedges_won": usage.get("hedges_won", 0)}


def prefix_cache(run: Path, min_chars: int = 4096, block: int = 512) -> dict:
    """Prompt characters a provider's automatic prefix cache could serve: for each request, the
    longest prefix (system message first) it shares with a request answered before it was sent.
    ``shared_chars`` counts every such prefix; ``cached_chars`` only those a provider caches:
    at least ``min_chars`` (about 1,024 tokens, OpenAI's minimum), rounded down to ``block``
    characters (its 128-token increments). Billed characters are given at a cached price of
    0.1 (Anthropic cache reads, OpenAI's newer models) and 0.5 of the input price."""
    log = {r["n"]: r for r in (json.loads(line) for line in (run / "requests.jsonl").read_text().splitlines())}
    prompts = []
    for path in sorted((run / "prompts").glob("*.txt")):
        n = int(path.name.split("_", 1)[0])
        text = path.read_text(errors="replace")
        sys_text, _, user_text = text.partition("\n=== USER ===\n")
        prompts.append((n, sys_text.removeprefix("=== SYSTEM ===\n") + user_text))
    total = shared = cached = 0
    for n, text in prompts:
        rec = log.get(n)
        if rec is None:
            continue
        best = 0
        for m, other in prompts:
            prior = log.get(m)
            if m != n and prior is not None and prior["t1"] < rec["t0"]:
                best = max(best, len(os.path.commonprefix([text, other])))
        total, shared = total + len(text), shared + best
        cached += (best // block) * block if best >= min_chars else 0
    return {"chars": total, "shared_chars": shared, "cached_chars": cached,
            "billed_at_0.1": round(total - 0.9 * cached), "billed_at_0.5": round(total - 0.5 * cached)}


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def summarise(latency: str, upstream: list[dict], ours: dict[str, list[dict]]) -> dict:
    table = {}
    for key, _ in METRICS:
        row = {"upstream": median(r.get(key) for r in upstream)}
        for name, runs in ours.items():
            ratios = [o[key] / u[key] for u, o in zip(upstream, runs) if o.get(key) is not None and u.get(key)]
            row[name] = median(r.get(key) for r in runs)
            row[f"{name}/upstream"] = {"median": round(median(ratios), 3) if ratios else None,
                                       "min": round(min(ratios), 3) if ratios else None,
                                       "max": round(max(ratios), 3) if ratios else None,
                                       "pairs": [round(x, 3) for x in ratios]}
        table[key] = row
    kinds = sorted({k for r in upstream + [r for runs in ours.values() for r in runs] for k in r.get("by_kind", {})})
    table["calls_by_kind"] = {k: {"upstream": median(r["by_kind"].get(k, 0) for r in upstream),
                                  **{n: median(r["by_kind"].get(k, 0) for r in runs) for n, runs in ours.items()}} for k in kinds}
    table["outcomes"] = {"upstream": [r.get("outcome") for r in upstream], **{n: [r.get("outcome") for r in runs] for n, runs in ours.items()}}
    caches = {n: [r["prefix_cache"] for r in runs if "prefix_cache" in r] for n, runs in [("upstream", upstream), *ours.items()]}
    if any(caches.values()):
        table["prefix_cache"] = {n: c[0] if c else None for n, c in caches.items()}
    return {"latency": latency, "rounds": len(upstream), "table": table}


def print_table(result: dict, names: list[str]) -> None:
    t = result["table"]
    print(f"\n### latency {result['latency']} ({result['rounds']} rounds, alternating)\n")
    head = "| metric | upstream | " + " | ".join(f"{n} | {n} / upstream (range)" for n in names) + " |"
    print(head)
    print("|" + "---|" * (2 + 2 * len(names)))
    for key, label in METRICS:
        row = t[key]
        cells = [label, fmt(row["upstream"])]
        for n in names:
            r = row[f"{n}/upstream"]
            cells += [fmt(row[n]), f"{fmt(r['median'])} ({fmt(r['min'])}–{fmt(r['max'])})" if r["median"] is not None else "–"]
        print("| " + " | ".join(cells) + " |")
    print("\ncalls by kind:", json.dumps(t["calls_by_kind"]))
    print("outcomes:", json.dumps(t["outcomes"]))
    if "prefix_cache" in t:
        print("prefix cache:", json.dumps(t["prefix_cache"]))
    for n in names:
        print(f"per-round {n}/upstream wall:", t["wall_s"][f"{n}/upstream"]["pairs"])


def fmt(v) -> str:
    if v is None:
        return "–"
    if isinstance(v, float):
        return f"{v:.3f}" if abs(v) < 100 else f"{v:,.0f}"
    return f"{v:,}" if isinstance(v, int) else str(v)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kit", default=os.environ.get("SKILLOPT_UPSTREAM_KIT", ""), help="folder with fake_openai_perf.py and split/")
    p.add_argument("--upstream", default=os.environ.get("SKILLOPT_UPSTREAM", ""), help="upstream checkout (bdfdc30)")
    p.add_argument("--upstream-venv", default=os.environ.get("SKILLOPT_UPSTREAM_VENV", ""), help="upstream's venv")
    p.add_argument("--ours", action="append", default=[],
                   help="[NAME=]VENV[:key=value,...] of this project, the key=values passed as --set (repeatable; default ./.venv)")
    p.add_argument("--rounds", type=int, default=5)
    p.add_argument("--first-round", type=int, default=1,
                   help="number of the first round (its latency seed; later rounds go on from there), to add rounds to a run")
    p.add_argument("--latency", nargs="+", default=["0.2", "0", "realistic"])
    p.add_argument("--lock", default="/tmp/skillopt-cpu.lock", help="flock held for each round ('' = none)")
    p.add_argument("--out", default="", help="where runs are kept (default: a new temporary folder)")
    p.add_argument("--prefix-cache", action="store_true", help="save prompts in round 1 and report prefix-cache hits")
    p.add_argument("--json", default="", help="also write the results to this file")
    a = p.parse_args()
    if not (a.kit and a.upstream and a.upstream_venv):
        p.error("--kit, --upstream and --upstream-venv (or SKILLOPT_UPSTREAM_KIT / _UPSTREAM / _UPSTREAM_VENV) are required")
    kit = Path(a.kit).resolve()
    if not (kit / "fake_openai_perf.py").exists() or not (kit / "split").is_dir():
        p.error(f"{kit} holds no fake_openai_perf.py and split/ (the upstream kit)")
    upstream = Side("upstream", "upstream", Path(a.upstream_venv).resolve(), Path(a.upstream).resolve())
    ours = []
    for spec in a.ours or [str(ROOT / ".venv")]:
        head, _, sets = spec.partition(":")
        name, _, venv = head.rpartition("=")
        ours.append(Side(name or "ours", "ours", Path(venv).resolve(), sets=tuple(filter(None, sets.split(",")))))
    if len({s.name for s in ours}) != len(ours):
        p.error("give each --ours its own NAME= when there are several")
    import tempfile

    base = Path(a.out or tempfile.mkdtemp(prefix="side_by_side_"))
    results = []
    for latency in a.latency:
        runs: dict[str, list[dict]] = {s.name: [] for s in [upstream, *ours]}
        for i in range(a.first_round, a.first_round + a.rounds):
            order = [upstream, *ours] if i % 2 else [*ours[::-1], upstream]  # alternate who goes first
            with held(a.lock):
                for side in order:
                    tag = latency.replace(".", "")
                    load = os.getloadavg()[0]
                    got = run_once(side, base / f"{side.name}_lat{tag}_r{i}", kit, latency, seed=i,
                                   dump=a.prefix_cache and i == a.first_round)
                    got["load_1min"] = round(load, 2)
                    runs[side.name].append(got)
                    print(f"latency {latency} round {i} {side.name}: wall {got['wall_s']} s, first request "
                          f"{got.get('first_request_s')} s, rc {got['rc']}, waves {got['waves']}, calls {got['calls']}, "
                          f"load {load:.2f}", file=sys.stderr, flush=True)
        result = summarise(latency, runs["upstream"], {s.name: runs[s.name] for s in ours})
        results.append(result)
        print_table(result, [s.name for s in ours])
    print(f"\nruns kept in {base}")
    if a.json:
        Path(a.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
