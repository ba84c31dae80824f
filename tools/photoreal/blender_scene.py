"""Build one photoreal set-up in Blender and render its frames:

    blender -b -P tools/photoreal/blender_scene.py -- spec.json

The spec (written by make_set.py) says everything in world millimetres: table, board, lights,
camera and the prototype pieces once, then per frame where each piece stands, an optional hand,
a camera bump and the light's drift. The scene is built once and only the pieces change between
frames, so one Blender start-up serves a whole set-up. A frame whose picture exists is skipped.
Each frame also gets `<out>.probe.json`: Blender's own projection of the spec's probe points,
which the tests compare with the generator's camera model.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import bpy
from bpy_extras.object_utils import world_to_camera_view
from mathutils import Matrix, Vector

sys.path.insert(0, str(Path(__file__).resolve().parent))

import blender_parts as bp


def configure(spec: dict) -> bpy.types.Scene:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    render = spec["render"]
    scene.render.engine = "CYCLES"
    cycles = scene.cycles
    cycles.device = "CPU"
    cycles.samples = render["samples"]
    cycles.use_adaptive_sampling = True
    cycles.adaptive_threshold = 0.03
    cycles.use_denoising = False  # this Blender build has no denoiser
    cycles.max_bounces, cycles.diffuse_bounces, cycles.glossy_bounces = 6, 2, 2
    cycles.transmission_bounces, cycles.transparent_max_bounces = 8, 4
    cycles.caustics_reflective = cycles.caustics_refractive = False
    cycles.blur_glossy = 1.0
    cycles.sample_clamp_indirect = 1.0  # no fireflies from light through glass or shine
    scene.render.threads_mode = "FIXED"
    scene.render.threads = render["threads"]
    scene.render.use_persistent_data = True
    scene.render.resolution_x, scene.render.resolution_y = render["size"]
    scene.render.resolution_percentage = 100
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_mode = "RGB"
    scene.render.motion_blur_shutter = 1.0
    scene.view_settings.view_transform = "Filmic"
    scene.view_settings.look = render.get("look", "None")
    scene.frame_set(1)
    return scene


def build_world(spec: dict) -> None:
    world = bpy.data.worlds.new("world")
    bpy.context.scene.world = world
    world.use_nodes = True
    nodes = world.node_tree.nodes
    nodes.clear()
    out = nodes.new("ShaderNodeOutputWorld")
    background = nodes.new("ShaderNodeBackground")
    coords = nodes.new("ShaderNodeTexCoord")
    split = nodes.new("ShaderNodeSeparateXYZ")
    ramp = nodes.new("ShaderNodeMapRange")
    ramp.inputs["From Min"].default_value = -0.3
    mix = nodes.new("ShaderNodeMixRGB")
    mix.inputs["Color1"].default_value = (*spec["bottom"], 1.0)
    mix.inputs["Color2"].default_value = (*spec["top"], 1.0)
    links = world.node_tree.links
    links.new(coords.outputs["Generated"], split.inputs["Vector"])
    links.new(split.outputs["Z"], ramp.inputs["Value"])
    links.new(ramp.outputs["Result"], mix.inputs["Fac"])
    links.new(mix.outputs["Color"], background.inputs["Color"])
    background.inputs["Strength"].default_value = spec["strength"]
    links.new(background.outputs["Background"], out.inputs["Surface"])


def build_table(spec: dict, board: dict) -> None:
    """The table top (3 m square around the board), and for glass a floor far below."""
    w, h = board["size"]
    top = -board["thickness"]
    x0, y0, x1, y1 = w / 2 - 1500, -h / 2 - 1500, w / 2 + 1500, -h / 2 + 1500
    material = dict(spec["material"])
    if spec.get("glass"):
        floor = bp.link(bpy.data.objects.new("floor", bp.box_mesh(
            "floor", x0, y0, top - 740, x1, y1, top - 730)))
        floor.data.materials.append(bp.surface_material("floor", material))
        glass, nodes, bsdf = bp.node_material("glass")
        nodes.remove(bsdf)
        shader = nodes.new("ShaderNodeBsdfGlass")
        shader.inputs["Color"].default_value = (*spec.get("tint", (0.9, 0.97, 0.95)), 1.0)
        shader.inputs["Roughness"].default_value = 0.0
        shader.inputs["IOR"].default_value = 1.5
        bp.wire(glass, shader.outputs["BSDF"], nodes["Material Output"].inputs["Surface"])
        plate = bp.link(bpy.data.objects.new("table", bp.box_mesh(
            "table", x0, y0, top - 10, x1, y1, top)))
        plate.data.materials.append(glass)
        plate.visible_shadow = False  # light passes the glass onto the floor, as it does
        return
    table = bp.link(bpy.data.objects.new("table", bp.box_mesh(
        "table", x0, y0, top - 30, x1, y1, top)))
    table.data.materials.append(bp.surface_material("table", material))


def build_board(spec: dict) -> None:
    """The board: a body, the print on top (board mm 0..w × 0..h at z = 0) and raised parts."""
    w, h = spec["size"]
    t = spec["thickness"]
    body = bp.link(bpy.data.objects.new("board_body", bp.box_mesh(
        "board_body", 0, -h, -t, w, 0, -0.05)))
    body.data.materials.append(bp.surface_material("board_side", spec["side"]))
    bp.bevel(body, min(1.5, t / 3), 2)
    top = bp.link(bpy.data.objects.new("board_print", bp.plane_mesh("board_print", w, h)))
    top.data.materials.append(bp.surface_material("print", spec["surface"]))
    if not spec["raised"]:
        return
    raised = bp.surface_material("raised", spec["raised_material"])
    for k, part in enumerate(spec["raised"]):
        rx0, ry0, rx1, ry1 = part["rect"]
        obj = bp.link(bpy.data.objects.new(f"raised{k}", bp.box_mesh(
            f"raised{k}", rx0, -ry1, -0.1, rx1, -ry0, part["height"])))
        obj.data.materials.append(raised)
        bp.bevel(obj, min(1.2, part["height"] / 3), 2)


def build_lights(specs: list[dict]) -> list[tuple[bpy.types.Object, dict]]:
    out = []
    for k, spec in enumerate(specs):
        light = bpy.data.lights.new(f"light{k}", spec["type"])
        light.color = spec["color"]
        light.energy = spec["energy"]
        if spec["type"] == "AREA":
            light.shape = "RECTANGLE"
            light.size = spec["size"] * bp.MM
            light.size_y = spec.get("size_y", spec["size"]) * bp.MM
        elif spec["type"] == "SPOT":
            light.spot_size = math.radians(spec["spot_deg"])
            light.spot_blend = spec.get("blend", 0.3)
            light.shadow_soft_size = spec.get("radius", 10) * bp.MM
        elif spec["type"] == "POINT":
            light.shadow_soft_size = spec.get("radius", 10) * bp.MM
        obj = bp.link(bpy.data.objects.new(f"light{k}", light))
        out.append((obj, spec))
    return out


def place_lights(lights: list[tuple[bpy.types.Object, dict]], scale: list[float],
                 shift: list[list[float]]) -> None:
    """Lights at their spec position plus this frame's drift, aimed at their target."""
    for (obj, spec), s, d in zip(lights, scale, shift, strict=True):
        obj.data.energy = spec["energy"] * s
        pos = Vector(spec["position"]) + Vector(d)
        obj.location = pos * bp.MM
        aim = Vector(spec["target"]) - pos
        obj.rotation_euler = aim.to_track_quat("-Z", "Y").to_euler()


