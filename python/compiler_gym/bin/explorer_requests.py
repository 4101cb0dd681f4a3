"""What an explorer request names, parsed and bounded before any env sees it: actions (by
index or flag), benchmark URIs (datasets' schemes only, so no request reads a local file),
a command line or state CSV row pasted to replay (its pipeline's passes included), and the
answers built from text alone (IR diffs, share links). Its refusals are
:class:`ExplorerError` (an HTTP status and a message). Used by
:mod:`compiler_gym.bin.explorer` and its sessions."""

from __future__ import annotations

import difflib
import io
import logging
import math
import re
import shlex
from collections.abc import Collection, Sequence
from typing import Any, Optional
from urllib.parse import quote, unquote

from compiler_gym.datasets import BenchmarkUri
from compiler_gym.util.names import did_you_mean

logger = logging.getLogger(__name__)

# The URI schemes of datasets' benchmarks. Anything else (file://, a path) would let a client
# read this machine's files through the IR or a parse error.
BENCHMARK_SCHEMES = frozenset({"benchmark", "generator"})

# A diff reads both texts whole and difflib is superlinear on texts that differ much (3.3 s
# for two 64,000-line modules, most lines changed): a longer text is refused (413).
MAX_DIFF_LINES = 100_000

# The actions of one pasted command line at most (``repeat<N>`` multiplies them): a session's
# tree holds 5,000 states.
MAX_COMMANDLINE_ACTIONS = 5000

# The adaptors a pasted ``-passes`` pipeline may nest (``function(loop(...))``): LLVM's own
# nest three or four; 900 used to exhaust Python's recursion (a 500 and two 3,000-line
# tracebacks in the log per request). The parser keeps its own stack, so this bounds work, not
# the interpreter's stack.
MAX_PIPELINE_DEPTH = 400


