"""Default USD prices per million tokens, by model family.

The run config's ``model.prices`` (applied by the core's pricer) overrides any entry
here. An unknown model costs ``None``: the ledger counts it as unpriced and keeps
counting tokens, it never blocks the call (a missing price silently blocking every
rollout was a real bug elsewhere).

Standard-tier list prices (no batch or priority lanes; OpenAI's short-context rate),
as published on platform.claude.com/docs/en/about-claude/pricing and OpenAI's pricing
page, checked 2026-11. Where a cache rate was not published we bill cached tokens at
the full input rate, so an estimate errs high, never low. Dated snapshots
(``gpt-4o-2024-08-06``, ``claude-sonnet-4-5-20250929``) and ``-latest`` aliases resolve
to their family; nothing else is guessed, so ``gpt-4o-audio-preview`` stays unpriced
rather than borrowing ``gpt-4o``'s price.
"""

from __future__ import annotations

import re

import attrs

from skillopt.api import Usage


@attrs.frozen
class Price:
    input_per_mtok: float
    output_per_mtok: float
    cached_input_per_mtok: float | None = None
    """Price of prompt tokens served from the provider's prompt cache."""
    cache_write_per_mtok: float | None = None
    """Anthropic: price of prompt tokens written to the (5-minute) prompt cache."""


PRICES_AS_OF = "2026-11"

_OPUS_45 = Price(5.00, 25.00, 0.50, 6.25)
_SONNET_4 = Price(3.00, 15.00, 0.30, 3.75)
_SONNET_5 = Price(2.00, 10.00, 0.20, 2.50)
_OPUS_4 = Price(15.00, 75.00, 1.50, 18.75)

PRICES: dict[str, Price] = {
    # OpenAI
    "gpt-5.5": Price(5.00, 30.00, 0.50),
    "gpt-5.4": Price(2.50, 15.00, 0.25),
    "gpt-5.4-mini": Price(0.75, 4.50, 0.075),
    "gpt-5.4-nano": Price(0.20, 1.25, 0.02),
    "gpt-5": Price(1.25, 10.00, 0.125),
    "gpt-5-mini": Price(0.25, 2.00, 0.025),
    "gpt-5-nano": Price(0.05, 0.40, 0.005),
    "gpt-4.1": Price(2.00, 8.00, 0.50),
    "gpt-4.1-mini": Price(0.40, 1.60, 0.10),
    "gpt-4.1-nano": Price(0.10, 0.40, 0.025),
    "gpt-4o": Price(2.50, 10.00, 1.25),
    "gpt-4o-mini": Price(0.15, 0.60, 0.075),
    "o1": Price(15.00, 60.00, 7.50),
    "o3": Price(2.00, 8.00, 0.50),
    "o3-mini": Price(1.10, 4.40, 0.55),
    "o4-mini": Price(1.10, 4.40, 0.275),
    # Anthropic
    "claude-fable-5-1": Price(10.00, 50.00, 0.25, 12.50),
    "claude-fable-5": Price(10.00, 50.00, 1.00, 12.50),
    "claude-opus-5-5": Price(4.00, 20.00),
    "claude-opus-5": _OPUS_45,
    "claude-opus-4-8": _OPUS_45,
    "claude-opus-4-7": _OPUS_45,
    "claude-opus-4-6": _OPUS_45,
    "claude-opus-4-5": _OPUS_45,
    "claude-opus-4-1": _OPUS_4,
    "claude-opus-4": _OPUS_4,
    "claude-sonnet-5-5": _SONNET_5,
    "claude-sonnet-5": _SONNET_5,
    "claude-sonnet-4-6": _SONNET_4,
    "claude-sonnet-4-5": _SONNET_4,
    "claude-sonnet-4": _SONNET_4,
    "claude-3-7-sonnet": _SONNET_4,
    "claude-haiku-4-5": Price(1.00, 5.00, 0.10, 1.25),
    "claude-3-5-haiku": Price(0.80, 4.00, 0.08, 1.00),
    "claude-3-haiku": Price(0.25, 1.25, 0.03, 0.30),
}

_SNAPSHOT = re.compile(r"^(?P<family>.+?)(?:-\d{4}-\d{2}-\d{2}|-\d{8}|-latest)$")


def price_of(model: str) -> Price | None:
    """The price entry for ``model`` (exact name, else its dated-snapshot family)."""
    name = (model or "").strip().lower()
    if "/" in name:  # provider-prefixed names from gateways: "openai/gpt-4o"
        name = name.rsplit("/", 1)[1]
    if name in PRICES:
        return PRICES[name]
    match = _SNAPSHOT.match(name)
    if match and match.group("family") in PRICES:
        return PRICES[match.group("family")]
    return None


def cost_usd(model: str, usage: Usage, *, cache_write_tokens: int = 0) -> float | None:
    """USD for one call, or None when the model has no known price.

    ``usage.prompt_tokens`` includes ``cached_tokens`` (read from the prompt cache) and
    ``cache_write_tokens``; each part is billed at its own rate.
    """
    price = price_of(model)
    if price is None:
        return None
    cached = min(usage.cached_tokens, usage.prompt_tokens)
    written = min(cache_write_tokens, usage.prompt_tokens - cached)
    fresh = usage.prompt_tokens - cached - written
    cached_rate = price.cached_input_per_mtok if price.cached_input_per_mtok is not None else price.input_per_mtok
    write_rate = price.cache_write_per_mtok if price.cache_write_per_mtok is not None else price.input_per_mtok
    total = (
        fresh * price.input_per_mtok
        + cached * cached_rate
        + written * write_rate
        + usage.completion_tokens * price.output_per_mtok
    )
    return total / 1_000_000
