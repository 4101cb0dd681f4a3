"""MkDocs hooks of the documentation site (mkdocs.yml's ``hooks``).

- The home page is the repository's README.md, with its links into docs/ made relative to the
  site, so the front page is written once.
- The package's docstrings are reST-flavoured: ``literals`` render as code in Markdown too, and
  Sphinx roles (:class:`~compiler_gym.vector.CompilerVecEnv`) lose the role, keeping the name as
  code (after a ``~``, its last component, as Sphinx shows it); a paragraph that ends in reST's
  ``::`` ends in one colon, since the block after it renders as code anyway.
"""

import re
from pathlib import Path

from mkdocs.structure.files import File

_ROLE = re.compile(
    r":(?:py:)?(?:class|mod|func|meth|attr|data|exc|obj|const):<code>(~?)([^<]*)</code>"
)


def on_files(files, config):
    """Adds README.md as index.md, its links into ``docs/`` (and their text) made site-relative."""
    readme = Path(config["docs_dir"]).parent / "README.md"
    text = readme.read_text(encoding="utf-8").replace("](docs/", "](").replace("[docs/", "[")
    files.append(File.generated(config, "index.md", content=text))
    return files


def _role(match: re.Match) -> str:
    name = match[2].rsplit(".", 1)[-1] if match[1] else match[2]
    return f"<code>{name}</code>"


def on_page_content(html, page, config, files):
    """Sphinx roles in the rendered docstrings become plain code; reST's literal-block marker
    (a paragraph ending ``::``) one colon, and its escaped space (``Foo``\\ s) nothing."""
    html = _ROLE.sub(_role, html)
    html = re.sub(r"::(\s*</p>)", r":\1", html)
    return html.replace("</code>\\ s", "</code>s")
