"""The secret redactors' cost on adversarial text: CPU seconds for the core's
``redact_text`` and sleep's ``scrub`` on 100 KB and 1 MB of each shape that made an
earlier pattern quadratic, the ratio between the two sizes (10 for linear cost, 100 for
quadratic) and the harvest case of issue 29 (three 6,000-character hex tool outputs).

    python benchmarks/redaction.py
"""

from __future__ import annotations

import json
import secrets
import time

SHAPES = {
    "hex": lambda n: "0123456789abcdef" * (n // 16),
    "random hex": lambda n: secrets.token_hex(n // 2),
    "blank lines": lambda n: "\n" * n,
    "dots then ://": lambda n: "a." * (n // 2) + "://u:p@",
    "jwt prefixes": lambda n: "eyJ-" * (n // 4),
    "BEGIN without END": lambda n: "-----BEGIN RSA PRIVATE KEY-----\n" * (n // 32),
    "TOKENTOKEN…": lambda n: "TOKEN" * (n // 5) + "\n",
    "A=A=A=…": lambda n: "A=" * (n // 2),
    "json keys": lambda n: '"tokentoken' * (n // 11),
    "dashed words": lambda n: "ab-12-" * (n // 6),
}


def cpu(fn, text: str, repeats: int = 3) -> float:
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        fn(text)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    from skillopt.redact import redact_text
    from skillopt_sleep.redaction import scrub

    rows = {}
    for name, make in SHAPES.items():
        small, large = make(100_000), make(1_000_000)
        row = {}
        for label, fn in (("core", redact_text), ("sleep", scrub)):
            a, b = cpu(fn, small), cpu(fn, large)
            row[label] = {"100KB_s": round(a, 4), "1MB_s": round(b, 4), "ratio": round(b / max(a, 1e-6), 1)}
        rows[name] = row
    outputs = [secrets.token_hex(3000) for _ in range(3)]
    harvest = cpu(lambda _: [scrub(o) for o in outputs], "")
    print(json.dumps({"shapes": rows, "three_6000_char_hex_outputs_s": round(harvest, 4)}, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