class ExplorerError(Exception):
    """A request the explorer refuses: an HTTP status (4xx for bad input), a message, and any
    headers to answer with (``Retry-After`` of a 503)."""

    def __init__(self, status: int, message: str, headers: Optional[dict[str, str]] = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.headers = headers or {}


# What a benchmark that names no dataset is told.
_NOT_A_URI = "not a benchmark URI: name one of the env's datasets' (benchmark://DATASET/NAME)"


def parse_actions(text: str, flags: list[str], limit: int) -> list[int]:
    """The actions of a URL segment: comma-separated indices or flags (``-mem2reg`` or
    ``mem2reg``), ``-`` or nothing for none. Raises :class:`ExplorerError` (400, or 413 past
    ``limit`` actions)."""
    text = unquote(text).strip()
    if text in ("", "-"):
        return []
    tokens = text.split(",")
    if len(tokens) > limit:
        raise ExplorerError(413, f"{len(tokens)} actions in one request; at most {limit}")
    index = None  # flags by name, made when a token is not a number
    actions = []
    for token in tokens:
        token = token.strip()
        try:
            value = int(token)
        except ValueError:
            value = None
        if value is not None:
            if not 0 <= value < len(flags):
                raise ExplorerError(
                    400, f"Out-of-range action: action {value} is out of range [0, {len(flags)})"
                )
            actions.append(value)
            continue
        if index is None:
            index = {f.lstrip("-"): i for i, f in enumerate(flags)}
            index.update({f: i for i, f in enumerate(flags)})
        if token in index:
            actions.append(index[token])
        else:
            raise ExplorerError(400, f"{token!r} is neither an action index nor a flag")
    return actions


def parse_benchmark_uri(text: str, datasets: Collection[str]) -> BenchmarkUri:
    """The parsed URI of a benchmark the explorer serves: a ``benchmark://`` or
    ``generator://`` URI (or CompilerGym's ``dataset/name`` shorthand) of one of ``datasets``
    (their canonical ``scheme://name``). Refuses anything else with :class:`ExplorerError`:
    400 for what is no such URI (a file, a path, control characters, ``..``), 404 for a dataset
    that is not the env's. Every check is on the parsed URI, the one the benchmark is then
    made from, so no spelling of a scheme (case, spaces, encodings) gets past it."""
    if not text:
        raise ExplorerError(400, "no benchmark given")
    # Whitespace and control characters (NUL above all) are in no benchmark's name; refused
    # before parsing, which would strip some and keep others.
    if any(c.isspace() or not c.isprintable() for c in text):
        raise ExplorerError(400, "a benchmark URI has no spaces or control characters")
    try:
        uri = BenchmarkUri.from_string(text)
    except ValueError:
        raise ExplorerError(400, _NOT_A_URI) from None
    if uri.scheme not in BENCHMARK_SCHEMES:
        # urlparse has lowercased the scheme; only its characters ([a-z0-9+.-]) are echoed.
        raise ExplorerError(
            400,
            f"{uri.scheme}:// benchmarks are not served; name one of the env's datasets' "
            "(benchmark:// or generator://)",
        )
    if not uri.dataset:  # a path alone ("/etc/passwd") names no dataset
        raise ExplorerError(400, _NOT_A_URI)
    if uri.dataset_uri not in datasets:
        raise ExplorerError(404, f"Dataset not found: {uri.dataset_uri}")
    # Datasets find benchmarks by name, never by joining paths; these are refused anyway so
    # that no dataset written later can be walked out of.
    if "\\" in uri.path or any(part in (".", "..") for part in uri.path.split("/")):
        raise ExplorerError(400, "a benchmark's name has no '.' or '..' parts or backslashes")
    return uri


def install_command(env_id: str, dataset: str) -> str:
    """The command line that installs ``dataset`` of ``env_id``'s family."""
    env = "" if env_id == "llvm-v0" else f" --env {env_id}"
    return f"python3 -m compiler_gym.bin.datasets{env} install {dataset}"


def require_installed(dataset: Any, env_id: str) -> None:
    """Refuses (409) a benchmark of a dataset that is not installed: loading one would install
    it (downloads, or minutes of building) under a lock that other requests would wait on.
    Generators make each benchmark on demand and install nothing: they pass."""
    if not dataset.installed and not dataset.infinite:
        raise ExplorerError(
            409,
            f"{dataset.name} is not installed on the server; install it with "
            f"`{install_command(env_id, dataset.name)}`, then start again",
        )


def _finite(value: float) -> Optional[float]:
    """JSON has no NaN or infinity: such a reward is sent as null."""
    return value if math.isfinite(value) else None


def share_fragment(benchmark: str, reward: str, flags: Sequence[str]) -> str:
    """The page's URL fragment that opens a state: ``#benchmark=URI&reward=NAME&actions=F,F``
    (percent-encoded as ``URLSearchParams`` reads it; the actions by flag, comma-separated).
    The page starts a session from it, so a state is shared by its link."""

    def encode(value: str) -> str:
        return quote(value, safe=":/")

    actions = ",".join(encode(f) for f in flags)
    return f"#benchmark={encode(benchmark)}&reward={encode(reward)}&actions={actions}"


def text_diff(before: str, after: str, from_label: str, to_label: str, context: int) -> dict:
    """A unified diff of two states' texts, line by line, with ``context`` lines around each
    change: ``{"diff": text, "added": lines, "removed": lines}`` (an empty diff when the texts
    are the same). Texts of more than :data:`MAX_DIFF_LINES` lines are refused (413)."""
    old, new = before.splitlines(), after.splitlines()
    longest = max(len(old), len(new))
    if longest > MAX_DIFF_LINES:
        raise ExplorerError(
            413, f"a text of {longest} lines is too long to diff here (at most {MAX_DIFF_LINES})"
        )
    lines = list(difflib.unified_diff(old, new, from_label, to_label, n=context, lineterm=""))
    added = sum(1 for line in lines[2:] if line.startswith("+"))
    removed = sum(1 for line in lines[2:] if line.startswith("-"))
    return {"diff": "\n".join(lines), "added": added, "removed": removed}


class CommandlineParser:
    """Reads the actions of a command line pasted to replay, without running or opening
    anything it names:

    - the env's own form (``env.commandline()``, a state CSV's ``commandline`` column:
      ``opt -mem2reg -gvn input.bc -o output.bc``), or its flags alone (``-mem2reg -gvn``,
      ``mem2reg`` too);
    - for LLVM, ``opt``'s pass pipelines: ``-passes='function(mem2reg),instcombine'``, each
      pass the action that runs it (by its pipeline, ``function(loop(guard-widening))``, by
      its text, ``early-cse<memssa>``, or by its LLVM name, ``instcombine``: the action with the
      fewest adaptors when several run it); ``repeat<N>(...)`` repeats;
    - a state CSV row (``benchmark,reward,walltime,commandline``, with its header or not),
      whose benchmark comes with the actions.

    The program (``opt``, ``opt-19``, a path to one), ``-o FILE``, ``-S`` and file names
    (a token with a dot and no leading dash) are ignored and said so; a response file
    (``@FILE``) is refused, not read; anything else that is not an action is an error (400)
    that names the closest actions. A pipeline nested more than ``max_pipeline_depth``
    adaptors deep is refused (413).

    >>> CommandlineParser.of_env(env).parse("opt -passes=mem2reg,gvn in.bc -o out.bc")
    {'benchmark': None, 'actions': [..., ...], 'ignored': ['opt', 'in.bc', '-o', 'out.bc']}
    """

    PROGRAMS = re.compile(r"(opt|clang|clang\+\+|gcc|g\+\+|cc)(-[0-9][0-9.]*)?")
    OUTPUT_OPTIONS = frozenset({"-S", "--S", "-disable-output", "--disable-output"})

    def __init__(
        self,
        flags: Sequence[str],
        program: Optional[str] = None,
        suffix: Sequence[str] = (),
        pipelines: Optional[Sequence[tuple[str, str, str]]] = None,
        max_pipeline_depth: int = MAX_PIPELINE_DEPTH,
    ):
        self.flags = list(flags)
        self.max_pipeline_depth = max_pipeline_depth
        self.program = program
        self.suffix = list(suffix)
        self._index: dict[str, int] = {}
        for i, f in enumerate(self.flags):
            self._index.setdefault(f, i)
        for i, f in enumerate(self.flags):
            self._index.setdefault(f.lstrip("-"), i)
        # Of the pass table (flag, pipeline, LLVM's pass name), the rows of this env's flags,
        # fewest adaptors first: by whole pipeline, by innermost pass text, by pass name.
        self._by_pipeline: dict[str, int] = {}
        self._by_text: dict[str, int] = {}
        self._by_name: dict[str, int] = {}
        rows = sorted(pipelines or (), key=lambda row: len(row[1]))
        for flag, pipeline, name in rows:
            if flag not in self._index:
                continue
            action = self._index[flag]
            self._by_pipeline.setdefault(pipeline, action)
            self._by_text.setdefault(_innermost(pipeline), action)
            self._by_name.setdefault(name, action)

    @classmethod
    def of_env(cls, env: Any, max_pipeline_depth: int = MAX_PIPELINE_DEPTH) -> CommandlineParser:
        """The parser of an env's action space (LLVM's pass table for ``-passes``)."""
        space = env.action_space
        flags = list(space.flags)
        program, suffix = None, []
        if flags and hasattr(space, "to_string"):
            tokens = shlex.split(space.to_string([0]))
            at = tokens.index(flags[0])
            program = tokens[0] if at > 0 else None
            suffix = tokens[at + 1 :]
        pipelines = None
        if getattr(env.unwrapped, "family", None) == "llvm":
            from compiler_gym.envs.llvm_env import pass_table

            pipelines = pass_table()
        return cls(flags, program, suffix, pipelines, max_pipeline_depth)

    def parse(self, text: str) -> dict:
        """``{"benchmark": URI or None, "actions": [index], "ignored": [token]}``; raises
        :class:`ExplorerError` (400, or 413 past :data:`MAX_COMMANDLINE_ACTIONS`)."""
        text = text.strip()
        if not text:
            raise ExplorerError(400, "no command line given")
        benchmark = None
        first = text.split("\n", 1)[0].strip().lower()
        if "://" in first.split(",", 1)[0] or first.replace(" ", "").startswith("benchmark,"):
            benchmark, text = self._state_row(text)
        try:
            tokens = shlex.split(text)
        except ValueError as e:
            raise ExplorerError(400, f"cannot split the command line: {e}") from None
        if self.suffix and tokens[-len(self.suffix) :] == self.suffix:
            ignored_suffix, tokens = tokens[-len(self.suffix) :], tokens[: -len(self.suffix)]
        else:
            ignored_suffix = []
        ignored: list[str] = []
        if tokens and self._is_program(tokens[0]):
            ignored.append(tokens.pop(0))
        actions: list[int] = []
        at = 0
        while at < len(tokens):
            token = tokens[at]
            at += 1
            pipeline = None
            for option in ("-passes=", "--passes="):
                if self._by_pipeline and token.startswith(option):
                    pipeline = token[len(option) :]
            if self._by_pipeline and token in ("-passes", "--passes"):
                if at == len(tokens):
                    raise ExplorerError(400, f"{token} without its pipeline")
                pipeline, at = tokens[at], at + 1
            if pipeline is not None:
                actions.extend(self._pipeline(pipeline))
            elif token in self._index:
                actions.append(self._index[token])
            elif token.startswith("@"):
                raise ExplorerError(
                    400, f"{token!r} names a response file, which is not read: paste its flags"
                )
            elif token in ("-o", "--o"):
                ignored.extend(tokens[at - 1 : at + 1])
                at += 1
            elif token in self.OUTPUT_OPTIONS or (not token.startswith("-") and "." in token):
                ignored.append(token)
            else:
                hint = did_you_mean(token, self.flags)
                raise ExplorerError(400, f"{token!r} is not an action{hint}")
            if len(actions) > MAX_COMMANDLINE_ACTIONS:
                raise ExplorerError(
                    413, f"more than {MAX_COMMANDLINE_ACTIONS} actions in one command line"
                )
        return {"benchmark": benchmark, "actions": actions, "ignored": ignored + ignored_suffix}

    def _is_program(self, token: str) -> bool:
        # A path's last part: nothing of it is read.
        name = token.replace("\\", "/").rsplit("/", 1)[-1]
        return name == self.program or bool(self.PROGRAMS.fullmatch(name))

    @staticmethod
    def _state_row(text: str) -> tuple[str, str]:
        from compiler_gym.compiler_env_state import CompilerEnvStateReader

        try:
            states = list(CompilerEnvStateReader(io.StringIO(text)))
        except ValueError as e:
            raise ExplorerError(400, f"not a state CSV row: {e}") from None
        if len(states) != 1:
            raise ExplorerError(400, f"{len(states)} states in the CSV; paste one")
        return states[0].benchmark, states[0].commandline

    def _pipeline(self, text: str) -> list[int]:
        actions = []
        for path in _pipeline_leaves(text, self.max_pipeline_depth):
            pipeline = ""
            for part in reversed(path):
                pipeline = f"{part}({pipeline})" if pipeline else part
            leaf = path[-1]
            action = self._by_pipeline.get(pipeline, self._by_text.get(leaf))
            if action is None and "<" not in leaf:
                action = self._by_name.get(leaf)
            if action is None:
                known = list(self._by_text) + list(self._by_name)
                hint = did_you_mean(leaf, known)
                raise ExplorerError(400, f"pass {leaf!r} of -passes is not an action{hint}")
            actions.append(action)
            if len(actions) > MAX_COMMANDLINE_ACTIONS:
                raise ExplorerError(
                    413, f"more than {MAX_COMMANDLINE_ACTIONS} actions in one command line"
                )
        return actions


def _innermost(pipeline: str) -> str:
    """The pass a one-pass pipeline runs: ``function(loop-mssa(licm))`` is ``licm``."""
    leaves = _pipeline_leaves(pipeline)
    return leaves[0][-1] if len(leaves) == 1 else pipeline


_PASS_NAME = re.compile(r"[A-Za-z0-9_.:-]+")


def _pipeline_leaves(text: str, max_depth: int = MAX_PIPELINE_DEPTH) -> list[tuple[str, ...]]:
    """The passes of an ``opt -passes`` pipeline in order, each as the path of its adaptors
    and itself (``function(loop(a,b)),c`` is ``(function, loop, a)``, ``(function, loop, b)``,
    ``(c,)``), parameters kept (``early-cse<memssa>``); ``repeat<N>(...)`` repeated N times
    (out of the path). A malformed pipeline raises :class:`ExplorerError` (400), one nested more
    than ``max_depth`` adaptors deep 413 (with one line in the log). Parsed with a stack of its
    own, not recursion, so no nesting reaches Python's recursion limit."""
    at = 0
    text = re.sub(r"\s+", "", text)

    def fail(what: str):
        raise ExplorerError(400, f"malformed -passes pipeline at character {at}: {what}")

    def name() -> str:
        nonlocal at
        match = _PASS_NAME.match(text, at)
        if match is None:
            fail("expected a pass name")
        at = match.end()
        found = match.group()
        if at < len(text) and text[at] == "<":
            depth, start = 0, at
            while at < len(text):
                depth += {"<": 1, ">": -1}.get(text[at], 0)
                at += 1
                if depth == 0:
                    break
            if depth:
                fail("unclosed '<'")
            found += text[start:at]
        return found

    # The adaptors open around the element being read: each with where its leaves start, and
    # its count when it is a repeat<N> (out of the leaves' paths); ``path`` the others' names.
    open_adaptors: list[tuple[int, Optional[int]]] = []
    path: list[str] = []
    leaves: list[tuple[str, ...]] = []
    while True:
        element = name()
        if at < len(text) and text[at] == "(":
            if len(open_adaptors) >= max_depth:
                logger.warning(
                    "refused a -passes pipeline nested more than %d deep (%d characters)",
                    max_depth,
                    len(text),
                )
                raise ExplorerError(
                    413,
                    f"the -passes pipeline nests more than {max_depth} adaptors deep at "
                    f"character {at}; this server reads at most {max_depth} "
                    "(--max-pipeline-depth)",
                )
            at += 1
            repeat = re.fullmatch(r"repeat<([0-9]+)>", element)
            open_adaptors.append((len(leaves), int(repeat.group(1)) if repeat else None))
            if not repeat:
                path.append(element)
            continue
        leaves.append((*path, element))
        # Close the adaptors that end here; then a ',' starts the next element.
        while at < len(text) and text[at] == ")" and open_adaptors:
            at += 1
            first, count = open_adaptors.pop()
            if count is None:
                path.pop()
                continue
            inner = leaves[first:]
            if count * len(inner) > MAX_COMMANDLINE_ACTIONS:
                raise ExplorerError(
                    413, f"more than {MAX_COMMANDLINE_ACTIONS} actions in one command line"
                )
            leaves[first:] = inner * count
        if at < len(text) and text[at] == ",":
            at += 1
            continue
        if open_adaptors:
            fail("expected ')'")
        if at != len(text):
            fail(f"unexpected {text[at]!r}")
        return leaves
