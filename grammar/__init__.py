"""The language grammar, shipped inside the wheel."""
