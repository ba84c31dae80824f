"""`spieltisch record FOLDER`: play (the table or the simulation) and record the session.

Besides the recording for `spieltisch replay` it keeps the own set (`controller.table.own_set`):
the frames where the reader was unsure or the players corrected it, labelled with the position
the referee accepted, in FOLDER/own-set (or `--own-set DIR`, which may collect many evenings);
`spieltisch vision eval` scores the reader on it.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from controller.commands.play import add_play_arguments, run_play
from controller.table.own_set import OwnSetError, load_labels
from controller.table.session_recorder import LOG


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "record",
        help="play and record every frame, event and signal into a folder",
        description="Run `spieltisch play` and write every camera frame (or every n-th), every "
        "event and every signal of the session to FOLDER, for `spieltisch replay`; keep the "
        "frames the reader was unsure of or the players corrected, labelled, in FOLDER/own-set "
        "for `spieltisch vision eval`.",
    )
    parser.add_argument("folder", metavar="FOLDER", help="new folder for the recording")
    parser.add_argument("--every", type=int, default=1, metavar="N", help="keep every N-th frame")
    parser.add_argument("--own-set", type=Path, default=None, metavar="DIR",
                        help="keep the own set here (default FOLDER/own-set; an own set "
                             "already there is added to)")
    add_play_arguments(parser, recording=False)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.every < 1:
        print(f"error: --every must be at least 1, not {args.every}", file=sys.stderr)
        return 2
    if (Path(args.folder) / LOG).exists():
        print(f"error: {args.folder} already holds a recording; choose a new folder",
              file=sys.stderr)
        return 2
    if args.own_set is not None:
        try:
            load_labels(args.own_set)
        except OwnSetError as exc:
            print(f"error: --own-set: {exc}", file=sys.stderr)
            return 2
    args.record = args.folder
    args.record_every = args.every
    return run_play(args)
