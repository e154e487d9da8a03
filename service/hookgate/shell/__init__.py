"""The shell model: what bash (and git) will do with a command line, read without running it.

``parser`` lexes and parses a line (nested scripts, wrappers, expansions known from the line
itself) into simple commands (``words``); ``edits`` changes a line in place; ``git`` reads a git
command's argv the way git does. The ``shell.*`` and ``git.*`` builtins only wrap this package.
"""
