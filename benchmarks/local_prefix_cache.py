"""The embedded model's shared system prompt: items of one evaluation with the system
prompt's KV cache kept between calls, next to every call evaluated from an empty cache.

    python benchmarks/local_prefix_cache.py [--items 6] [--rules 30] [--rounds 2]

An evaluation sends every item the same system prompt (the env's instructions and the
skill), which is most of the prompt once a skill has grown. The local backend evaluates
the system prompt once and keeps it; ``fresh`` forces the older behaviour (reset before
every call, the whole prompt in one pass). Rounds alternate the two sides; the answers of
both are compared item by item. JSON on stdout.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=6, help="items per evaluation")
    parser.add_argument("--rules", type=int, default=30, help="skill lines in the system prompt")
    parser.add_argument("--rounds", type=int, default=2, help="alternating rounds")
    args = parser.parse_args(argv)

    from skillopt.backends import BackendSettings
    from skillopt.records import CompletionRequest, Message
    from skillopt_backends.local import LocalBackend, load_model

    backend = LocalBackend(BackendSettings(name="local", role="target"))
    loaded = load_model(backend.path, backend.n_ctx)
    system = "You answer Jeopardy-style clues using search snippets.\n\n# Skill\n" + "\n".join(
        f"- Rule {i}: keep the answer short, name the place exactly as the snippet writes it, never add a title or a year."
        for i in range(args.rules)
    )
    items = [
        "Snippets:\n" + "\n".join(f"{j}. Town{i}{j} keeps maps from {1700 + i + j}." for j in range(12))
        + f"\nClue: which town keeps maps from {1705 + i}?\nAnswer:"
        for i in range(args.items)
    ]

    def evaluation(fresh: bool) -> tuple[float, list[str]]:
        original = loaded._prepare
        if fresh:  # the pre-cache behaviour: an empty KV cache and one pass per call
            loaded._prepare = lambda tokens: (loaded.llm.reset(), setattr(loaded.llm, "n_tokens", 0))
        started, answers = time.perf_counter(), []
        try:
            for q in items:
                request = CompletionRequest(
                    messages=(Message(role="system", content=system), Message(role="user", content=q)),
                    max_tokens=16, temperature=0.0,
                )
                answers.append(backend.complete(request).text)
        finally:
            loaded._prepare = original
        return time.perf_counter() - started, answers

    times: dict[str, list[float]] = {"fresh": [], "prefix": []}
    answers: dict[str, list[str]] = {}
    loaded.llm.reset()
    for _ in range(args.rounds):
        for side in ("fresh", "prefix"):
            seconds, answers[side] = evaluation(side == "fresh")
            times[side].append(seconds)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(json.dumps({
        "system_prompt_tokens": len(loaded.llm.tokenize(system.encode(), add_bos=False)),
        "items": args.items,
        "seconds_per_evaluation": {k: round(v, 2) for k, v in med.items()},
        "prefix_over_fresh": round(med["prefix"] / med["fresh"], 2),
        "same_answers": sum(a == b for a, b in zip(answers["fresh"], answers["prefix"])),
    }, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