def build_camera(spec: dict) -> bpy.types.Object:
    cam = bpy.data.cameras.new("camera")
    cam.sensor_fit = "HORIZONTAL"
    cam.sensor_width = 36.0
    cam.lens = spec["focal_px"] * 36.0 / bpy.context.scene.render.resolution_x
    cam.clip_start, cam.clip_end = 0.01, 20.0
    obj = bp.link(bpy.data.objects.new("camera", cam))
    bpy.context.scene.camera = obj
    return obj


def aim_camera(obj: bpy.types.Object, spec: dict) -> None:
    m = Matrix(spec["rotation"]).to_4x4()
    m.translation = Vector(spec["position"]) * bp.MM
    obj.matrix_world = m


def build_protos(specs: dict) -> dict[str, bpy.types.Mesh]:
    """One mesh per piece kind (with its material), shared by every copy in every frame."""
    protos = {}
    for name, spec in specs.items():
        if spec["kind"] == "die":
            mesh = bp.die_mesh(name, spec["size"])
            tmp = bp.link(bpy.data.objects.new(name + "_tmp", mesh))
            bp.bevel(tmp, spec["bevel"], 4)
            depsgraph = bpy.context.evaluated_depsgraph_get()
            baked = bpy.data.meshes.new_from_object(tmp.evaluated_get(depsgraph))
            bpy.data.objects.remove(tmp, do_unlink=True)
            mesh = baked
        else:
            mesh = bp.lathe_mesh(name, spec["profile"])
        mesh.materials.append(bp.surface_material(name, spec["material"]))
        protos[name] = mesh
    return protos


def place_pieces(placements: list[dict], protos: dict[str, bpy.types.Mesh]) -> list:
    objs = []
    for k, item in enumerate(placements):
        obj = bp.link(bpy.data.objects.new(f"piece{k}", protos[item["proto"]]))
        obj.matrix_world = bp.matrix_mm(item["matrix"])
        objs.append(obj)
    return objs


