"""Meshes and materials for blender_scene.py (runs inside Blender: bpy only, no numpy, no
project imports).

Sizes arrive in millimetres and are built in metres (`MM`), so that Cycles' light falloff and
bevel widths behave as at a real table.
"""

from __future__ import annotations

import itertools
import math

import bpy
from mathutils import Matrix, Vector

MM = 0.001
#: A metaball's surface lies at about this share of its radius (stiffness 2, threshold 0.6).
METABALL_SHRINK = 0.575


def matrix_mm(rows: list[list[float]]) -> Matrix:
    """A 4×4 world matrix in millimetres → Blender metres."""
    m = Matrix(rows)
    m.translation = m.translation * MM
    return m


def link(obj: bpy.types.Object) -> bpy.types.Object:
    bpy.context.scene.collection.objects.link(obj)
    return obj


def node_material(name: str) -> tuple[bpy.types.Material, bpy.types.Nodes, bpy.types.Node]:
    """A material with an empty node tree and its Principled BSDF wired to the output."""
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    nodes.clear()
    out = nodes.new("ShaderNodeOutputMaterial")
    bsdf = nodes.new("ShaderNodeBsdfPrincipled")
    mat.node_tree.links.new(bsdf.outputs["BSDF"], out.inputs["Surface"])
    return mat, nodes, bsdf


def wire(mat: bpy.types.Material, src: bpy.types.NodeSocket, dst: bpy.types.NodeSocket) -> None:
    mat.node_tree.links.new(src, dst)


def image_node(mat: bpy.types.Material, path: str, colour: bool = True,
               box: bool = False) -> bpy.types.Node:
    node = mat.node_tree.nodes.new("ShaderNodeTexImage")
    node.image = bpy.data.images.load(path, check_existing=True)
    if not colour:
        node.image.colorspace_settings.name = "Non-Color"
    if box:
        node.projection = "BOX"
        node.projection_blend = 0.25
    return node


def object_coords(mat: bpy.types.Material, scale_mm: float, angle_deg: float = 0.0,
                  offset: tuple[float, float] = (0.0, 0.0)) -> bpy.types.NodeSocket:
    """Object coordinates scaled so one texture tile spans `scale_mm`."""
    nodes = mat.node_tree.nodes
    coords = nodes.new("ShaderNodeTexCoord")
    mapping = nodes.new("ShaderNodeMapping")
    s = 1.0 / (scale_mm * MM)
    mapping.inputs["Scale"].default_value = (s, s, s)
    mapping.inputs["Rotation"].default_value = (0.0, 0.0, math.radians(angle_deg))
    mapping.inputs["Location"].default_value = (offset[0], offset[1], 0.0)
    wire(mat, coords.outputs["Object"], mapping.inputs["Vector"])
    return mapping.outputs["Vector"]


def add_bump(mat: bpy.types.Material, bsdf: bpy.types.Node, height: bpy.types.NodeSocket,
             strength: float, distance_mm: float = 0.3) -> None:
    bump = mat.node_tree.nodes.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = strength
    bump.inputs["Distance"].default_value = distance_mm * MM
    wire(mat, height, bump.inputs["Height"])
    wire(mat, bump.outputs["Normal"], bsdf.inputs["Normal"])


def grey(mat: bpy.types.Material, colour: bpy.types.NodeSocket) -> bpy.types.NodeSocket:
    node = mat.node_tree.nodes.new("ShaderNodeRGBToBW")
    wire(mat, colour, node.inputs["Color"])
    return node.outputs["Val"]


def fine_noise(mat: bpy.types.Material, scale: float) -> bpy.types.NodeSocket:
    """Procedural micro-structure (scale: features per metre) for bump and roughness."""
    node = mat.node_tree.nodes.new("ShaderNodeTexNoise")
    node.inputs["Scale"].default_value = scale
    node.inputs["Detail"].default_value = 8.0
    coords = mat.node_tree.nodes.new("ShaderNodeTexCoord")
    wire(mat, coords.outputs["Object"], node.inputs["Vector"])
    return node.outputs["Fac"]


