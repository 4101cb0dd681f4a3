"""What the command-line tools share: how they parse, name themselves, report mistakes and show
progress.

A tool under ``compiler_gym.bin`` is a function ``main(argv=None) -> int`` wrapped in
:func:`user_errors`, with an :func:`argument_parser` and :func:`parse_args` (the module's name
written out: under ``python -m`` its ``__name__`` is ``__main__``)::

    @user_errors
    def main(argv=None) -> int:
        parser = argument_parser("compiler_gym.bin.mytool", __doc__)
        parser.add_argument("--env", default="llvm-v0", help="environment id (default llvm-v0)")
        args = parse_args(parser, argv)
        ...

``argv`` is taken as absl's ``app.run`` and CompilerGym's tools take it, the program name first
(``main(["argv0", "--env=llvm-v0"])``); a list whose first item is an option is the arguments
alone (``main(["--env", "llvm-v0"])``), and None is the command line. Called the first way, a
tool ends as an absl app's ``main`` does: a status other than 0 is ``SystemExit``.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import textwrap
import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Optional

from compiler_gym.errors import ServiceError
from compiler_gym.util.names import did_you_mean

#: Set by a tool's ``--quiet``: no progress bars in this process (they are off anyway when
#: stderr is not a terminal).
QUIET = False

# Whether the tool's call in this thread gave a program name first (set by parse_args).
_CALL = threading.local()


def _absl_style(
    argv: Optional[Sequence[str]], parser: Optional[argparse.ArgumentParser] = None
) -> bool:
    """Whether ``argv`` starts with a program name (an option never does, nor one of
    ``parser``'s subcommands: ``datasets.main(["list"])`` is the command alone)."""
    if not argv or str(argv[0]).startswith("-"):
        return False
    subcommands = [
        name
        for action in (parser._actions if parser else [])
        if isinstance(action, argparse._SubParsersAction)
        for name in action.choices
    ]
    return str(argv[0]) not in subcommands


def user_errors(
    main: Optional[Callable[..., int]] = None, *, absl: bool = True
) -> Callable[..., int]:
    """Wraps a tool's ``main``: a mistake in its input (an unknown name, a bad value, a file it
    cannot read or write, a missing optional package, a service that failed) is one
    ``error: ...`` line on stderr and exit status 2, not a traceback. With an ``argv`` that
    starts with the program name (absl's convention), a status other than 0 is raised as
    ``SystemExit`` as absl's ``app.run`` would, instead of returned; ``absl=False`` (as
    ``@user_errors(absl=False)``) is for a tool of ours whose first argument is positional,
    which always returns its status."""
    if main is None:
        return functools.partial(user_errors, absl=absl)

    @functools.wraps(main)
    def run(argv: Optional[Sequence[str]] = None, *args, **kwargs) -> int:
        _CALL.absl = None  # parse_args says, knowing the tool's subcommands
        try:
            status = main(argv, *args, **kwargs)
        except (LookupError, ValueError, OSError, ImportError, ServiceError) as e:
            # A KeyError's str() is its repr: say the message itself.
            message = e.args[0] if isinstance(e, KeyError) and e.args else e
            print(f"error: {message}", file=sys.stderr)
            status = 2
        called_as_absl = (
            _CALL.absl if getattr(_CALL, "absl", None) is not None else _absl_style(argv)
        )
        if status and absl and called_as_absl:
            raise SystemExit(status)
        return status

    return run


def program_name(module: str) -> str:
    """How the user ran the tool of ``module`` (``compiler_gym.bin.search``): its console
    script's name (``compiler_gym-search``) when run as one, else ``python -m <module>``."""
    script = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if script.startswith("compiler_gym-"):
        return script
    return f"python -m {module}"


def argument_parser(module: str, doc: str, **kwargs: Any) -> argparse.ArgumentParser:
    """The parser of the tool of ``module``: named as the user ran it (:func:`program_name`),
    with the module's docstring ``doc`` whole as the description (its examples and paragraphs
    as written)."""
    return argparse.ArgumentParser(
        prog=program_name(module),
        description=textwrap.dedent(doc).strip(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        **kwargs,
    )


def program_args(
    argv: Optional[Sequence[str]], parser: Optional[argparse.ArgumentParser] = None
) -> list[str]:
    """The arguments in ``argv`` (see the module's docstring): without the program name when
    it starts with one; the command line's when None."""
    if argv is None:
        return sys.argv[1:]
    return [str(a) for a in (argv[1:] if _absl_style(argv, parser) else argv)]


def parse_args(
    parser: argparse.ArgumentParser,
    argv: Optional[Sequence[str]],
    absl_flags: Iterable[str] = (),
) -> argparse.Namespace:
    """``parser`` on the arguments of ``argv`` (:func:`program_args`). The absl flags named in
    ``absl_flags`` that were set with absl (``flags.FLAGS(["argv0", "--env=llvm-ic-v0"])``, as
    CompilerGym's tests and scripts set them) are the defaults of the options of the same
    name: the command line still wins. Called as an absl main (the program name first), an
    argument the parser does not take is ``absl.app.UsageError``, as in CompilerGym."""
    defaults = {}
    if absl_flags:
        from absl import flags

        if flags.FLAGS.is_parsed():
            for name in absl_flags:
                if name in flags.FLAGS and flags.FLAGS[name].present:
                    defaults[name] = flags.FLAGS[name].value
    if defaults:
        parser.set_defaults(**defaults)
    _CALL.absl = _absl_style(argv, parser)
    if not _CALL.absl:
        return parser.parse_args(program_args(argv, parser))
    # Called as an absl main: what the tool does not take is absl's UsageError, as
    # CompilerGym's mains raise it.
    args, unknown = parser.parse_known_args(program_args(argv, parser))
    if unknown:
        from absl import app

        raise app.UsageError(f"Unknown command line arguments: {unknown}")
    return args


def check_name(kind: str, name: str, known: Iterable[str]) -> str:
    """``name`` when it is one of ``known``, else ``LookupError`` naming the closest (``did you
    mean``), or all of them when none is close: what a tool says of an unknown ``kind``
    (``reward space``, ``observation space``, ``dataset``) before it starts any work."""
    known = list(known)
    if name in known:
        return name
    hint = did_you_mean(name, known) or f"; the {kind}s are {', '.join(known)}"
    raise LookupError(f"Unknown {kind} {name!r}{hint}")


def check_spaces(env, reward: Optional[str] = None, observation: Optional[str] = None) -> None:
    """:func:`check_name` on the ``reward`` and ``observation`` space names a tool was given
    for ``env`` (None: not given)."""
    if reward is not None:
        check_name("reward space", reward, env.reward.spaces)
    if observation is not None:
        check_name("observation space", observation, env.observation.spaces)


def check_dataset(env, name: str):
    """The dataset ``name`` of ``env``, by its name (``generator://csmith-v0``) or its name
    without the scheme (``csmith-v0``, ``builtin-v0``); for an unknown one, ``LookupError``
    with :func:`check_name`'s hint over the names without scheme."""
    try:
        return env.datasets.dataset(name)
    except LookupError:
        by_short_name = {d.name.split("://", 1)[-1]: d for d in env.datasets}
        if "://" not in name and name in by_short_name:
            return by_short_name[name]
        check_name("dataset", name.split("://", 1)[-1], by_short_name)
        raise


def progress(iterable: Optional[Iterable] = None, quiet: bool = False, **kwargs: Any):
    """A tqdm progress bar over ``iterable`` on stderr, shown only on a terminal (tqdm's
    ``disable=None``) and never with ``quiet`` or :data:`QUIET`; ``kwargs`` are tqdm's."""
    from tqdm import tqdm

    return tqdm(iterable, disable=True if quiet or QUIET else None, **kwargs)


def clip(text: Any, width: int) -> str:
    """``text`` on one line of at most ``width`` characters (``...`` marks a cut): a table
    cell that must not widen its table past a terminal."""
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 3].rstrip() + "..."
