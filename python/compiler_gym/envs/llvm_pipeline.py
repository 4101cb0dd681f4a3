"""LLVM's ``PassesParameterized`` action space: new-pass-manager pipeline elements written as
one ``opt -passes=...`` command line, and the pipeline actions an env adds to it."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable
from collections.abc import Sequence as SequenceOf
from typing import Optional

from compiler_gym.spaces import Commandline
from compiler_gym.util.names import did_you_mean


class PassPipeline(Commandline):
    """A :class:`Commandline` whose actions are new-pass-manager pipeline elements (LLVM's
    ``PassesParameterized``: ``gvn<no-pre>``, ``loop-unroll<O3>``, ``default<Oz>``), written
    as one ``opt -passes=...`` pipeline of their module-level texts.

    >>> space.to_string([space["sroa"], space["gvn<no-pre>"]])
    "opt '-passes=function(sroa),function(gvn<no-pre>)' input.bc -o output.bc"

    Beyond the table's ``n`` actions, an env's space takes pipeline actions: a pipeline of the
    table's passes (``space["function(sroa,early-cse<memssa>)"]``) becomes action ``n + i``
    of that env, kept by the engine (``pipeline_actions``) and copied to its forks; a
    pipeline the engine refuses is a ``ValueError`` naming the bad part."""

    def __init__(
        self,
        name: str,
        names: SequenceOf[str],
        pipelines: SequenceOf[str],
        pipeline_actions: Optional[Callable[[Optional[str]], list[str]]] = None,
    ):
        super().__init__(name, names, prefix="opt", suffix="input.bc -o output.bc")
        self.pipelines: list[str] = list(pipelines)
        self._pipeline_index = {p: i for i, p in reversed(list(enumerate(self.pipelines)))}
        # The env's pipeline actions; with an argument, adds it first (None: no env).
        self._pipeline_actions = pipeline_actions

    def __getstate__(self) -> dict:
        # A pickled space (in saved policies' settings, say) is the table alone: not its env.
        return {**self.__dict__, "_pipeline_actions": None}

    @property
    def pipeline_actions(self) -> list[str]:
        """The pipeline actions of this space's env, in order (action ``n + i`` is the i-th)."""
        return self._pipeline_actions(None) if self._pipeline_actions else []

    def __getitem__(self, name: str) -> int:
        """The index of an action by its name, its module-level pipeline text, or, for a
        pipeline of several passes or options the table does not have (``(``, ``,`` or ``<``
        in it), the pipeline action it becomes in this env."""
        index = self._pipeline_index.get(name, self._name_index.get(name))
        if index is not None:
            return index
        extra = self.pipeline_actions
        if name in extra:
            return self.n + extra.index(name)
        if self._pipeline_actions is None or not any(c in name for c in "(,<"):
            return super().__getitem__(name)  # LookupError naming the closest
        return self.n + self._pipeline_actions(name).index(name)

    def derived(self, name: str, flags: SequenceOf[str]) -> PassPipeline:
        """A space of other actions (names of this one's) with the same command."""
        return PassPipeline(name, flags, [self.pipelines[self[f]] for f in flags])

    def pipeline(self, actions: Iterable[int]) -> str:
        """The ``-passes=`` pipeline that applies ``actions`` in order (``""``: none)."""
        texts = self.pipelines + self.pipeline_actions
        return ",".join(texts[int(a)] for a in actions)

    def to_string(self, actions: Iterable[int]) -> str:
        """The ``opt -passes=...`` command line that applies ``actions`` in order."""
        return f"opt {shlex.quote('-passes=' + self.pipeline(actions))} {self._suffix}"

    def from_string(self, commandline: str) -> list[int]:
        """The actions of a command line made by :meth:`to_string`: its ``-passes=``
        pipeline split at the top level, each element an action's module-level pipeline
        text, its name, or (in an env's space) a pipeline action. ``ValueError`` names an
        element that is none of them, or a pipeline that does not parse."""
        tokens = shlex.split(commandline)
        passes = [t for t in tokens if t.startswith("-passes=")]
        if not tokens or tokens[0] != "opt" or len(passes) != 1:
            raise ValueError(f"Not an `opt -passes=...` command line: {commandline!r}")
        pipeline = passes[0][len("-passes=") :]
        return [self._element_index(e) for e in split_pipeline(pipeline)] if pipeline else []

    def _element_index(self, element: str) -> int:
        try:
            return self[element]
        except LookupError:
            hint = did_you_mean(element, self.flags)
            raise ValueError(f"Unknown pipeline element {element!r} in {self.name}{hint}") from None


def split_pipeline(text: str) -> list[str]:
    """The top-level elements of a pass pipeline: ``"function(a,b<x;y>),c"`` gives
    ``["function(a,b<x;y>)", "c"]``. ``ValueError`` names an unbalanced or empty part."""
    elements, depth, start = [], 0, 0
    for i, c in enumerate(text + ","):
        if c in "(<":
            depth += 1
        elif c in ")>":
            depth -= 1
            if depth < 0:
                raise ValueError(f"Unbalanced {c!r} at {i} in pipeline {text!r}")
        elif c == "," and depth == 0:
            element = text[start:i].strip()
            if not element:
                raise ValueError(f"Empty element at {start} in pipeline {text!r}")
            elements.append(element)
            start = i + 1
    if depth:
        raise ValueError(f"Unclosed bracket in pipeline {text!r}")
    return elements
