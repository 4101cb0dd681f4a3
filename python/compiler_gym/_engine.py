"""The C++ engine as the package's modules reach it: the one module that imports the extension
``compiler_gym._C`` and does its one-time set-up (the data directory below).

Every other module takes the extension from here::

    from compiler_gym._engine import _C

so the set-up has run before any call into the engine, whichever module is imported first, and
the import order of ``compiler_gym/__init__.py`` is no one's concern. Nothing else belongs here;
tests/test_package_structure.py checks that no other module imports ``_C``.
"""

from pathlib import Path

import compiler_gym._C as _C

# Vocabularies and embeddings ship in compiler_gym/data; the engine reads them from there.
_C.set_data_directory(str(Path(__file__).parent / "data"))

__all__ = ["_C"]
