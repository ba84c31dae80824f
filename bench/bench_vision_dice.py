"""Dice reader speed per 640x640 photo on one thread, and its accuracy on the train/test splits."""

from __future__ import annotations

import logging
import time

import cv2

from bench.timing import print_table, summary

log = logging.getLogger(__name__)

REPEATS = 5


def main() -> None:
    from vision.dice import DiceReader
    from vision.dice_eval import default_data_dir, evaluate, load_labels

    data = default_data_dir()
    if not (data / "labels.json").is_file():
        print(f"skipped: real dice photos not found at {data}\n")
        return
    cv2.setNumThreads(1)
    reader = DiceReader()
    one_view = DiceReader(views=1)
    test = load_labels(data, "test")
    images = [cv2.imread(str(item.path)) for item in test]
    for image in images[:3]:
        reader.read(image)
        one_view.read(image)
    detect_ms, read_ms, one_view_ms = [], [], []
    for _ in range(REPEATS):
        for image in images:
            start = time.perf_counter()
            reader.detect(image)
            detect_ms.append((time.perf_counter() - start) * 1000.0)
            start = time.perf_counter()
            reader.read(image)
            read_ms.append((time.perf_counter() - start) * 1000.0)
            start = time.perf_counter()
            one_view.read(image)
            one_view_ms.append((time.perf_counter() - start) * 1000.0)
    rows = []
    for name, samples in (
        ("detector only", detect_ms),
        (f"full read (detect + classify, {reader.views} views of unsure crops)", read_ms),
        ("full read, every crop seen once (views=1)", one_view_ms),
    ):
        median, p99 = summary(samples)
        rows.append((name, len(samples), median, p99))
    print_table(
        "Dice reader, one 640x640 photo, 1 thread (test split, ms)",
        ("stage", "samples", "median ms", "p99 ms"),
        rows,
    )
    rows = []
    for split in ("train", "test"):
        report = evaluate(lambda im: [(d.value, d.box) for d in reader.read(im)],
                          load_labels(data, split))
        rows.append((
            split, report.images, report.dice, f"{report.die_accuracy:.2%}",
            f"{report.image_accuracy:.2%}", f"{report.false_per_image:.3f}",
            report.wrong_value, report.missed,
        ))
    print_table(
        "Dice reader accuracy on the real photos",
        ("split", "images", "dice", "per-die", "whole image", "false/image", "wrong", "missed"),
        rows,
    )
