"""Shell analysis: command lines read as the shell that runs them would read them."""
