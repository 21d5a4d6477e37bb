"""Paired A/B evaluation of two skill documents over a fixed task manifest."""
