"""One module per `spieltisch` subcommand, named like it; each exposes ``register(subparsers)``.

A module's ``register`` adds its parser and sets ``func`` (called with the parsed arguments,
returns the exit status). `controller.cli` imports only the module of the subcommand given.
"""