def build_hand(spec: dict) -> list:
    """Arm and hand as metaballs (arm, palm and thumb blend into one; each finger is its own),
    a sleeve over the arm, all moving along `motion_mm` while the shutter is open."""
    skin = bp.surface_material("skin", spec["skin"])
    root = bp.link(bpy.data.objects.new("hand_root", None))
    objs = [root]
    groups: dict[str, list[dict]] = {}
    for element in spec["elements"]:
        groups.setdefault(element.get("group", "hand"), []).append(element)
    for name, elements in groups.items():
        limb = bp.metaball_limb(name, elements, skin)
        limb.parent = root
        objs.append(limb)
    sleeve = spec.get("sleeve")
    if sleeve:
        cloth = bp.surface_material("sleeve", sleeve["material"])
        for k, tube in enumerate(sleeve["tubes"]):
            m, half = bp.segment_matrix(tube["a"], tube["b"])
            profile = [[0, -half], [tube["r0"], -half], [tube["r1"], half], [0, half]]
            obj = bp.link(bpy.data.objects.new(f"sleeve{k}", bp.lathe_mesh(
                f"sleeve{k}", profile, smooth_deg=80)))
            obj.matrix_world = m @ Matrix.Rotation(math.pi / 2, 4, "Y")
            obj.data.materials.append(cloth)
            obj.parent = root
            objs.append(obj)
    motion = Vector(spec.get("motion_mm", (0, 0, 0))) * bp.MM
    for frame, sign in ((0, -1), (2, 1)):
        root.location = motion * sign
        root.keyframe_insert("location", frame=frame)
    return objs


EXPOSURE_LIMIT = 2.0  # stops either way from the rig's base: a webcam's gain runs out too


def expose(scene: bpy.types.Scene, base: float, target: float, work: Path) -> float:
    """Set the film exposure so that the empty scene's mean brightness is `target` (0..1 in
    the output picture), as a webcam's automatic exposure does, within EXPOSURE_LIMIT of the
    light rig's `base` exposure; returns the exposure."""
    scene.view_settings.exposure = base
    size = scene.render.resolution_x, scene.render.resolution_y
    samples = scene.cycles.samples
    scene.render.resolution_x, scene.render.resolution_y = 192, round(192 * size[1] / size[0])
    scene.cycles.samples = 8
    path = str(work / "exposure_probe.png")
    for _ in range(3):
        scene.render.filepath = path
        bpy.ops.render.render(write_still=True)
        image = bpy.data.images.load(path)
        w, h = image.size
        px = image.pixels[:]
        bpy.data.images.remove(image)
        centre = [4 * (y * w + x) for y in range(h // 5, h - h // 5)
                  for x in range(w // 5, w - w // 5)]  # centre-weighted, as webcams meter
        mean = sum(0.2126 * px[i] + 0.7152 * px[i + 1] + 0.0722 * px[i + 2]
                   for i in centre) / len(centre)
        step = 2.2 * math.log2(target / max(mean, 1e-3))
        ev = scene.view_settings.exposure + 0.8 * step
        scene.view_settings.exposure = max(base - EXPOSURE_LIMIT, min(base + EXPOSURE_LIMIT, ev))
    scene.render.resolution_x, scene.render.resolution_y = size
    scene.cycles.samples = samples
    return scene.view_settings.exposure


def probe(scene: bpy.types.Scene, camera: bpy.types.Object, points: list) -> list:
    """Blender's own projection of world mm points, in pixel-centre coordinates."""
    w, h = scene.render.resolution_x, scene.render.resolution_y
    out = []
    for p in points:
        ndc = world_to_camera_view(scene, camera, Vector(p) * bp.MM)
        out.append([ndc.x * w - 0.5, (1 - ndc.y) * h - 0.5])
    return out


def main() -> None:
    spec_path = Path(sys.argv[sys.argv.index("--") + 1])
    spec = json.loads(spec_path.read_text("utf-8"))
    scene = configure(spec)
    build_world(spec["world"])
    build_table(spec["table"], spec["board"])
    build_board(spec["board"])
    lights = build_lights(spec["lights"])
    place_lights(lights, [1.0] * len(lights), [[0, 0, 0]] * len(lights))
    camera = build_camera(spec["camera"])
    aim_camera(camera, spec["camera"])
    exposure = expose(scene, spec["render"]["exposure"], spec["render"]["brightness"],
                      spec_path.parent)
    print(f"photoreal: exposure {exposure:+.2f} EV", flush=True)
    protos = build_protos(spec["protos"])
    for frame in spec["frames"]:
        out = Path(frame["out"])
        if out.exists():
            continue
        aim_camera(camera, frame.get("camera", spec["camera"]))
        place_lights(lights, frame["light_scale"], frame["light_shift"])
        objs = place_pieces(frame["objects"], protos)
        if frame.get("hand"):
            objs += build_hand(frame["hand"])
        scene.render.use_motion_blur = bool(frame.get("hand"))
        scene.cycles.seed = frame["seed"]
        scene.frame_set(1)
        partial = out.with_suffix(".part.png")
        scene.render.filepath = str(partial)
        bpy.ops.render.render(write_still=True)
        points = probe(scene, camera, spec.get("probe", []))
        out.with_suffix(".probe.json").write_text(json.dumps(points), "utf-8")
        os.replace(partial, out)
        for obj in objs:
            bpy.data.objects.remove(obj, do_unlink=True)
        print(f"photoreal: rendered {out.name}", flush=True)


if __name__ == "__main__":
    main()
