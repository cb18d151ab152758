"""The layout's rules hold (import-linter contracts in pyproject.toml), and breaking one fails.

Each broken case runs lint-imports on a copy of the package with one forbidden import added,
so the check is shown to catch exactly that import (and to break no other contract); the real
package is never touched.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "holon_git"


def lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    """lint-imports with the contracts of ``cwd``/pyproject.toml, on ``cwd``/holon_git."""
    code = "import sys; from importlinter.cli import lint_imports_command; " \
        "sys.exit(lint_imports_command())"
    return subprocess.run([sys.executable, "-c", code, "--no-cache"], cwd=cwd,
                          capture_output=True, text=True, check=False)


def test_the_layer_contracts_hold() -> None:
    done = lint_imports(ROOT)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout and " kept" in done.stdout


PYGIT2, CLICK, MCP = ("only holon_git.git imports pygit2", "only holon_git.cli imports click",
                     "only holon_git.mcp_server imports the MCP SDK")
CORE, PARSE, LAYERS = ("the core touches no disk", "the parser knows nothing", "layers")
DOWN, PLAN_DOWN, PLACE_DOWN = ("core imports downward", "core.plan imports downward",
                               "core.place imports downward")
SALVAGE_DOWN = "core.place.salvage imports downward"
ALL = (PYGIT2, CLICK, MCP, CORE, PARSE, LAYERS, DOWN, PLAN_DOWN, PLACE_DOWN, SALVAGE_DOWN)

# (module, the import added, the contracts it must break, the import reported)
BREAKS = [
    ("core/model.py", "import pygit2", [PYGIT2], "holon_git.core.model -> pygit2"),
    ("targets/worktree.py", "import pygit2", [PYGIT2], "holon_git.targets.worktree -> pygit2"),
    ("fs/tree.py", "import click", [CLICK], "holon_git.fs.tree -> click"),
    ("api.py", "import mcp", [MCP], "holon_git.api -> mcp"),
    ("core/plan/plan.py", "from ...git import history", [CORE, LAYERS],
     "holon_git.core.plan.plan -> holon_git.git.history"),
    # the parser uses core.paths: it would reach the filesystem through it
    ("core/paths.py", "from ..fs import tree", [CORE, PARSE, LAYERS],
     "holon_git.core.paths -> holon_git.fs.tree"),
    ("parse/text.py", "from ..targets import registry", [PARSE, LAYERS],
     "holon_git.parse.text -> holon_git.targets.registry"),
    ("git/location.py", "from ..fs import journal_dir", [LAYERS],
     "holon_git.git.location -> holon_git.fs.journal_dir"),
    ("targets/base.py", "from .. import api", [LAYERS], "holon_git.targets.base -> holon_git.api"),
    # inside the core, a circle: placement back into the plan, the rescue back into the planner
    ("core/place/match.py", "from ..plan import hunks",
     [DOWN, PLAN_DOWN, PLACE_DOWN, SALVAGE_DOWN],
     "holon_git.core.place.match -> holon_git.core.plan.hunks"),
    ("core/plan/rescue.py", "from . import files", [PLAN_DOWN],
     "holon_git.core.plan.rescue -> holon_git.core.plan.files"),
    # the last rungs: back into the ladder that lists them (and so into their own entry), a
    # rung into the decision
    ("core/place/salvage/gap.py", "from .. import ladder", [PLACE_DOWN, SALVAGE_DOWN],
     "holon_git.core.place.salvage.gap -> holon_git.core.place.ladder"),
    ("core/place/salvage/reading.py", "from . import decide", [SALVAGE_DOWN],
     "holon_git.core.place.salvage.reading -> holon_git.core.place.salvage.decide"),
]


@pytest.fixture(scope="module")
def package_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the package and its contracts, checked to keep every contract as it is."""
    copy = tmp_path_factory.mktemp("layout")
    shutil.copytree(PACKAGE, copy / "holon_git", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", copy / "pyproject.toml")
    done = lint_imports(copy)
    assert done.returncode == 0, done.stdout + done.stderr
    return copy


@pytest.mark.slow
@pytest.mark.parametrize(("module", "line", "contracts", "reported"), BREAKS,
                         ids=[f"{m}-{line.split()[-1]}" for m, line, _, _ in BREAKS])
def test_a_forbidden_import_breaks_its_contract(package_copy: Path, module: str, line: str,
                                                contracts: list[str], reported: str) -> None:
    target = package_copy / "holon_git" / module
    original = target.read_text()
    target.write_text(f"{original}\n{line}  # a forbidden import, for the test\n")
    try:
        done = lint_imports(package_copy)
    finally:
        target.write_text(original)
    assert done.returncode != 0, done.stdout
    broken = [row for row in done.stdout.splitlines() if row.endswith(" BROKEN")]
    assert {c for c in ALL if any(row.startswith(c) for row in broken)} == set(contracts), \
        done.stdout
    assert len(broken) == len(contracts), done.stdout
    assert reported in done.stdout, done.stdout
    assert line not in (PACKAGE / module).read_text()  # the real package is untouched


def _imports(path: Path) -> list[str]:
    tree = ast.parse(path.read_text())
    return [ast.unparse(node) for node in ast.walk(tree)
            if isinstance(node, ast.Import | ast.ImportFrom)
            and not (isinstance(node, ast.ImportFrom) and node.module == "__future__")]


# The library's public faces re-export their API (README, docs/providers.md); parse/ keeps
# its entry point in its __init__ as before. Every other package's __init__ is a docstring.
PUBLIC_FACES = {"holon_git/__init__.py", "holon_git/provider/__init__.py",
                "holon_git/parse/__init__.py"}


def test_package_inits_import_nothing_of_their_own() -> None:
    inits = sorted(PACKAGE.rglob("__init__.py"))
    assert len(inits) >= 9  # holon_git, core, parse, fs, git, targets, hooks, provider, mcp
    for init in inits:
        name = init.relative_to(ROOT).as_posix()
        if name not in PUBLIC_FACES:
            assert _imports(init) == [], name


def test_every_package_directory_is_a_package() -> None:
    """A folder without __init__.py imports (as a namespace package) but is left out of a
    wheel and of the import graph the contracts check."""
    for folder in [PACKAGE, *PACKAGE.rglob("*")]:
        if folder.is_dir() and folder.name != "__pycache__" and any(folder.glob("*.py")):
            assert (folder / "__init__.py").is_file(), folder



# Where the two codes that say "the change is (not) in the file" may be written as strings:
# the plan's one judge, and the tables that describe a code (not decide it).
SAYS_APPLIED = {"already_applied", "not_applied"}
NAMES_THE_CODES = {
    "core/plan/applied.py": "decides them, and builds their one error",
    "errors.py": "the catalogue of codes and their hints",
    "provider/results.py": "what a tool result tells the model for each code",
}


def codes_named_outside_the_judge(package: Path) -> list[str]:
    """Each place (module:line) outside NAMES_THE_CODES whose code holds one of the two codes
    as a string constant (docstrings are prose; a subscript key such as the receipt's
    per-hunk ``already_applied`` field in core/change.py is a field name, not a code)."""
    offenders = []
    for source in sorted(package.rglob("*.py")):
        relative = source.relative_to(package).as_posix()
        if relative in NAMES_THE_CODES:
            continue
        tree = ast.parse(source.read_text(encoding="utf-8"))
        keys = {id(node.slice) for node in ast.walk(tree) if isinstance(node, ast.Subscript)}
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef,
                                           ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)}
        offenders += [f"{relative}:{node.lineno}" for node in ast.walk(tree)
                      if isinstance(node, ast.Constant) and node.value in SAYS_APPLIED
                      and id(node) not in keys and id(node) not in docstrings]
    return offenders


