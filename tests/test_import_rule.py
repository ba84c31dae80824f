"""The one rule of imports (docs/architecture.md): the flow goes one way, and the folders show it.

    controller/words        the shared words: imports nothing of the project
    core                    rules, referee, journal, table log, game export: words and core only
    vision/, hardware/      of `controller` only the shared words (firmware's protocol is shared
                            with hardware); never each other
    firmware/               nothing of the project but firmware
    shell                   everything else in `controller/`: may import all of the above

Every import counts, also those inside functions and under `TYPE_CHECKING`. Inside functions
the table program imports only what is optional (Pi-only packages); everything else at the top,
so a module's dependencies stand in its first lines.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("controller", "vision", "hardware", "firmware")
CORE = ("controller.rules", "controller.referee", "controller.journal", "controller.table_log",
        "controller.game_export")
ALLOWED = {
    "words": {"words"},
    "core": {"words", "core"},
    "vision": {"words", "vision"},
    "hardware": {"words", "hardware", "firmware"},
    "firmware": {"firmware"},
    "shell": {"words", "core", "shell", "vision", "hardware", "firmware"},
}


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def layer(module: str) -> str | None:
    """The layer of a project module, None for the standard library and third parties."""
    if _within(module, "controller.words"):
        return "words"
    if any(_within(module, core) for core in CORE):
        return "core"
    if _within(module, "controller"):
        return "shell"
    top = module.split(".")[0]
    return top if top in PACKAGES else None


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> list[tuple[int, str]]:
    """(line, imported module) for every import statement in the file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            assert node.level == 0, f"{path}:{node.lineno}: relative import"
            # `from controller import config` imports the module controller.config
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def _sources() -> list[Path]:
    return sorted(p for package in PACKAGES for p in (ROOT / package).rglob("*.py"))


def test_the_layers_are_where_the_docs_say() -> None:
    assert layer("controller.words.events") == "words"
    assert layer("controller.rules.backgammon") == "core"
    assert layer("controller.referee") == "core"
    assert layer("controller.cli") == "shell"
    assert layer("vision.dice") == "vision"
    assert layer("numpy") is None
    assert len(_sources()) > 50


@pytest.mark.parametrize("path", _sources(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_import_follows_the_rule(path: Path) -> None:
    own = layer(module_name(path))
    assert own is not None
    wrong = []
    for line, imported in imports_of(path):
        target = layer(imported)
        if target is not None and target not in ALLOWED[own]:
            wrong.append(f"{path.relative_to(ROOT)}:{line}: {own} imports {imported} ({target})")
    assert not wrong, "\n".join(wrong)


OPTIONAL = ("picamera2", "lgpio", "gpiozero.pins.lgpio")  # only on the Pi
# The vision commands are being rewritten with vision/ and keep their lazy imports until then.
OWN_IMPORTS = ("controller/commands/calibrate.py", "controller/commands/vision.py")


def imports_inside_functions(path: Path) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import):
                    found += [(inner.lineno, alias.name) for alias in inner.names]
                elif isinstance(inner, ast.ImportFrom) and inner.module:
                    found.append((inner.lineno, inner.module))
    return found


def _shell_and_hardware() -> list[Path]:
    return sorted(
        path for package in ("controller", "hardware") for path in (ROOT / package).rglob("*.py")
        if str(path.relative_to(ROOT)) not in OWN_IMPORTS
    )


@pytest.mark.parametrize("path", _shell_and_hardware(), ids=lambda p: str(p.relative_to(ROOT)))
def test_imports_stand_at_the_top_except_optional_ones(path: Path) -> None:
    inside = [f"{path.relative_to(ROOT)}:{line}: {name}"
              for line, name in imports_inside_functions(path)
              if not any(_within(name, optional) for optional in OPTIONAL)]
    assert not inside, "\n".join(inside)
