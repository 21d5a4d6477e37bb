"""Mining: turn harvested sessions into checkable tasks and evidence-backed lessons."""
