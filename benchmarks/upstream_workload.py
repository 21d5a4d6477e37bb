"""Upstream's SearchQA workload shape, run through the real CLI against a loopback server.

Why: ``engine_overhead.py`` times the engine on the toy env (tiny prompts, in-process). This
script reproduces the shape of a microsoft/SkillOpt SearchQA run, so our numbers can be put
next to upstream's: a 40/20/20 split, contexts of 3,700–6,700 characters, upstream's
settings (1 epoch, batch 20, minibatch 8, merge fan-in 8, cosine edit budget 4 → 2, 24
rollout workers, 16 analyst workers, gate and test evaluation on), and the whole program:
``skillopt run`` in a subprocess, so interpreter start-up, imports, config, data loading,
run-directory files and the ``openai`` SDK over real HTTP are all counted.

The server (127.0.0.1, fixed ``--latency`` per call) is a skill-sensitive scripted model
pair. Each item has one of four kinds, each kind a rule token; the target answers an item
right when its system prompt (the skill) holds that kind's token, and otherwise wrong
(except a seeded per-item base rate of right answers). The optimizer proposes the tokens of
the kinds it sees failing, as core/tests/toy.py's ``toy_optimizer`` does, so the tokens
must be learnt through the real reflect / merge / gate stages (ranking runs only when the
merged edits exceed the step's budget). The ideal wall time is the sum over sequential phases
(maximal runs of one stage label) of ceil(calls / concurrency) × latency, with the concurrency
of the stage (rollouts: workers; analysts: 16; others: the in-flight limit). Timings are
medians over ``--repeats``; counts, phases and the outcome are the first run's.

    python benchmarks/upstream_workload.py [--latency 0.2] [--repeats 1] [--scale 1] [--workers 24]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from skillopt.scripted import minimal_instance

sys.path.insert(0, str(Path(__file__).resolve().parent))
from loopback import send_chat_completion, serve

RULES = {"person": "RULE-NAMEFORM", "place": "RULE-PLACECHECK", "year": "RULE-YEARONLY", "title": "RULE-TITLECASE"}
ADVICE = {"person": "for a person, give the full given name and surname as written in the matching snippet",
          "place": "for a place, check every detail of the clue against the snippet before naming the town",
          "year": "for a year, answer with the four digits only",
          "title": "for a work, copy its title exactly, without the author or the year"}
BASE_RATE = 0.12  # seeded per item: right without its rule, so val is not all zero
TARGET_SYSTEM = "You answer Jeopardy-style clues using search snippets."
STAGE_MARKERS = [("You are the failure analyst", "analyst"), ("You are the success analyst", "analyst"),
                 ("You merge", "merge"), ("You combine two merged", "merge"), ("You select which", "ranking")]

SYL = ["ka", "lor", "ven", "mar", "tis", "bel", "dor", "quin", "sel", "ra", "mo", "thes", "win", "gal", "ur", "fen", "ost", "ley"]
ROLES = ["engineer", "architect", "surveyor", "botanist", "cartographer"]
DEEDS = ["completed the iron bridge", "drew the first chart of the estuary", "designed the grain exchange",
         "built the tidal mill"]
EVENTS = ["regatta", "wool fair", "lantern festival", "chess congress"]
WORKS = ["novel", "opera", "play", "poem"]
TOPICS = ["a lighthouse keeper", "a clockmaker's widow", "two rival brewers", "a lost orchard", "a winter ferry"]
FILLER = ["The {n} archive lists opening hours that change with the seasons.", "The road from {t} to the coast was paved later.",
          "Visitors to {t} often remark on the narrow lanes behind the harbour.", "Several accounts disagree about the date.",
          "A guide published in {y} describes the market square and its fountain.",
          "Local records mention {n} only briefly, in a note about the parish boundaries.",
          "The museum at {t} keeps a collection of maps, letters and tools from the period.",
          "Historians of the region have written at length about its trade in salt and timber."]


def name(rng: random.Random, parts: int = 2) -> str:
    return " ".join("".join(rng.choice(SYL) for _ in range(rng.randint(2, 3))).capitalize() for _ in range(parts))


def make_item(rng: random.Random, kind: str, idx: int, split: str) -> dict:
    person, town, year = name(rng), name(rng, 1) + "ford", str(rng.randint(1700, 1950))
    decoy_person, decoy_town, decoy_year = name(rng), name(rng, 1) + "by", str(int(year) + rng.randint(3, 40))
    work = "The " + name(rng, 1) + " " + rng.choice(["Tower", "Garden", "Road", "Letters"])
    decoy_work = "The " + name(rng, 1) + " " + rng.choice(["Bell", "Shore", "House"])
    role, deed, event, form, topic = (rng.choice(x) for x in (ROLES, DEEDS, EVENTS, WORKS, TOPICS))
    question, fact, decoy, answer, wrong = {
        "person": (f"In {year} this {role} {deed} at {town}", f"In {year} the {role} {person} {deed} at {town}.",
                   f"In {year} the {role} {decoy_person} {deed} at {decoy_town}.", person, decoy_person),
        "place": (f"This town hosted its first {event} in {year}, opened by {person}",
                  f"{town} hosted its first {event} in {year}; {person} opened it.",
                  f"{decoy_town} hosted its first {event} in {decoy_year}.", town, decoy_town),
        "year": (f"In this year {person} {deed} at {town}", f"{person} {deed} at {town} in {year}.",
                 f"{person} visited {town} again in {decoy_year}.", year, decoy_year),
        "title": (f"{person} wrote this {year} {form} about {topic}",
                  f"{person} is best known for {work} ({year}), a {form} about {topic}.",
                  f"{decoy_person} wrote {decoy_work} ({year}), a {form} about {topic}.", work, decoy_work),
    }[kind]
    target_len = rng.randint(4450, 6700)  # filled to within one snippet (< 750 chars) of it

    def block(text: str) -> str:
        source = rng.choice(["almanac", "heritage trail", "newspaper archive", "museum notes"])
        return f"[DOC] [TLE] {name(rng, 1)} - {source} [PAR] {text}"

    blocks = [block(decoy), block(fact)]
    while True:
        filler = block(" ".join(f.format(n=name(rng), t=name(rng, 1), y=rng.randint(1800, 1990))
                                for f in rng.sample(FILLER, rng.randint(3, 7))))
        if sum(len(b) + 1 for b in blocks) + len(filler) > target_len:
            break
        blocks.append(filler)
    rng.shuffle(blocks)
    return {"id": f"uw-{split}-{idx:04d}", "question": question, "context": "\n".join(blocks), "answers": [answer],
            "task_type": kind, "split": split, "_wrong": wrong, "_lucky": rng.random() < BASE_RATE}


def make_workload(root: Path, sizes: dict[str, int], seed: int = 7) -> dict[str, dict]:
    """Writes ``root/<split>/items.json`` (the layout of ``env.split_dir``); returns items by question."""
    rng, by_question = random.Random(seed), {}
    kinds = list(RULES)
    for split, n in sizes.items():
        items = []
        while len(items) < n:
            item = make_item(rng, kinds[len(items) % 4], len(items), split)
            if item["question"] not in by_question:
                by_question[item["question"]] = item
                items.append(item)
        (root / split).mkdir(parents=True)
        rows = [{k: v for k, v in it.items() if not k.startswith("_")} for it in items]
        (root / split / "items.json").write_text(json.dumps(rows, indent=1))
    return by_question


def optimizer_reply(stage: str, text: str, schema: dict | None):
    if stage == "analyst":
        section = text.split("## Failed trajectories", 1)
        if len(section) < 2:
            return {"reasoning": "nothing new", "edits": [], "success_patterns": []}
        kinds = sorted(set(re.findall(r"### Trajectory \d+ \(task type: (\w+);", section[1])) & set(RULES))
        edits = [{"op": "append", "content": f"- {RULES[k]}: {ADVICE[k]}."} for k in kinds]
        budget = re.search(r"Propose at most (\d+) edits", text)
        edits = edits[: int(budget.group(1))] if budget else edits
        summary = [{"failure_type": "missing rule", "description": ", ".join(kinds)}]
        return {"reasoning": "missing rules", "failure_summary": summary, "edits": edits}
    if stage == "merge":
        seen, edits, decoder = set(), [], json.JSONDecoder()
        for chunk in text.split("### Proposal")[1:]:
            for e in decoder.raw_decode(chunk[chunk.index("["):])[0]:
                if e["content"] not in seen:
                    seen.add(e["content"])
                    edits.append({"op": e["op"], "content": e["content"], "target": e.get("target") or ""})
        return {"reasoning": "union", "edits": edits}
    if stage == "ranking":
        n = len(re.findall(r"^\[\d+\]", text, re.MULTILINE))
        budget = int(re.search(r"Keep at most (\d+)", text).group(1))
        return {"reasoning": "in order", "selected_indices": list(range(n))[:budget]}
    return minimal_instance(schema) if schema is not None else "ok"


def make_server(items: dict[str, dict], latency: float):
    log: list[dict] = []
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as real servers do

        def log_message(self, *args):
            pass

        def do_POST(self):
            start = time.monotonic()
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            msgs = [m for m in body["messages"] if isinstance(m.get("content"), str)]
            system, last = msgs[0]["content"], msgs[-1]["content"]
            fmt = body.get("response_format") or {}
            schema = (fmt.get("json_schema") or {}).get("schema") if fmt.get("type") == "json_schema" else fmt.get("schema")
            entry = {"t": start, "chars": sum(len(m["content"]) for m in msgs), "split": ""}
            if system.startswith(TARGET_SYSTEM) and schema is None:
                clue = re.search(r"^Clue: (.*)$", last, re.MULTILINE)
                item = items.get(clue.group(1).strip()) if clue else None
                entry["split"] = item["split"] if item else "?"
                entry["role"], entry["label"] = "target", f"rollout:{entry['split']}"
                if item is None:
                    text = "Answer: unknown"
                else:
                    right = RULES[item["task_type"]] in system or item["_lucky"]
                    text = f"The matching snippet names it.\nAnswer: {item['answers'][0] if right else item['_wrong']}"
            else:
                stage = next((s for marker, s in STAGE_MARKERS if system.startswith(marker)), "other")
                entry["role"], entry["label"] = "optimizer", stage
                reply = optimizer_reply(stage, "\n".join(m["content"] for m in msgs), schema)
                text = reply if isinstance(reply, str) else json.dumps(reply)
            time.sleep(latency)
            send_chat_completion(self, text, model=body.get("model", "bench"), prompt_tokens=entry["chars"] // 4)
            entry["end"] = time.monotonic()
            with lock:
                log.append(entry)

    server = serve(Handler)
    return server, log


def ideal_seconds(log: list[dict], latency: float, conc: dict[str, int]) -> tuple[float, list[list]]:
    """Sum over sequential phases (maximal runs of one stage label) of ceil(n / concurrency) × latency.

    Also the phases as "label xCALLS START-END" (seconds from the first request to the last reply)."""
    log = sorted(log, key=lambda e: e["t"])
    phases: list[list] = []
    for e in log:
        if phases and phases[-1][0] == e["label"]:
            phases[-1][1] += 1
            phases[-1][3] = max(phases[-1][3], e["end"])
        else:
            phases.append([e["label"], 1, e["t"], e["end"]])
    total = sum(math.ceil(n / conc.get(label.split(":")[0], conc["other"])) * latency for label, n, _, _ in phases)
    t0 = log[0]["t"]
    return total, [f"{label} x{n} {a - t0:.3f}-{b - t0:.3f}" for label, n, a, b in phases]


def run_once(args, work: Path) -> dict:
    sizes = {"train": 40 * args.scale, "val": 20 * args.scale, "test": 20 * args.scale}
    items = make_workload(work / "data", sizes)
    server, log = make_server(items, args.latency)
    workers, in_flight = args.workers, max(args.workers, 24)
    settings = {
        "model.model": "bench", "model.base_url": f"http://127.0.0.1:{server.server_port}/v1", "model.cache": "off",
        "model.max_in_flight": in_flight, "env.split_dir": str(work / "data"), "env.workers": workers,
        "train.num_epochs": 1, "train.batch_size": 20, "train.max_steps": 0, "gradient.minibatch_size": 8,
        "gradient.merge_batch_size": 8, "gradient.analyst_workers": 16, "optimizer.learning_rate": 4,
        "optimizer.min_learning_rate": 2, "optimizer.lr_scheduler": "cosine", "optimizer.use_slow_update": False,
        "optimizer.use_meta_skill": False, "evaluation.use_gate": True, "evaluation.eval_test": True,
        "evaluation.sel_env_num": 0, "evaluation.test_env_num": 0,
    }
    cmd = [sys.executable, "-m", "skillopt", "run", "--env", "searchqa", "--backend", "openai-compatible", "--json",
           "--out", str(work / "run")]
    for key, value in settings.items():
        cmd += ["--set", f"{key}={str(value).lower() if isinstance(value, bool) else value}"]
    for extra in args.set:
        cmd += ["--set", extra]
    env = dict(os.environ, SKILLOPT_HOME=str(work / "home"), OPENAI_COMPATIBLE_API_KEY="sk-bench-loopback")
    env.pop("OPENAI_COMPATIBLE_BASE_URL", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's default: bytecode cached, not recompiled every start
    if args.profile:  # collapsed stacks of every thread (py-spy must be installed)
        cmd = ["py-spy", "record", "--threads", "--gil", "--rate", "250", "--format", "raw", "-o", args.profile, "--", *cmd]
    before, server_before = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    started = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    wall = time.monotonic() - started
    after, server_after = resource.getrusage(resource.RUSAGE_CHILDREN), resource.getrusage(resource.RUSAGE_SELF)
    server.shutdown()
    if proc.returncode != 0:
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"skillopt run exited {proc.returncode}: {' '.join(cmd)}")
    summary = json.loads(proc.stdout)
    user, sys_cpu = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    conc = {"rollout": min(workers, in_flight), "analyst": min(16, in_flight), "other": in_flight}
    ideal, phases = ideal_seconds(log, args.latency, conc)
    first, last, last_end = min(e["t"] for e in log), max(e["t"] for e in log), max(e["end"] for e in log)
    by_stage: dict[str, int] = {}
    chars_by_stage: dict[str, int] = {}
    for e in log:
        by_stage[e["label"]] = by_stage.get(e["label"], 0) + 1
        chars_by_stage[e["label"]] = chars_by_stage.get(e["label"], 0) + e["chars"]
    return {
        "calls": len(log), "calls_by_stage": by_stage, "phases": phases,
        "prompt_chars": sum(chars_by_stage.values()), "prompt_chars_by_stage": chars_by_stage,
        "wall_s": wall, "ideal_s": ideal, "efficiency": ideal / wall, "wall_minus_ideal_s": wall - ideal,
        "startup_to_first_request_s": first - started, "span_first_to_last_s": last - first,
        "last_reply_to_exit_s": started + wall - last_end,
        "client_cpu_s": user + sys_cpu, "client_cpu_user_s": user, "client_cpu_ms_per_call": 1000 * (user + sys_cpu) / len(log),
        "server_cpu_s": sum(getattr(server_after, f) - getattr(server_before, f) for f in ("ru_utime", "ru_stime")),
        # busy time of the server (arrival to reply written) over first arrival to last reply
        "avg_in_flight": sum(e["end"] - e["t"] for e in log) / (last_end - first) if last_end > first else 0.0,
        "outcome": outcome(summary),
    }


def outcome(s: dict) -> dict:
    val, test = s.get("val") or {}, s.get("test") or {}
    return {"status": s.get("status"), "baseline_val": val.get("baseline_gate_score"), "best_val": val.get("best_gate_score"),
            "test_initial_hard": (test.get("initial") or {}).get("hard"), "test_best_hard": (test.get("best") or {}).get("hard"),
            "steps": s.get("steps_completed"), "accepts": s.get("total_accepts"), "engine_wall_s": s.get("total_wall_time_s")}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.2, help="seconds the server sleeps before each reply")
    parser.add_argument("--repeats", type=int, default=1, help="runs; timings are medians")
    parser.add_argument("--scale", type=int, default=1, help="multiply the 40/20/20 split sizes")
    parser.add_argument("--workers", type=int, default=24, help="rollout workers (in-flight limit = max(this, 24))")
    parser.add_argument("--set", action="append", default=[], help="extra skillopt --set key=value")
    parser.add_argument("--profile", default="", help="write py-spy collapsed stacks of the run (CPU only) to this file")
    args = parser.parse_args()
    runs = []
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory(prefix="skillopt-uw-") as work:
            runs.append(run_once(args, Path(work)))
    result = {"latency_s": args.latency, "scale": args.scale, "workers": args.workers, "repeats": args.repeats}
    for key, value in runs[0].items():
        result[key] = round(statistics.median(r[key] for r in runs), 3) if isinstance(value, float) else value
    if args.repeats > 1:
        result["wall_s_runs"] = [round(r["wall_s"], 3) for r in runs]
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
