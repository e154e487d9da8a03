"""git as the shell model knows it, one kind of knowledge per module: ``argv`` (git's command
line: global options, subcommands and their option tables), ``configchange`` (what a line gives
git as configuration: ``-c``, ``GIT_CONFIG_*``, ``git config`` writes), ``config`` (the
configuration files as git reads them), ``wildmatch`` (git's patterns), ``repo`` (a repository's
own files: git directory, HEAD, refs), ``programs`` (the programs git runs for a command) and
``state`` (what earlier git commands of a line change for later ones).

Nothing is re-exported: the hook imports git knowledge only for a line with a git command, and
then only the modules it needs, so importers name the submodule.
"""
