"""hookgate: a policy-as-code guard for AI coding agents."""

__version__ = "0.1.0"
