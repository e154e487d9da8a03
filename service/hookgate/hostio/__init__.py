"""Host I/O: ``payload`` (the hook's stdin, read once and bounded), ``normalize`` (any host's
payload -> ``HookInput``), ``render`` (``Decision`` -> that host's response), ``hosts`` (what
hookgate knows about each host), ``hostmode`` (what the host process can do).

Deliberately empty of imports: the stages import only the modules they need (render never loads
normalize), and this package sits on the hook's hot path.
"""
