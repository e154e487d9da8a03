"""Shell and git analysis models: what a command line and git would really do."""