def surface_material(name: str, spec: dict) -> bpy.types.Material:
    """A material from a spec: colour or image (UV, or object coordinates when `tile_mm`),
    roughness, gloss mask, sheen, clearcoat, metal, bump."""
    mat, _, bsdf = node_material(name)
    colour = None
    if "image" in spec:
        tile = spec.get("tile_mm")
        img = image_node(mat, spec["image"], box=bool(spec.get("box")))
        if tile:
            wire(mat, object_coords(mat, tile, spec.get("angle", 0.0),
                                    tuple(spec.get("offset", (0.0, 0.0)))), img.inputs["Vector"])
        colour = img.outputs["Color"]
        wire(mat, colour, bsdf.inputs["Base Color"])
    else:
        bsdf.inputs["Base Color"].default_value = (*spec["color"], 1.0)
    rough = spec.get("roughness", 0.5)
    bsdf.inputs["Roughness"].default_value = rough
    bsdf.inputs["Sheen"].default_value = spec.get("sheen", 0.0)
    bsdf.inputs["Clearcoat"].default_value = spec.get("coat", 0.0)
    bsdf.inputs["Clearcoat Roughness"].default_value = 0.08
    bsdf.inputs["Metallic"].default_value = spec.get("metallic", 0.0)
    bsdf.inputs["Specular"].default_value = spec.get("specular", 0.5)
    if "gloss" in spec:  # shiny ink or paint where the mask is white
        mask = image_node(mat, spec["gloss"], colour=False)
        mix = mat.node_tree.nodes.new("ShaderNodeMapRange")
        mix.inputs["To Min"].default_value = rough
        mix.inputs["To Max"].default_value = spec.get("gloss_roughness", 0.12)
        wire(mat, mask.outputs["Color"], mix.inputs["Value"])
        wire(mat, mix.outputs["Result"], bsdf.inputs["Roughness"])
        if spec.get("metal_ink"):
            wire(mat, mask.outputs["Color"], bsdf.inputs["Metallic"])
    bump = spec.get("bump", 0.0)
    if "height" in spec:  # a drawn height map (the dice's sunk pips)
        add_bump(mat, bsdf, image_node(mat, spec["height"], colour=False).outputs["Color"],
                 bump, 0.5)
    elif bump and colour is not None:
        add_bump(mat, bsdf, grey(mat, colour), bump)
    elif spec.get("micro", 0.0):
        add_bump(mat, bsdf, fine_noise(mat, spec.get("micro_scale", 400.0)), spec["micro"], 0.2)
    return mat


def box_mesh(name: str, x0: float, y0: float, z0: float, x1: float, y1: float,
             z1: float) -> bpy.types.Mesh:
    """An axis-aligned box in world millimetres (board y already flipped by the caller)."""
    v = [(x, y, z) for z in (z0, z1) for y in (y0, y1) for x in (x0, x1)]
    faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata([tuple(c * MM for c in p) for p in v], [], faces)
    mesh.update()
    return mesh


def plane_mesh(name: str, width: float, height: float) -> bpy.types.Mesh:
    """The board's top: board mm (0..w, 0..h) at z = 0, UV 0..1 with v up (image top = y 0)."""
    mesh = bpy.data.meshes.new(name)
    verts = [(0, 0, 0), (width * MM, 0, 0), (width * MM, -height * MM, 0), (0, -height * MM, 0)]
    mesh.from_pydata(verts, [], [(3, 2, 1, 0)])
    uv = mesh.uv_layers.new(name="UVMap")
    for loop, vid in zip(mesh.loops, (3, 2, 1, 0), strict=True):
        x, y, _ = verts[vid]
        uv.data[loop.index].uv = (x / (width * MM), 1 + y / (height * MM))
    mesh.update()
    return mesh


def lathe_mesh(name: str, profile: list[list[float]], segments: int = 48,
               smooth_deg: float = 35.0) -> bpy.types.Mesh:
    """A solid of revolution about local Z from (radius, z) millimetre pairs, bottom to top;
    a radius of 0 closes the end."""
    verts: list[tuple[float, float, float]] = []
    rings: list[list[int]] = []
    for r, z in profile:
        if r <= 1e-6:
            rings.append([len(verts)])
            verts.append((0.0, 0.0, z * MM))
            continue
        ring = []
        for k in range(segments):
            a = 2 * math.pi * k / segments
            ring.append(len(verts))
            verts.append((r * MM * math.cos(a), r * MM * math.sin(a), z * MM))
        rings.append(ring)
    faces = []
    for lo, hi in itertools.pairwise(rings):
        if len(lo) == 1 and len(hi) == 1:
            continue
        for k in range(segments):
            k2 = (k + 1) % segments
            if len(lo) == 1:
                faces.append((lo[0], hi[k], hi[k2])[::-1])
            elif len(hi) == 1:
                faces.append((lo[k], lo[k2], hi[0]))
            else:
                faces.append((lo[k], lo[k2], hi[k2], hi[k]))
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    mesh.validate()
    mesh.polygons.foreach_set("use_smooth", [True] * len(mesh.polygons))
    mesh.use_auto_smooth = True
    mesh.auto_smooth_angle = math.radians(smooth_deg)
    mesh.update()
    return mesh


