"""One module per `spieltisch` subcommand; each exposes ``register(subparsers)``.

A module's ``register`` adds its parser and sets ``func`` (called with the parsed arguments,
returns the exit status). Modules import heavy libraries (OpenCV, gpiozero) inside ``func`` so
that ``spieltisch --help`` stays fast.
"""
