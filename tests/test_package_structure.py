"""The package's structure, checked on its source tree (python/compiler_gym, read with ``ast``)
and on the imported package: one module imports the C++ extension, no module imports a name
upward through a package's ``__init__``, CompilerGym's module paths come from one table
(compiler_gym.compat) and name the implementation's objects, and every module says what it is
for. A failure names the module and the line to change."""

from __future__ import annotations

import ast
import functools
import importlib
import importlib.util
import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Optional

PACKAGE_DIR = Path(__file__).resolve().parent.parent / "python" / "compiler_gym"
PACKAGE = "compiler_gym"
ENGINE = "compiler_gym._engine"  # the one module that imports the extension
EXTENSION = "compiler_gym._C"


def _source_modules() -> list[tuple[str, Path]]:
    """(dotted name, path) of every module of the source tree, except the data files."""
    assert (PACKAGE_DIR / "__init__.py").is_file(), f"no source tree at {PACKAGE_DIR}"
    modules = []
    for path in sorted(PACKAGE_DIR.rglob("*.py")):
        relative = path.relative_to(PACKAGE_DIR)
        if relative.parts[0] == "data":
            continue
        parts = [PACKAGE, *relative.with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        modules.append((".".join(parts), path))
    return modules


MODULES = _source_modules()


@functools.cache
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(), filename=str(path))


def _where(path: Path, line: int) -> str:
    return f"{path.relative_to(PACKAGE_DIR.parent)}:{line}"


def _package_of(module: str, path: Path) -> str:
    """The package ``module`` lives in: itself for a package's ``__init__``."""
    return module if path.name == "__init__.py" else module.rpartition(".")[0]


def _resolve(node: ast.ImportFrom, module: str, path: Path) -> str:
    """The absolute module of a ``from ... import``, relative forms resolved."""
    if not node.level:
        return node.module or ""
    base = _package_of(module, path).split(".")
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, path: Path) -> Iterator[tuple[int, str, Optional[list[str]]]]:
    """(line, module, names) of each import in ``module``: names is None for ``import m``."""
    for node in ast.walk(_tree(path)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            yield node.lineno, _resolve(node, module, path), [a.name for a in node.names]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", getattr(node.func, "id", None))
            in ("import_module", "__import__")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            yield node.lineno, node.args[0].value, None


def _is_submodule(package: str, name: str) -> bool:
    """Whether ``package.name`` is a module of its own: a file or folder of the source tree,
    the extension (its stub, ``_C.pyi``, stands for the compiled file), or a compat alias."""
    folder = PACKAGE_DIR.parent.joinpath(*package.split("."))
    return (
        (folder / f"{name}.py").is_file()
        or (folder / name / "__init__.py").is_file()
        or (folder / f"{name}.pyi").is_file()
        or f"{package}.{name}" in _alias_paths()
    )


@functools.cache
def _alias_paths() -> frozenset[str]:
    """The module paths of compiler_gym.compat's table, read from the source (none without
    the table)."""
    if not (PACKAGE_DIR / "compat.py").is_file():
        return frozenset()
    paths = set()
    for node in ast.walk(_tree(PACKAGE_DIR / "compat.py")):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", None) == "Alias"
            and node.args
            and isinstance(node.args[0], ast.Constant)
        ):
            paths.add(node.args[0].value)
    return frozenset(paths)


def test_only_the_engine_module_imports_the_extension():
    """Every module takes ``_C`` from compiler_gym._engine, which sets the engine up once."""
    offenders = []
    for module, path in MODULES:
        if module == ENGINE:
            continue
        for line, imported, names in _imports(module, path):
            reaches = (
                imported == EXTENSION
                or imported.startswith(EXTENSION + ".")
                or (imported == PACKAGE and names is not None and "_C" in names)
            )
            if reaches:
                shown = f"from {imported} import {', '.join(names)}" if names else imported
                offenders.append(f"{_where(path, line)}: {shown}")
    assert not offenders, (
        "only compiler_gym/_engine.py imports the extension; "
        "these should use `from compiler_gym._engine import _C`:\n" + "\n".join(offenders)
    )
    engine_imports = [i for _, i, _ in _imports(ENGINE, PACKAGE_DIR / "_engine.py")]
    assert EXTENSION in engine_imports or PACKAGE in engine_imports


