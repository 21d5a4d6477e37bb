"""Grouping intents that mean the same thing across sessions.

"The order tests are failing, run the suite and fix it" and "why does test_checkout
fail?" are one recurring job even though they share few words. Each intent is
described by its content words (lightly stemmed), character trigrams of those words
(robust to inflection and identifiers) and the *kind of commands* its session span
ran (``cat:test``). Intents are also described by what was *done* (the kinds of
commands and programs run, the kinds of files and directories edited, what the kept
attempt changed: :attr:`~.digest.IntentEvidence.actions`), which groups the same job
asked in German and in English, or in two unrelated phrasings, and keeps apart two jobs
that happen to be worded alike. Average-linkage agglomerative clustering over a blended
Jaccard similarity groups them; exact-text identity (upstream) is only the degenerate case.
"""

from __future__ import annotations

import re

STOPWORDS = frozenset(
    "a an the and or but if then else of to in on at for from by with without into onto is are was were be been being "
    "it its this that these those there here i me my we our you your he she they them can could would should will "
    "do does did done have has had not no yes please pls just also so very really some any all each every can't "
    "don't doesn't what why how when where which who whom whose let lets let's ok okay hey hi thanks thank".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_]+")


def stem(word: str) -> str:
    w = word.lower()
    for suffix in ("ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


Features = tuple[frozenset[str], frozenset[str], frozenset[str]]


def features(text: str, categories: tuple[str, ...] = (), actions: tuple[str, ...] = ()) -> Features:
    """(content words and category tags, character trigrams, what was done)."""
    words = {stem(w) for w in _WORD.findall(text) if w.lower() not in STOPWORDS}
    parts = set()
    for w in list(words):
        parts.update(p for p in w.split("_") if len(p) > 2)
    words |= {stem(p) for p in parts}
    grams = {w[i : i + 3] for w in words for i in range(max(1, len(w) - 2))}
    tags = {f"cat:{c}" for c in categories}
    done = {re.sub(r"\d+", "0", a) for a in actions}
    return frozenset(words | tags), frozenset(grams), frozenset(done)


def _jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 0.0


def similarity(fa: Features, fb: Features) -> float:
    """How alike two intents are: what was said (words and trigrams), and — when both
    did something — what was done, which carries across languages and phrasings."""
    words = _jaccard(fa[0], fb[0])
    said = 0.5 * words + 0.5 * _jaccard(fa[1], fb[1])
    if fa[2] and fb[2]:
        return min(1.0, max(said, 0.3 * said + 0.7 * _jaccard(fa[2], fb[2])))
    tags_a = {t for t in fa[0] if t.startswith("cat:")}
    tags_b = {t for t in fb[0] if t.startswith("cat:")}
    tag_bonus = 0.25 if tags_a and tags_a & tags_b else 0.0
    return min(1.0, said + tag_bonus)


def cluster(
    texts: list[str], categories: list[tuple[str, ...]], *, actions: list[tuple[str, ...]] | None = None,
    threshold: float = 0.3, max_items: int = 1500,
) -> list[list[int]]:
    """Indices grouped into clusters (each sorted), largest cluster first."""
    n = min(len(texts), max_items)
    acts = actions or [()] * len(texts)
    feats = [features(texts[i], categories[i], acts[i]) for i in range(n)]
    sim = [[0.0] * n for _ in range(n)]
    for i in range(n):
        for j in range(i + 1, n):
            sim[i][j] = sim[j][i] = similarity(feats[i], feats[j])
    groups: list[list[int]] = [[i] for i in range(n)]
    while len(groups) > 1:
        best, pair = threshold, None
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                total = sum(sim[i][j] for i in groups[a] for j in groups[b])
                avg = total / (len(groups[a]) * len(groups[b]))
                if avg >= best:
                    best, pair = avg, (a, b)
        if pair is None:
            break
        a, b = pair
        groups[a] = sorted(groups[a] + groups[b])
        del groups[b]
    return sorted(groups, key=lambda g: (-len(g), g[0]))


def medoid(indices: list[int], texts: list[str], categories: list[tuple[str, ...]], actions=None) -> int:
    """The member most similar to the others (ties: the shortest text), as the cluster's face."""
    if len(indices) == 1:
        return indices[0]
    acts = actions or [()] * len(texts)
    feats = {i: features(texts[i], categories[i], acts[i]) for i in indices}
    return max(indices, key=lambda i: (sum(similarity(feats[i], feats[j]) for j in indices if j != i), -len(texts[i])))
