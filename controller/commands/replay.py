"""`spieltisch replay FOLDER`: re-run a recording through vision and the referee, compare."""

from __future__ import annotations

import argparse
import json
import sys

from controller.table.session_recorder import RecordingError, replay, replay_pipeline


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "replay",
        help="re-run a recorded session and report every signal that differs",
        description="Read the recorded frames through vision and the stabilizer again, feed "
        "the recorded button and sensor events, and compare the referee's signals with the "
        "recording. Exit status 1 when any signal differs.",
    )
    parser.add_argument("folder", metavar="FOLDER", help="a folder written by `spieltisch record`")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        pipeline = replay_pipeline(args.folder)
        result = replay(args.folder, pipeline)
    except RecordingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({
            "frames": result.frames,
            "events": result.events,
            "signals_recorded": len(result.recorded),
            "signals_replayed": len(result.replayed),
            "differences": [
                {"index": d.index, "recorded": d.recorded, "replayed": d.replayed}
                for d in result.differences
            ],
        }, ensure_ascii=False))
    else:
        for difference in result.differences:
            print(difference.describe())
        print(
            f"{result.frames} frames, {result.events} events, {len(result.recorded)} signals "
            f"recorded, {len(result.replayed)} replayed: "
            + (f"{len(result.differences)} differ" if result.differences else "all the same")
        )
    return 1 if result.differences else 0