def test_no_module_imports_a_name_upward_through_a_package_init():
    """A module of package P (or of a package below P) imports no name from P that P's
    ``__init__.py`` defines or re-exports: it imports the submodule that defines the name."""
    offenders = []
    for module, path in MODULES:
        package = _package_of(module, path).split(".")
        ancestors = {".".join(package[:i]) for i in range(1, len(package) + 1)}
        for line, imported, names in _imports(module, path):
            if names is None or imported not in ancestors:
                continue
            for name in names:
                if name == "*" or not _is_submodule(imported, name):
                    offenders.append(f"{_where(path, line)}: from {imported} import {name}")
    assert not offenders, (
        "upward imports (import the name from the module that defines it):\n" + "\n".join(offenders)
    )


def test_compat_table_names_the_implementations_objects():
    """Each row of compiler_gym.compat imports, as a module of its own with the row's
    ``__all__`` and docstring, each name the very object of the implementation; no row's path
    is also a file or folder; a row's parent is a package; pickles that name a path load."""
    import compiler_gym  # noqa: F401  (installs the hook)
    from compiler_gym.compat import ALIASES

    assert ALIASES, "compiler_gym.compat.ALIASES is empty"
    assert {a.path for a in ALIASES} == _alias_paths(), (
        'compiler_gym/compat.py: write each row as Alias("<path>", ...), which the source '
        "checks read"
    )
    packages = {a.path for a in ALIASES if a.package}
    problems = []
    for alias in ALIASES:
        where = f"compiler_gym/compat.py, row {alias.path}"
        relative = Path(*alias.path.split(".")[1:])
        for leftover in (PACKAGE_DIR / relative.with_suffix(".py"), PACKAGE_DIR / relative):
            if leftover.exists():
                problems.append(f"{where}: also on disk: {leftover.relative_to(PACKAGE_DIR)}")
        parent = alias.path.rpartition(".")[0]
        parent_dir = PACKAGE_DIR.joinpath(*parent.split(".")[1:])
        # A real package, a package row, or a module with a package path (compiler_gym.spaces).
        parent_is_package = (parent_dir / "__init__.py").is_file() or (
            parent_dir.with_suffix(".py").is_file()
            and hasattr(importlib.import_module(parent), "__path__")
        )
        if parent not in packages and not parent_is_package:
            problems.append(f"{where}: its parent {parent} is not a package")
        try:
            module = importlib.import_module(alias.path)
        except ImportError as e:
            problems.append(f"{where}: does not import: {e}")
            continue
        if importlib.util.find_spec(alias.path) is None:
            problems.append(f"{where}: importlib.util.find_spec finds nothing")
        if module.__all__ != alias.exported:
            problems.append(f"{where}: __all__ {module.__all__} != {alias.exported}")
        if not module.__doc__ or module.__doc__ != alias.doc:
            problems.append(f"{where}: its docstring is not the row's")
        if alias.package != hasattr(module, "__path__"):
            problems.append(f"{where}: package={alias.package}, but the module disagrees")
        for name, source in alias.sources():
            value = getattr(importlib.import_module(source), name, None)
            if value is None or getattr(module, name, None) is not value:
                problems.append(f"{where}: {name} is not {source}.{name}")
            elif isinstance(value, type):
                # A pickle that names the class by CompilerGym's path loads the same class.
                by_path = pickle.loads(f"c{alias.path}\n{name}\n.".encode())
                if by_path is not value or pickle.loads(pickle.dumps(value)) is not value:
                    problems.append(f"{where}: a pickle of {name} does not load it")
    # CompilerGym's import statements, as user scripts write them.
    for statement in (
        "import compiler_gym.wrappers.counter",
        "from compiler_gym.envs.gcc.gcc_env import GccEnv",
        "from compiler_gym.envs.gcc import *",
        "from compiler_gym.datasets.uri import BenchmarkUri",
        "from compiler_gym.spaces.reward import Reward",
    ):
        try:
            exec(statement, {})
        except ImportError as e:
            problems.append(f"{statement}: {e}")
    assert not problems, "\n".join(problems)


def test_every_module_says_what_it_is_for():
    """Every module opens with a docstring whose first line is a sentence of a few words."""
    problems = []
    for _, path in MODULES:
        doc = ast.get_docstring(_tree(path))
        first = doc.strip().splitlines()[0] if doc and doc.strip() else ""
        if not first:
            problems.append(f"{_where(path, 1)}: no module docstring")
        elif len(first.split()) < 4:
            problems.append(f"{_where(path, 1)}: the docstring's first line says little: {first!r}")
    assert not problems, "modules that do not say what they are for:\n" + "\n".join(problems)
