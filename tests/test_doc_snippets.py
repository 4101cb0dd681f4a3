"""Every Python snippet of the README and of docs/ runs as written (issue 38).

Each fenced ```python block of ``README.md`` and ``docs/**/*.md`` is one test, named
``file:line`` (the line of its opening fence), run as a script of its own in a fresh Python
process. Its working directory is a new temporary directory holding a link to each top-level
entry of the repository, so a snippet reads repository paths (``benchmarks/...``) as from the
repository root, while the files it writes stay in the temporary directory.

A block meant not to run is marked by an HTML comment on the line before its fence, with the
reason (it needs a GPU or a Ray cluster): ``<!-- skip-snippet: needs a Ray cluster -->``. The
marker is for what this machine cannot do, not for what is slow: a slow snippet is made fast
(a small benchmark, few steps). Blocks of other languages (``sh``, ``text``) are not run.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
# A snippet gets this long; they are meant to take seconds.
SNIPPET_TIMEOUT_S = 300
# The skip marker is rare: more than this many means snippets are being skipped for convenience.
MAX_SKIPPED = 3

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^`\s]*)")
_SKIP = re.compile(r"^\s*<!--\s*skip-snippet:(?P<reason>.*?)-->\s*$")


@dataclasses.dataclass(frozen=True)
class Snippet:
    """One fenced code block: where it starts, its language, its code and any skip reason."""

    path: Path
    line: int  # 1-based line of the opening fence
    language: str
    code: str
    skip_reason: Optional[str] = None

    @property
    def id(self) -> str:
        """``file:line``, the file relative to the repository root where it lies there."""
        try:
            name = self.path.resolve().relative_to(ROOT)
        except ValueError:
            name = self.path
        return f"{name}:{self.line}"


def collect_snippets(path: Path) -> list[Snippet]:
    """The fenced code blocks of a markdown file, in order (every language)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    snippets = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        indent, fence, info = match["indent"], match["fence"], match["info"].lower()
        start = i
        body = []
        i += 1
        while i < len(lines):
            closing = re.match(rf"^[ \t]*{fence[0]}{{{len(fence)},}}[ \t]*$", lines[i])
            if closing:
                break
            line = lines[i]
            body.append(line[len(indent) :] if line.startswith(indent) else line.lstrip())
            i += 1
        else:
            raise ValueError(f"{path}:{start + 1}: a code block that is never closed")
        i += 1  # past the closing fence
        previous = start - 1
        while previous >= 0 and not lines[previous].strip():
            previous -= 1
        skip = _SKIP.match(lines[previous]) if previous >= 0 else None
        reason = None
        if skip:
            reason = skip["reason"].strip()
            if not reason:
                raise ValueError(f"{path}:{start + 1}: skip-snippet without a reason")
        snippets.append(Snippet(path, start + 1, info, "\n".join(body) + "\n", reason))
    return snippets


def python_snippets(paths=DOCUMENTS) -> list[Snippet]:
    """The ```python blocks of the given markdown files."""
    return [s for p in paths for s in collect_snippets(p) if s.language in ("python", "py")]


class SnippetFailed(AssertionError):
    """A snippet exited with an error: its ``file:line``, exit status and output."""


