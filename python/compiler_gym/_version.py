"""The package's version, in a module of its own so that any module can read it without an
import through ``compiler_gym/__init__.py`` (which re-exports it as ``compiler_gym.__version__``).
Keep it equal to ``version`` in pyproject.toml."""

__version__ = "0.3.0.dev0"
