"""JSON-schema grammars for llama.cpp that cannot crash the process.

llama-cpp-python turns a schema into GBNF by expanding length and count limits into
nested optional rules: ``maxLength: 2000`` becomes 2000 nested groups, llama.cpp's
parser refuses it, and the NULL sampler it returns is added to the sampler chain
unchecked, which is a segmentation fault (measured with llama-cpp-python 0.3.36).
So the grammar constrains the *shape* (keys, types, enums, nesting) and item counts,
and *clamps* every string to at most ``max_string_chars`` characters (default
:data:`MAX_LENGTH_IN_GRAMMAR`): a limit far below the schema's still satisfies it, and
without any limit a small model rambles inside a string until ``max_tokens`` cuts the
reply and the JSON never closes. The call pipeline validates every reply against the
full schema. Each grammar is test-parsed by llama.cpp before use, from the most to the
least constrained: as described, without length limits, without item counts, plain JSON.
"""

from __future__ import annotations

import json
import threading
from typing import Any

MAX_LENGTH_IN_GRAMMAR = 160
"""Strings are clamped to this many characters in the grammar (each character is one
nested rule, so thousands cannot be expressed); ``options.max_string_chars`` overrides."""
_ALWAYS_DROPPED = ("pattern", "format")
_LENGTHS = ("maxLength", "minLength")
_COUNTS = ("maxItems", "minItems")

_CACHE: dict[tuple[int, str], Any] = {}
_CACHE_LOCK = threading.Lock()


def grammar_schema(schema: Any, *, max_length: int = MAX_LENGTH_IN_GRAMMAR, counts: bool = True) -> Any:
    """``schema`` with every string clamped to ``max_length`` characters (0 = no length
    limits at all) and without item counts unless ``counts``, recursively."""
    if isinstance(schema, list):
        return [grammar_schema(item, max_length=max_length, counts=counts) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _ALWAYS_DROPPED or (key in _COUNTS and not counts):
            continue
        if key in _LENGTHS and not (isinstance(value, int) and value <= max_length):
            if key == "maxLength" and max_length > 0:
                out[key] = max_length  # clamp: any reply within it also satisfies the schema
            continue
        if key in ("properties", "$defs", "definitions", "patternProperties") and isinstance(value, dict):
            out[key] = {name: grammar_schema(sub, max_length=max_length, counts=counts) for name, sub in value.items()}
        elif key in ("items", "anyOf", "oneOf", "allOf", "additionalProperties", "prefixItems", "not"):
            out[key] = grammar_schema(value, max_length=max_length, counts=counts)
        else:
            out[key] = value
    return out


def parses(llm: Any, gbnf: str) -> bool:
    """Does llama.cpp accept ``gbnf`` for this model? (Its parse failure is a NULL
    sampler that llama-cpp-python would dereference.)"""
    import llama_cpp

    vocab = llama_cpp.llama_model_get_vocab(llm.model)
    sampler = llama_cpp.llama_sampler_init_grammar(vocab, gbnf.encode("utf-8"), b"root")
    if not sampler:
        return False
    llama_cpp.llama_sampler_free(sampler)
    return True


def grammar_for(llm: Any, schema: dict[str, Any], max_string_chars: int = MAX_LENGTH_IN_GRAMMAR) -> Any:
    """A checked ``LlamaGrammar`` for ``schema`` (cached per model, schema and clamp)."""
    from llama_cpp import llama_grammar

    key = (id(llm), max_string_chars, json.dumps(schema, sort_keys=True))
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
    if cached is not None:
        return cached
    gbnf = llama_grammar.JSON_GBNF
    for max_length, counts in ((max_string_chars, True), (0, True), (0, False)):
        try:
            candidate = llama_grammar.json_schema_to_gbnf(
                json.dumps(grammar_schema(schema, max_length=max_length, counts=counts))
            )
        except Exception:  # noqa: BLE001 - a schema feature the converter lacks: try looser
            continue
        if parses(llm, candidate):
            gbnf = candidate
            break
    grammar = llama_grammar.LlamaGrammar.from_string(gbnf, verbose=False)
    with _CACHE_LOCK:
        _CACHE[key] = grammar
    return grammar
