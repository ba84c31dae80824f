"""Dice reader speed per 640x640 photo on one thread, and its accuracy on the train/test splits;
the reader without a die size (issue 27) beside the one told the photos' size."""

from __future__ import annotations

import logging
import time

import cv2

from bench.timing import print_table, summary
from vision.dice_eval import default_data_dir, evaluate, load_labels

log = logging.getLogger(__name__)

REPEATS = 5


def main() -> None:
    from vision.dice import DiceReader

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
    any_size_rows(images, reader, data.parent)


def any_size_rows(topdown: list, sized, sets) -> None:
    """The reader that finds the die size itself (`vision.dice_scale`) on each photo set's test
    photos, and the sized reader on the top-down photos in the same run (compare the ratio)."""
    from vision.dice_scale import AnySizeDiceReader

    any_size = AnySizeDiceReader()
    pictures = {"dice-topdown": topdown}
    for name in ("dice-oblique", "dice-webcam-wood"):
        if (sets / name / "labels.json").is_file():
            pictures[name] = [cv2.imread(str(it.path)) for it in load_labels(sets / name, "test")]
    times: dict[str, list[float]] = {"dice-topdown, told the size (40 px)": []}
    for _ in range(2):
        for image in topdown:
            start = time.perf_counter()
            sized.read(image)
            times["dice-topdown, told the size (40 px)"].append(
                (time.perf_counter() - start) * 1000.0)
        for name, images in pictures.items():
            for image in images:
                start = time.perf_counter()
                any_size.read(image)
                times.setdefault(f"{name}, no size ({images[0].shape[1]}x{images[0].shape[0]})",
                                 []).append((time.perf_counter() - start) * 1000.0)
    print_table("Dice reader without a die size, test photos, 1 thread (ms)",
                ("photos", "samples", "median ms", "p99 ms"),
                [(name, len(ms), *summary(ms)) for name, ms in times.items()])
