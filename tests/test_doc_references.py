"""Comments and notes that send the reader to a page of docs/ name one that exists (sections
that moved out of the README): a renamed page or heading fails here."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# (file, the docs/ page it names)
REFERENCES = [
    ("envs/llvm/PASSES.md", "docs/benchmarks.md"),
    ("benchmarks/CMakeLists.txt", "docs/benchmarks.md"),
    ("envs/example/example_env.h", "docs/adding_a_family.md"),
]


def anchor(heading: str) -> str:
    """A Markdown heading's anchor, as mkdocs makes it."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("path,page", REFERENCES, ids=[p for p, _ in REFERENCES])
def test_a_note_names_the_docs_page_not_a_readme_section(path, page):
    text = (ROOT / path).read_text(encoding="utf-8")
    assert page in text, f"{path} does not name {page}"
    assert not re.search(r"README[,\" ]+\"[A-Z]|see the README", text), path
    assert (ROOT / page).is_file(), page


def test_the_fuzzing_link_of_passes_md_lands_on_a_heading():
    text = (ROOT / "envs/llvm/PASSES.md").read_text(encoding="utf-8")
    links = re.findall(r"\]\((\.\./\.\./docs/[\w./-]+)#([\w-]+)\)", text)
    assert links, "PASSES.md links to no section of docs/"
    for target, fragment in links:
        page = (ROOT / "envs/llvm" / target).resolve()
        headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M)
        assert fragment in {anchor(h) for h in headings}, (target, fragment)