#: Die faces: (outward normal, value, u axis, v axis) for a cube with an atlas of 3×2 cells.
DIE_FACES = (((0, 0, 1), 1, (1, 0, 0), (0, 1, 0)), ((0, 0, -1), 6, (1, 0, 0), (0, -1, 0)),
             ((1, 0, 0), 2, (0, 1, 0), (0, 0, 1)), ((-1, 0, 0), 5, (0, -1, 0), (0, 0, 1)),
             ((0, 1, 0), 3, (-1, 0, 0), (0, 0, 1)), ((0, -1, 0), 4, (1, 0, 0), (0, 0, 1)))


def die_mesh(name: str, size: float) -> bpy.types.Mesh:
    """A cube of `size` mm centred on the origin; each face maps to its value's atlas cell
    (value v: column (v−1) mod 3, row (v−1) div 3 from the top)."""
    h = size / 2 * MM
    verts, faces, uvs = [], [], []
    for normal, value, u_axis, v_axis in DIE_FACES:
        n, u, v = Vector(normal), Vector(u_axis), Vector(v_axis)
        col, row = (value - 1) % 3, (value - 1) // 3
        base = len(verts)
        for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            verts.append(tuple(n * h + u * (su * h) + v * (sv * h)))
            uvs.append(((col + (su + 1) / 2) / 3, 1 - (row + 1 - (sv + 1) / 2) / 2))
        faces.append((base, base + 1, base + 2, base + 3))
    mesh = bpy.data.meshes.new(name)
    mesh.from_pydata(verts, [], faces)
    layer = mesh.uv_layers.new(name="UVMap")
    for loop in mesh.loops:
        layer.data[loop.index].uv = uvs[loop.vertex_index]
    mesh.polygons.foreach_set("use_smooth", [True] * len(mesh.polygons))
    mesh.use_auto_smooth = True
    mesh.auto_smooth_angle = math.radians(30)
    mesh.update()
    return mesh


def bevel(obj: bpy.types.Object, width_mm: float, segments: int = 3) -> None:
    mod = obj.modifiers.new("bevel", "BEVEL")
    mod.width = width_mm * MM
    mod.segments = segments
    mod.limit_method = "NONE"


def segment_matrix(a: list[float], b: list[float]) -> tuple[Matrix, float]:
    """World matrix whose local X runs from a to b (mm), placed at the midpoint; and the
    half length in mm."""
    va, vb = Vector(a), Vector(b)
    axis = vb - va
    quat = axis.normalized().to_track_quat("X", "Z")
    m = quat.to_matrix().to_4x4()
    m.translation = (va + vb) / 2 * MM
    return m, axis.length / 2


def metaball_limb(name: str, elements: list[dict], material: bpy.types.Material,
                  resolution_mm: float = 2.5) -> bpy.types.Object:
    """Capsules ("a" → "b") and ellipsoids blended smoothly into one metaball. Radii are the
    visible radii in mm. Blender melts metaball objects whose names differ only by a ".001"
    suffix, so each group needs a name of its own."""
    mb = bpy.data.metaballs.new(name)
    mb.resolution = resolution_mm * MM
    mb.render_resolution = resolution_mm * MM
    mb.threshold = 0.6
    obj = link(bpy.data.objects.new(name, mb))
    for spec in elements:
        if spec["type"] == "capsule":
            m, half = segment_matrix(spec["a"], spec["b"])
            el = mb.elements.new(type="CAPSULE")
            el.size_x = half * MM
            el.co = m.translation
            el.rotation = m.to_quaternion()
        else:
            el = mb.elements.new(type="ELLIPSOID")
            el.co = Vector(spec["centre"]) * MM
            el.size_x, el.size_y, el.size_z = (s / max(spec["size"]) for s in spec["size"])
            el.rotation = Matrix(spec["rotation"]).to_quaternion()
        radius = spec["radius"] if spec["type"] == "capsule" else max(spec["size"])
        el.radius = radius * MM / METABALL_SHRINK
        el.stiffness = 2.0
    mb.materials.append(material)
    return obj
