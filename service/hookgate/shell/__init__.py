"""The shell model: what bash (and git) will do with a command line, read without running it.

``analysis.analyse`` reads a line into the simple commands it runs (``words``): ``lexer`` and
``parser`` read the text (no syntax tree), ``analysis`` runs it symbolically (nested scripts,
``launchers``, ``expansion`` and ``patterns``, what commands print in ``output``, ``files`` and
``state`` it changes), within ``limits``; ``edits`` changes a line in place; ``git`` reads a git
command's argv the way git does. The ``shell.*`` and ``git.*`` builtins only wrap this package.
"""
