"""narrator/ is built in floors (docs/layout.md): no module imports from a floor above its own, and the
layout page names every module.

The floors, lowest first: core, text, engines, plan, render, assemble, package, inspect, workflow,
studio, cli.
A stage's folder is its floor; narrator/cli.py and narrator/__main__.py are the cli floor, and
narrator/__init__.py (the version only) sits beneath core. A module may import from its own floor
and the floors below it. Imports inside functions count: a lazy import is still a dependency.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from conftest import REPO

PACKAGE = REPO / "narrator"
LAYOUT = REPO / "docs" / "layout.md"
FLOORS = (
    "core",
    "text",
    "engines",
    "plan",
    "render",
    "assemble",
    "package",
    "inspect",
    "workflow",
    "studio",
    "cli",
)
#: The modules of the top floor that are not a folder.
CLI = ("cli", "__main__")


def modules() -> list[Path]:
    return sorted(path for path in PACKAGE.rglob("*.py") if "__pycache__" not in path.parts)


def dotted(path: Path) -> str:
    """narrator/core/catalog.py -> narrator.core.catalog; a package's __init__.py -> the package."""
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    path = REPO.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def floor(name: str) -> int:
    """The floor of a module of narrator's, by its dotted name (-1: narrator/__init__.py)."""
    parts = name.split(".")
    if len(parts) == 1:
        return -1
    top = parts[1]
    if top in CLI:
        return FLOORS.index("cli")
    assert top in FLOORS, f"narrator/{top} is on no floor: give it one in FLOORS and docs/layout.md"
    return FLOORS.index(top)


def floor_name(name: str) -> str:
    return FLOORS[floor(name)] if floor(name) >= 0 else "narrator/__init__.py"


def narrator_imports(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module) of every import of a module of narrator's in the file, wherever it is."""
    name = dotted(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            # `from narrator import cli` imports the module narrator.cli; `from x import name`, x.
            for alias in node.names:
                submodule = f"{module}.{alias.name}"
                found.append((node.lineno, submodule if is_module(submodule) else module))
    return [(line, target) for line, target in found if target.split(".")[0] == "narrator"]


def test_no_module_imports_from_a_higher_floor() -> None:
    upward, seen = [], 0
    for path in modules():
        importer = dotted(path)
        for line, imported in narrator_imports(path):
            seen += 1
            if floor(imported) > floor(importer):
                upward.append(
                    f"{path.relative_to(REPO)}:{line}: {importer} ({floor_name(importer)}) imports "
                    f"{imported} ({floor_name(imported)}), a higher floor"
                )
    assert seen > 50, f"only {seen} imports of narrator's modules found: is the parsing broken?"
    assert not upward, "\n".join(["modules import from a higher floor (docs/layout.md):", *upward])


def documented(text: str) -> set[str]:
    """The paths, relative to narrator/, that docs/layout.md names.

    Under a heading ``### narrator/<folder>/``, the first word of each line of its code blocks: a
    file, or a subfolder (``readers/``) whose files are the lines indented under it. Anywhere in a
    code block, a first word ``narrator/<path>`` (as the command's section names cli.py).
    """
    named: set[str] = set()
    folder: str | None = None
    in_code = False
    subfolder: tuple[int, str] | None = None
    for line in text.splitlines():
        if line.startswith("#"):
            heading = re.match(r"#+ narrator/((?:[\w.]+/)+)", line)
            folder = heading.group(1) if heading else None
            if folder:
                named.add(folder)
            continue
        if line.startswith("```"):
            in_code, subfolder = not in_code, None
            continue
        if not in_code or not line.strip():
            continue
        word, indent = line.split()[0], len(line) - len(line.lstrip())
        if subfolder and indent <= subfolder[0]:
            subfolder = None
        if word.startswith("narrator/"):
            named.add(word.removeprefix("narrator/"))
        elif folder and word.endswith("/"):
            subfolder = (indent, word)
            named.add(folder + word)
        elif folder and word.endswith(".py"):
            named.add(folder + (subfolder[1] if subfolder else "") + word)
    return named


def test_layout_page_names_every_module() -> None:
    named = documented(LAYOUT.read_text(encoding="utf-8"))
    missing = []
    for path in modules():
        relative = path.relative_to(PACKAGE)
        if relative == Path("__init__.py"):
            continue  # narrator/ itself, the page's subject
        # A package is named by its folder: a heading `### narrator/core/`, or a line `readers/`.
        name = f"{relative.parent.as_posix()}/" if path.name == "__init__.py" else relative.as_posix()
        if name not in named:
            folder = relative.parent.as_posix()
            where = f"### narrator/{folder}/" if relative.parent.parts else "### The command"
            missing.append(f"narrator/{relative.as_posix()} (as {path.name} under {where})")
    assert not missing, "\n".join([f"{LAYOUT.relative_to(REPO)} does not name:", *missing])
