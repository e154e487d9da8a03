"""The default guard pack, shipped inside the wheel."""
