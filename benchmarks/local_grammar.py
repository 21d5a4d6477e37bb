"""Grammar-constrained decoding on the embedded model: an analyst-shaped JSON request with
the backend's schema grammar, next to the same request decoded freely and parsed after.

    python benchmarks/local_grammar.py [--reps 4] [--max-tokens 256]

Both sides run the bundled SmolLM2 with greedy decoding from the same prompts (the seeds
differ per repetition: a different trajectory in the user message); the constrained side
goes through ``LocalBackend.complete`` (the grammar of ``skillopt_backends.local_grammar``),
the free side calls the same loaded model without a grammar. Reported: seconds and tokens
per reply, tokens/s, and how many replies parse as JSON and match the schema (the
pipeline's own validator). Rounds alternate. JSON on stdout.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

SCHEMA = {
    "type": "object",
    "properties": {
        "reasoning": {"type": "string", "maxLength": 600},
        "edits": {
            "type": "array",
            "maxItems": 2,
            "items": {
                "type": "object",
                "properties": {"op": {"type": "string", "enum": ["append", "replace", "delete"]},
                               "content": {"type": "string", "maxLength": 300}},
                "required": ["op", "content"],
            },
        },
    },
    "required": ["reasoning", "edits"],
}
SYSTEM = ("You improve a skill document for a question-answering model. Reply with one JSON object with "
          "`reasoning` (a sentence) and `edits` (at most 2 objects with `op` append/replace/delete and `content`).")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4, help="replies per side")
    parser.add_argument("--max-tokens", type=int, default=256, help="reply cap")
    args = parser.parse_args(argv)

    from skillopt.backends import BackendSettings
    from skillopt.calls.structured import extract_json, validate
    from skillopt.records import CompletionRequest, Message
    from skillopt_backends.local import LocalBackend, load_model

    backend = LocalBackend(BackendSettings(name="local", role="optimizer"))
    llm = load_model(backend.path, backend.n_ctx).llm
    users = [f"Skill:\n- Answer with the name only.\n\nFailed trajectory {i}: the clue asked for a town; the model answered "
             f"'Dr. Town{i}' with a title; expected 'Town{i}'. Propose edits." for i in range(args.reps)]

    def valid(text: str) -> bool:
        try:
            return not validate(extract_json(text), SCHEMA)
        except ValueError:
            return False

    rows: dict[str, list[tuple[float, int, bool]]] = {"grammar": [], "free": []}
    for user in users:
        messages = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
        started = time.perf_counter()
        reply = backend.complete(CompletionRequest(
            messages=tuple(Message(role=m["role"], content=m["content"]) for m in messages),
            max_tokens=args.max_tokens, temperature=0.0, json_schema=SCHEMA))
        rows["grammar"].append((time.perf_counter() - started, reply.usage.completion_tokens, valid(reply.text)))
        llm.reset()
        started = time.perf_counter()
        out = llm.create_chat_completion(messages=messages, max_tokens=args.max_tokens, temperature=0.0, seed=0)
        rows["free"].append((time.perf_counter() - started, out["usage"]["completion_tokens"],
                             valid(out["choices"][0]["message"]["content"] or "")))
    result = {}
    for side, got in rows.items():
        seconds = statistics.median(r[0] for r in got)
        tokens = statistics.median(r[1] for r in got)
        result[side] = {"seconds_per_reply": round(seconds, 2), "tokens_per_reply": tokens,
                        "tokens_per_s": round(sum(r[1] for r in got) / sum(r[0] for r in got), 1),
                        "schema_valid": f"{sum(r[2] for r in got)}/{len(got)}"}
    result["grammar_over_free_tokens_per_s"] = round(result["grammar"]["tokens_per_s"] / result["free"]["tokens_per_s"], 2)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