def run_snippet(snippet: Snippet, timeout: float = SNIPPET_TIMEOUT_S) -> str:
    """Runs ``snippet`` as a script in a fresh interpreter; returns its output, or raises
    :class:`SnippetFailed` naming ``file:line`` with the output's tail."""
    with tempfile.TemporaryDirectory(prefix="doc_snippet_") as workdir:
        work = Path(workdir)
        for entry in ROOT.iterdir():
            if not entry.name.startswith("."):
                (work / entry.name).symlink_to(entry)
        script = work / "snippet.py"
        script.write_text(snippet.code, encoding="utf-8")
        env = dict(os.environ, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")
        try:
            proc = subprocess.run(
                [sys.executable, "snippet.py"],
                cwd=work,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired as e:
            raise SnippetFailed(f"{snippet.id}: did not finish in {timeout} s") from e
    if proc.returncode != 0:
        # The traceback's lines are the snippet's: line n of snippet.py is line + n of the file.
        raise SnippetFailed(
            f"{snippet.id}: exit status {proc.returncode} (snippet.py line n is line "
            f"{snippet.line} + n of the file)\n{proc.stdout[-4000:]}"
        )
    return proc.stdout


SNIPPETS = python_snippets()


@pytest.mark.timeout(SNIPPET_TIMEOUT_S + 60)
@pytest.mark.parametrize("snippet", SNIPPETS, ids=[s.id for s in SNIPPETS])
def test_snippet_runs(snippet: Snippet):
    if snippet.skip_reason:
        pytest.skip(f"skip-snippet: {snippet.skip_reason}")
    run_snippet(snippet)


def test_the_skip_marker_is_rare():
    skipped = [f"{s.id} ({s.skip_reason})" for s in SNIPPETS if s.skip_reason]
    assert len(skipped) <= MAX_SKIPPED, skipped
    assert len(SNIPPETS) >= 10  # the collector finds the documents' snippets


def test_the_readme_is_a_front_page():
    # What it is, the two commands, an example, the families, the folder map and where to read
    # on; the rest is the site's (docs/, whose pages `mkdocs build --strict` checks are listed).
    readme = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(readme) <= 200
    for heading in ("## Two commands", "## Example", "## Where things live", "## Read on"):
        assert heading in readme


def test_a_broken_snippet_fails(tmp_path):
    doc = tmp_path / "broken.md"
    doc.write_text(
        "# A page\n\n```sh\nexit 1\n```\n\n```python\nimport compiler_gym\n\n"
        'env = compiler_gym.make("llvm-v0")\nenv.no_such_method()\n```\n\n'
        "<!-- skip-snippet: needs a GPU -->\n```python\nraise SystemExit(1)\n```\n",
        encoding="utf-8",
    )
    broken, skipped = python_snippets([doc])
    assert broken.id.endswith("broken.md:7") and broken.skip_reason is None
    assert skipped.skip_reason == "needs a GPU"
    with pytest.raises(SnippetFailed, match=r"broken\.md:7: exit status 1") as failure:
        run_snippet(broken)
    assert "no_such_method" in str(failure.value)
    assert run_snippet(python_snippets([_page(tmp_path, "print(6 * 7)")])[0]) == "42\n"


@pytest.mark.timeout(300)
def test_the_site_build_fails_on_a_broken_link(tmp_path):
    # scripts/test.sh builds the site with --strict: a link to a missing page or anchor must
    # fail it (mkdocs.yml's validation settings; --quiet would hide the warnings it counts).
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    for name in ("mkdocs.yml", "README.md", "docs"):
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, tmp_path / name)
        else:
            shutil.copy(source, tmp_path / name)
    (tmp_path / "python").symlink_to(ROOT / "python")
    page = tmp_path / "docs" / "design.md"
    page.write_text(page.read_text() + "\nSee [a page](no_such_page.md#nothing).\n")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=tmp_path,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"),
        capture_output=True,
        text=True,
    )
    assert proc.returncode != 0 and "no_such_page.md" in proc.stderr, proc.stderr[-2000:]


def test_indented_blocks_and_unclosed_fences(tmp_path):
    # A block inside a list item is dedented; an unclosed fence is an error, not a lost snippet.
    doc = _page(tmp_path, "x = 1\nif x:\n    print(x)", indent="  ")
    (snippet,) = python_snippets([doc])
    assert snippet.code == "x = 1\nif x:\n    print(x)\n"
    assert run_snippet(snippet) == "1\n"
    unclosed = tmp_path / "unclosed.md"
    unclosed.write_text("```python\nprint(1)\n", encoding="utf-8")
    with pytest.raises(ValueError, match="never closed"):
        python_snippets([unclosed])


def _page(tmp_path: Path, code: str, indent: str = "") -> Path:
    doc = tmp_path / "page.md"
    body = "\n".join(indent + line for line in code.splitlines())
    doc.write_text(f"- an item:\n\n{indent}```python\n{body}\n{indent}```\n", encoding="utf-8")
    return doc
