"""hookgate inside the coding agents: host configuration files (``hostconfig``, edited through
``jsonc``) for the hosts that run ``hookgate eval`` as a command, and a native in-process hook
module for Amplifier (``amplifier``)."""
