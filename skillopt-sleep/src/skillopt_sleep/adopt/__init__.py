"""Adoption and rollback: the only code that writes the developer's live files."""
