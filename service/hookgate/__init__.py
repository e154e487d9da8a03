"""hookgate: a policy-as-code guard for AI coding agents.

Modules on the hook's hot path write ``TYPE_CHECKING = False`` / ``if TYPE_CHECKING:`` instead of
importing ``typing``: type checkers read the block, and every hook call saves the ~2.5 ms that
importing ``typing`` costs.
"""

__version__ = "0.1.0"
