"""Render the photoreal labelled set with Blender (issue 27): a second renderer, not in our
style, for measuring the board reader on pictures nobody tuned it on.

    .venv/bin/python tools/photoreal/make_set.py tests/data/photoreal --seed 27

Plans every set-up from the seed (plan.py), draws its textures and print (textures.py,
prints.py), writes one scene spec per set-up, renders the missing frames in one Blender process
(blender_scene.py), adds the camera's artefacts (post.py) and writes `labels.json`. Re-running the
same command resumes: frames whose JPEG exists are not rendered again, and the labels list
exactly the frames whose pictures exist. See tests/data/photoreal/README.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cv2
import families as fam
import numpy as np
import plan as planning
import post
import prints
import scene_parts as parts
import textures as tx

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
TABLE_PX = 2048
TABLE_TILE_MM = 1400.0


@dataclass(frozen=True, slots=True)
class Quality:
    """How hard Cycles works: samples per pixel, render size relative to the output (the
    picture is scaled up afterwards, as many webcams do), CPU threads."""

    samples: int
    scale: float
    threads: int


def write_png(path: Path, img: np.ndarray) -> str:
    if not cv2.imwrite(str(path), img):
        raise OSError(f"cannot write {path}")
    return str(path)


def scene_spec(setup: planning.Setup, frames: list[planning.FramePlan], work: Path,
               seed: int, quality: Quality) -> dict:
    """Draw the set-up's images into `work` and return the Blender scene spec."""
    rng = np.random.default_rng([seed, 100 + setup.index, 1000])
    geo = setup.board_geometry(ROOT)
    if setup.game == "backgammon":
        art = prints.backgammon_print(rng, setup.print, geo)
    else:
        art = prints.maedn_print(rng, setup.print, geo)
    thickness, _, _, _ = parts.BUILDS[setup.print]
    surface = {"image": write_png(work / "print.png", art.image),
               "gloss": write_png(work / "gloss.png", art.gloss), **art.surface,
               "metal_ink": setup.print == "bg_black_gold",
               "gloss_roughness": 0.3 if setup.print == "bg_black_gold" else 0.12}
    table_img, table_look = tx.table_texture(rng, setup.table, TABLE_PX)
    table = {"material": {"image": write_png(work / "table.png", table_img),
                          "tile_mm": TABLE_TILE_MM * (2.0 if table_look.get("glass") else 1.0),
                          "angle": float(rng.choice([0.0, 90.0]) + rng.uniform(-8, 8)),
                          "offset": [float(v) for v in rng.uniform(0, 1, 2)],
                          **{k: v for k, v in table_look.items() if k != "glass"}},
             "glass": bool(table_look.get("glass"))}
    frame_wood = tx.wood(rng, (1024, 1024), tx.jitter(rng, (150, 100, 62), 0.2),
                         tx.jitter(rng, (80, 50, 30), 0.2), ring_px=rng.uniform(10, 20))
    wood = {"image": write_png(work / "frame_wood.png", frame_wood), "tile_mm": 300.0,
            "box": True, "roughness": float(rng.uniform(0.25, 0.5)), "coat": 0.3}
    side = wood if thickness > 4 else {"color": parts.linear((214, 206, 190)), "roughness": 0.9}
    atlas, height = parts.die_atlas(np.random.default_rng(setup.protos["die"]["atlas_seed"]))
    protos = {}
    for name, proto in setup.protos.items():
        proto = dict(proto)
        material = dict(proto["material"])
        if name == "die":
            material.update(image=write_png(work / "die.png", atlas),
                            height=write_png(work / "die_height.png", height))
        elif "tint_of" in proto:
            colour = art.tints[proto["tint_of"]]
            if rng.random() < 0.3:  # the pieces' own palette, not the print's tint
                colour = prints.CLASSIC[proto["tint_of"]]
            material["color"] = parts.linear(tx.jitter(rng, colour, 0.12))
        proto["material"] = material
        protos[name] = proto
    look = str(rng.choice(["None", "Medium High Contrast", "High Contrast", "Medium Contrast"]))
    rw, rh = setup.camera.render_size()
    size = [round(rw * quality.scale), round(rh * quality.scale)]
    scale = size[0] / rw
    return {
        "render": {"size": size, "samples": quality.samples, "threads": quality.threads,
                   "brightness": setup.rig["brightness"], "exposure": setup.rig["exposure"],
                   "look": look},
        "camera": _camera_spec(setup.camera, scale),
        "world": setup.rig["world"], "lights": setup.rig["lights"], "table": table,
        "board": {"size": [geo.width, geo.height], "thickness": float(thickness),
                  "surface": surface, "side": side,
                  "raised": parts.raised_parts(setup.print, geo), "raised_material": wood},
        "protos": protos,
        "probe": planning.corners_world(geo).tolist(),
        "frames": [{"name": f.name, "out": str(work / f"{f.name}.png"), "objects": f.objects,
                    "hand": f.hand, "camera": _camera_spec(f.camera, scale),
                    "light_scale": f.light_scale, "light_shift": f.light_shift, "seed": f.seed}
                   for f in frames],
    }


def _camera_spec(camera: planning.Camera, scale: float) -> dict:
    """The camera for Blender, whose picture is `scale` times the undistorted render size."""
    return {"position": list(camera.position), "rotation": [list(r) for r in camera.rotation],
            "focal_px": camera.focal_px * scale}