@pytest.mark.slow
def test_only_applied_py_decides_already_applied() -> None:
    """Issue 29 item 1: "already applied or not applied?" is decided in one module: no other
    module compares a refusal's code with those codes or raises one."""
    assert codes_named_outside_the_judge(PACKAGE) == []


@pytest.mark.slow
def test_the_check_for_the_judge_catches_a_second_one(tmp_path: Path) -> None:
    """The check above fails when another module decides already_applied itself."""
    copy = tmp_path / "holon_git"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    sequence = copy / "core" / "plan" / "sequence.py"
    text = sequence.read_text(encoding="utf-8")
    sequence.write_text(text + '\n\ndef _judge(code: str) -> bool:\n'
                        '    return code == "already_applied"\n', encoding="utf-8")
    added = len(text.splitlines()) + 4
    assert codes_named_outside_the_judge(copy) == [f"core/plan/sequence.py:{added}"]


def imports_of_the_package_root(package: Path) -> list[str]:
    """Each module (module:line) that imports a name of the package's root (``from . import
    x`` in a top-level module, ``from .. import x`` one level down, for an ``x`` that is no
    module of the package): the root is the public face, which imports the API, so such a
    name is a cycle (importing a submodule, ``from . import api``, is not)."""
    submodules = {path.stem for path in package.glob("*.py")} | {
        path.parent.name for path in package.glob("*/__init__.py")}
    offenders = []
    for source in sorted(package.rglob("*.py")):
        relative = source.relative_to(package)
        if relative.as_posix() == "__init__.py":
            continue
        depth = len(relative.parts) - 1
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (
                    (node.level == depth + 1 and node.module is None)
                    or (node.level == 0 and node.module == package.name)) \
                    and any(alias.name not in submodules for alias in node.names):
                offenders.append(f"{relative.as_posix()}:{node.lineno}")
    return offenders


