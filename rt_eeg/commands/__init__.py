"""One module per ``rt-eeg`` subcommand: ``HELP``, ``add_arguments(parser)``, ``run(args)``."""