def render_setup(setup: planning.Setup, frames: list[planning.FramePlan], out: Path,
                 work_root: Path, seed: int, quality: Quality, blender: str) -> None:
    """Render `frames` of one set-up in one Blender process and finish them into JPEGs."""
    work = work_root / setup.id
    work.mkdir(parents=True, exist_ok=True)
    spec = scene_spec(setup, frames, work, seed, quality)
    spec_path = work / "scene.json"
    spec_path.write_text(json.dumps(spec), "utf-8")
    with open(work / "blender.log", "a", encoding="utf-8") as log:
        done = subprocess.run([blender, "-b", "--factory-startup", "-noaudio",
                               "--python-exit-code", "1", "-P", str(HERE / "blender_scene.py"),
                               "--", str(spec_path)], stdout=log, stderr=subprocess.STDOUT,
                              check=False)
    if done.returncode != 0:
        raise RuntimeError(f"blender failed on {setup.id}; see {work / 'blender.log'}")
    for frame in frames:
        rendered = cv2.imread(str(work / f"{frame.name}.png"), cv2.IMREAD_COLOR)
        if rendered is None:
            raise RuntimeError(f"blender wrote no picture for {frame.name}")
        noise_rng = np.random.default_rng([seed, 100 + setup.index, frame.seed])
        picture = post.finish(rendered, frame.camera, frame.post, noise_rng)
        target = out / "images" / f"{frame.name}.jpg"
        partial = target.with_suffix(".part")
        partial.write_bytes(post.encode_jpeg(picture, frame.post["jpeg_quality"]))
        os.replace(partial, target)


def _pixels(points: np.ndarray) -> list[list[float]]:
    return [[round(float(x), 2), round(float(y), 2)] for x, y in points]


def frame_label(frame: planning.FramePlan, corners: np.ndarray) -> dict:
    dice = []
    for value, cube in frame.dice:
        px = frame.camera.to_pixels(cube)
        box = [px[:, 0].min(), px[:, 1].min(), px[:, 0].max(), px[:, 1].max()]
        dice.append({"value": value, "box": [round(float(v), 1) for v in box], "cocked": False})
    return {"image": f"images/{frame.name}.jpg", "kind": frame.kind, "board": frame.board,
            "hand": frame.hand is not None, "dice": dice,
            "corners_px": _pixels(frame.camera.to_pixels(corners)), "post": frame.post}


def setup_label(setup: planning.Setup, frames: list[dict]) -> dict:
    cam = setup.camera
    corners = planning.corners_world(setup.board_geometry(ROOT))
    x, y, z = cam.position
    return {"id": setup.id, "split": setup.split, "game": setup.game, "players": setup.players,
            "geometry": setup.geometry_file, "table": setup.table, "print": setup.print,
            "light": setup.light, "stacking": setup.stacking,
            "camera": {"height_mm": round(z, 1), "tilt_deg": round(cam.tilt_deg, 2),
                       "focal_px": round(cam.focal_px, 2), "k1": round(cam.k1, 4),
                       "position_mm": [round(x, 1), round(-y, 1), round(z, 1)]},
            "corners_px": _pixels(cam.to_pixels(corners)),
            "frame_height_mm": setup.frame_height, "frames": frames}


def write_labels(out: Path, setups: list[planning.Setup], command: str) -> int:
    """labels.json for every frame whose picture exists; returns how many frames that is."""
    entries, count = [], 0
    for setup in setups:
        corners = planning.corners_world(setup.board_geometry(ROOT))
        frames = [frame_label(f, corners) for f in setup.frames
                  if (out / "images" / f"{f.name}.jpg").exists()]
        if frames:
            entries.append(setup_label(setup, frames))
            count += len(frames)
    labels = {"version": 1, "command": command, "families": fam.families_json(),
              "setups": entries}
    partial = out / "labels.json.part"
    partial.write_text(json.dumps(labels, indent=1, ensure_ascii=False) + "\n", "utf-8")
    os.replace(partial, out / "labels.json")
    return count


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.partition("x")
    return int(w), int(h)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for images/ and labels.json")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--dev-setups", type=int, default=8, help="per game")
    parser.add_argument("--heldout-setups", type=int, default=4, help="per game")
    parser.add_argument("--size", type=_size, default=(1280, 720), help="WxH of the pictures")
    parser.add_argument("--samples", type=int, default=20, help="Cycles samples per pixel")
    parser.add_argument("--render-scale", type=float, default=0.75,
                        help="render this much of the output size, then scale up")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--work", type=Path, default=Path("/tmp/photoreal-work"),
                        help="scratch folder for textures, specs and raw renders")
    parser.add_argument("--only", default="", help="comma-separated set-up ids to render")
    parser.add_argument("--kinds", default="", help="comma-separated frame kinds to render")
    parser.add_argument("--blender", default="blender")
    args = parser.parse_args(argv)
    argv = sys.argv[1:] if argv is None else argv
    command = ".venv/bin/python tools/photoreal/make_set.py " + shlex.join(argv)
    (args.out / "images").mkdir(parents=True, exist_ok=True)
    setups = planning.plan_set(ROOT, args.seed, args.dev_setups, args.heldout_setups, args.size)
    only = set(filter(None, args.only.split(",")))
    kinds = set(filter(None, args.kinds.split(",")))
    for setup in setups:
        if only and setup.id not in only:
            continue
        todo = [f for f in setup.frames if (not kinds or f.kind in kinds)
                and not (args.out / "images" / f"{f.name}.jpg").exists()]
        if not todo:
            continue
        start = time.monotonic()
        render_setup(setup, todo, args.out, args.work / f"seed{args.seed}", args.seed,
                     Quality(args.samples, args.render_scale, args.threads), args.blender)
        frames = write_labels(args.out, setups, command)
        print(f"{setup.id}: {len(todo)} frames in {time.monotonic() - start:.0f} s "
              f"({frames} in the set)", flush=True)
    frames = write_labels(args.out, setups, command)
    print(f"labels.json: {frames} frames", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