def test_no_module_imports_the_package_root() -> None:
    """Issue 36 item 7: the version lives in version.py; the receipt (which the API imports)
    and the MCP server once took it from the package's root, which imports the API."""
    assert imports_of_the_package_root(PACKAGE) == []


@pytest.mark.slow
def test_the_check_for_the_root_catches_an_import_of_it(tmp_path: Path) -> None:
    copy = tmp_path / "holon_git"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    receipt = copy / "receipt.py"
    text = receipt.read_text(encoding="utf-8")
    receipt.write_text(text + "\n\nfrom . import __version__ as _v  # noqa\n", encoding="utf-8")
    server = copy / "mcp_server" / "server.py"
    server_text = server.read_text(encoding="utf-8")
    server.write_text(server_text + "\nfrom .. import __version__ as _v  # noqa\n",
                      encoding="utf-8")
    assert imports_of_the_package_root(copy) == [
        f"mcp_server/server.py:{len(server_text.splitlines()) + 2}",
        f"receipt.py:{len(text.splitlines()) + 3}"]


# Where a tolerant rung's proposal may be refused: the one judge of evidence (issue 36).
JUDGE = "core/place/salvage/judge.py"


def evidence_refused_outside_the_judge(package: Path) -> list[str]:
    """Each place (module:line) outside the judge that builds an ``Unplaced``, the refusal of
    a last rung's proposal: a rung that refuses on its own evidence is a second judge."""
    offenders = []
    for source in sorted(package.rglob("*.py")):
        relative = source.relative_to(package).as_posix()
        if relative == JUDGE:
            continue
        tree = ast.parse(source.read_text(encoding="utf-8"))
        offenders += [f"{relative}:{node.lineno}" for node in ast.walk(tree)
                      if isinstance(node, ast.Call) and (
                          (isinstance(node.func, ast.Name) and node.func.id == "Unplaced")
                          or (isinstance(node.func, ast.Attribute)
                              and node.func.attr == "Unplaced"))]
    return offenders


@pytest.mark.slow
def test_only_the_judge_refuses_a_rung_s_proposal() -> None:
    assert evidence_refused_outside_the_judge(PACKAGE) == []


@pytest.mark.slow
def test_the_check_for_the_judge_of_evidence_catches_a_second_one(tmp_path: Path) -> None:
    """A rung that refuses a place itself (here gap.py) is caught."""
    copy = tmp_path / "holon_git"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    gap = copy / "core" / "place" / "salvage" / "gap.py"
    text = gap.read_text(encoding="utf-8")
    gap.write_text(text + "\n\ndef _refuse(note: str) -> None:\n"
                   "    raise reading.Unplaced(note)\n", encoding="utf-8")
    assert evidence_refused_outside_the_judge(copy) == [
        f"core/place/salvage/gap.py:{len(text.splitlines()) + 4}"]
