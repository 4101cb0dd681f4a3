"""A parser of GCC-like command lines (a compiler driver such as ``gcc``, ``cc`` or ``clang``,
or the compiler proper ``cc1``): which words are sources, macro definitions, include
directories and other arguments. It only reads the words; nothing is run.

    >>> GccInvocation.from_cmdline("gcc -DN=1 -Iinc -c a.c -o a.o").sources
    ['a.c']
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from typing import Optional

# Drivers, with an optional target prefix and version suffix: x86_64-linux-gnu-gcc-12.
_DRIVER = re.compile(r"(?:[\w.]+-)*(?:gcc|g\+\+|c\+\+|cc|clang|clang\+\+)(?:-[\d.]+)?")
# The compiler proper: its arguments are read as the driver's, with a few of its own.
_COMPILER_PROPER = {"cc1", "cc1plus", "cc1obj"}

# Options whose value may be the next word (besides -D, -I and -o, kept apart).
_SEPARATE = {
    "-U",
    "-x",
    "-include",
    "-imacros",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-iprefix",
    "-iwithprefix",
    "-isysroot",
    "-MF",
    "-MT",
    "-MQ",
    "-L",
    "-l",
    "-Xlinker",
    "-Xassembler",
    "-Xpreprocessor",
    "-Xclang",
    "-aux-info",
    "--param",
    "-T",
    "-u",
    "-z",
}
# cc1's own: its -MD and -MMD name the dependency file.
_SEPARATE_CC1 = {"-MD", "-MMD", "-dumpbase", "-dumpdir", "-auxbase", "-auxbase-strip"}


def _words(cmdline: str) -> Iterator[str]:
    """The words of ``cmdline``, split at blanks outside quotes; unlike a shell, the quotes
    stay in the word (``-DS="a b"`` is one word, with its quotes), as a compiler's macro
    definition needs them."""
    word: list[str] = []
    quote: Optional[str] = None
    started = False
    for char in cmdline:
        if quote is not None:
            word.append(char)
            if char == quote:
                quote = None
        elif char in " \t\n":
            if started:
                yield "".join(word)
            word, started = [], False
        else:
            word.append(char)
            started = True
            if char in "\"'":
                quote = char
    if started:
        yield "".join(word)


def cmdline_to_argv(cmdline: str) -> list[str]:
    """A command line's words (see :func:`_words`: quotes are kept in their word)."""
    return list(_words(cmdline))


class GccInvocation:
    """One run of a GCC-like program, from its words (``argv``, the program first).

    ``executable`` is ``argv[0]`` and ``progname`` its file name; ``is_driver`` says whether
    it is a compiler driver (``gcc``, ``g++``, ``cc``, ``c++``, ``clang``..., with any target
    prefix or version suffix). For a driver or ``cc1``, ``sources`` are the input files (``-``
    for stdin, object files included), ``defines`` the ``-D`` macros and ``includepaths`` the
    ``-I`` directories (each with or without a space after the flag), ``output`` the ``-o``
    file, and ``otherargs`` every other argument with its value, in order. Another program's
    arguments are all ``otherargs``.
    """

    def __init__(self, argv: Sequence[str]):
        self.argv = list(argv)
        if not self.argv:
            raise ValueError("an invocation has at least its program")
        self.executable = self.argv[0]
        self.progname = os.path.basename(self.executable)
        self.is_driver = bool(_DRIVER.fullmatch(self.progname))
        self.sources: list[str] = []
        self.defines: list[str] = []
        self.includepaths: list[str] = []
        self.otherargs: list[str] = []
        self.output: Optional[str] = None
        if self.is_driver or self.progname in _COMPILER_PROPER:
            self._parse(self.argv[1:])
        else:
            self.otherargs = self.argv[1:]

    def _parse(self, args: Sequence[str]) -> None:
        separate = _SEPARATE if self.is_driver else _SEPARATE | _SEPARATE_CC1
        words = iter(args)
        for word in words:
            for flag, into in (("-D", self.defines), ("-I", self.includepaths)):
                if word.startswith(flag):
                    into.append(word[2:] if len(word) > 2 else next(words, ""))
                    break
            else:
                if word == "-o":
                    self.output = next(words, None)
                elif word.startswith("-o") and len(word) > 2:
                    self.output = word[2:]
                elif word in separate:
                    value = next(words, None)
                    self.otherargs += [word] if value is None else [word, value]
                elif word.startswith("-") and word != "-":
                    self.otherargs.append(word)
                else:
                    self.sources.append(word)

    @classmethod
    def from_cmdline(cls, cmdline: str) -> GccInvocation:
        """The invocation of a command line string (split by :func:`cmdline_to_argv`)."""
        return cls(cmdline_to_argv(cmdline))

    def restrict_to_one_source(self, source: str) -> GccInvocation:
        """The same invocation for ``source`` alone: the program, its macros, its include
        directories and its other arguments, without the output."""
        argv = [self.executable]
        argv += [f"-D{d}" for d in self.defines]
        argv += [f"-I{i}" for i in self.includepaths]
        return GccInvocation([*argv, *self.otherargs, source])

    def __repr__(self) -> str:
        return f"GccInvocation({self.argv!r})"


__all__ = ["GccInvocation", "cmdline_to_argv"]
