"""The training corpus (compiler_gym.datasets.corpus): the held-out split by dataset or package,
its fixed order, the size filter and the corpus tool."""

from __future__ import annotations

import itertools
import json
import shutil

import pytest

import compiler_gym
from compiler_gym.bin import corpus as corpus_tool
from compiler_gym.datasets import corpus
from compiler_gym.datasets.corpus import HELD_OUT, TRAIN, Group, corpus_uris, group_of
from compiler_gym.datasets.debian_c import LIBRARIES as DEBIAN_LIBRARIES
from compiler_gym.datasets.pypi_c import LIBRARIES
from compiler_gym.envs.llvm_env import llvm_datasets

BUILTIN_FIRST = [
    "benchmark://builtin-v0/adpcm",
    "benchmark://builtin-v0/aes",
    "benchmark://builtin-v0/bitcount",
]


@pytest.fixture(autouse=True)
def own_cache(tmp_path, monkeypatch):
    """A cache of instruction counts for the test alone (the user's stays as it is)."""
    monkeypatch.setattr(
        corpus, "cache_path", lambda *parts: tmp_path.joinpath("cache", *parts), raising=True
    )


def installed(dataset: str) -> bool:
    return llvm_datasets().dataset(dataset).installed


def test_groups_of_one_dataset_are_disjoint_and_each_pypi_library_has_one():
    names = [g.name for g in corpus.GROUPS]
    assert len(names) == len(set(names))
    by_dataset: dict[str, list[Group]] = {}
    for g in corpus.GROUPS:
        assert g.split in (TRAIN, HELD_OUT)
        by_dataset.setdefault(g.dataset, []).append(g)
    for dataset, gs in by_dataset.items():
        # Two groups share a dataset only by package: never by seed or by every k-th.
        if len(gs) > 1:
            assert all(g.package and g.seeds is None and g.every == 1 for g in gs), dataset
            assert len({g.package for g in gs}) == len(gs)
    packages = {g.package for g in by_dataset["benchmark://pypi-c-v0"]}
    assert packages == {lib.name for lib in LIBRARIES}
    debian = {g.package for g in by_dataset["benchmark://debian-c-v0"]}
    assert debian == {lib.name for lib in DEBIAN_LIBRARIES} == {"zlib"}
    # Both sides draw from pypi-c-v0, each library whole on one side.
    assert {g.split for g in by_dataset["benchmark://pypi-c-v0"]} == {TRAIN, HELD_OUT}


def test_builtin_is_held_out_and_never_in_train():
    assert corpus.group("builtin-v0").split == HELD_OUT
    assert not [g for g in corpus.groups(TRAIN) if g.dataset == "benchmark://builtin-v0"]
    train = set(corpus_uris(TRAIN, install=False))
    builtin = list(llvm_datasets().dataset("builtin-v0").benchmark_uris())
    assert len(builtin) == 26 and not train & set(builtin)
    for uri in builtin:
        assert group_of(uri).name == "builtin-v0"
        assert group_of(uri + "?dataset=2").split == HELD_OUT
    with pytest.raises(LookupError, match="'builtin-v0' is in the 'held-out' split, not 'train'"):
        corpus.groups(TRAIN, ["builtin-v0"])


def test_no_program_of_the_held_out_groups_is_in_the_training_list():
    train = list(corpus_uris(TRAIN, install=False))
    held_out = list(corpus_uris(HELD_OUT, install=False))
    assert len(train) == len(set(train)) and len(held_out) == len(set(held_out))
    assert not set(train) & set(held_out)
    assert len(train) >= 12000  # csmith-v0's and llvm-stress-v0's seeds alone
    assert set(BUILTIN_FIRST) <= set(held_out)
    train_groups = corpus.groups(TRAIN)
    for uri in held_out:
        assert group_of(uri).split == HELD_OUT, uri
        assert not [g.name for g in train_groups if g.contains(uri)], uri
    held_out_groups = corpus.groups(HELD_OUT)
    for uri in train:
        assert group_of(uri).split == TRAIN, uri
        assert not [g.name for g in held_out_groups if g.contains(uri)], uri
    if installed("pypi-c-v0"):
        libraries = {uri.split("/")[3] for uri in held_out if "pypi-c-v0" in uri}
        assert libraries == {"cmark-gfm", "zopfli", "sqlite"}
        assert not [u for u in train if u.split("/")[3:4] in (["cmark-gfm"], ["zopfli"])]


def test_group_of_each_group_names_it_and_its_split():
    cases = {
        "generator://csmith-v0/0": "csmith-v0",
        "generator://csmith-v0/9999": "csmith-v0",
        "generator://llvm-stress-v0/1999": "llvm-stress-v0",
        "benchmark://gcc-torture-v0/20000112-1": "gcc-torture-v0",
        "benchmark://pypi-c-v0/sqlite": "pypi-c-v0/sqlite",
        "benchmark://pypi-c-v0/zopfli/zopfli/src/zopfli/deflate": "pypi-c-v0/zopfli",
        "benchmark://pypi-c-v0/cmark-gfm": "pypi-c-v0/cmark-gfm",
        "benchmark://pypi-c-v0/zstd": "pypi-c-v0/zstd",
        "benchmark://pypi-c-v0/lz4/lz4libs/lz4": "pypi-c-v0/lz4",
        "benchmark://builtin-v0/qsort": "builtin-v0",
        "builtin-v0/crc32": "builtin-v0",  # without the scheme, as URIs are written
    }
    for uri, name in cases.items():
        assert group_of(uri).name == name, uri
    assert {corpus.group(n).split for n in cases.values()} == {TRAIN, HELD_OUT}
    # Each group has a URI that group_of gives back to it, and no other group contains.
    for g in corpus.GROUPS:
        uri = f"{g.dataset}/{g.seeds.start}" if g.seeds else f"{g.dataset}/{g.package or 'x'}"
        assert group_of(uri) == g
        assert [h.name for h in corpus.GROUPS if h.contains(uri)] == [g.name]


def test_uris_outside_the_corpus_and_unknown_names_are_lookup_errors():
    with pytest.raises(LookupError, match=r"in no corpus group of generator://csmith-v0"):
        group_of("generator://csmith-v0/10000")  # past the group's seeds
    with pytest.raises(LookupError, match=r"benchmark://cbench-v1 is not in the corpus"):
        group_of("benchmark://cbench-v1/qsort")  # CompilerGym's: neither side
    with pytest.raises(
        LookupError, match=r"not in the corpus; did you mean 'benchmark://builtin-v0' or "
    ):
        group_of("benchmark://builtin-v1/qsort")
    with pytest.raises(LookupError, match=r"in no corpus group of benchmark://pypi-c-v0"):
        group_of("benchmark://pypi-c-v0/sqlite3")  # not the sqlite package
    with pytest.raises(LookupError, match=r"^Unknown split 'trian'; did you mean 'train'\?$"):
        corpus_uris("trian")  # at the call, not at the first URI
    with pytest.raises(LookupError, match=r"^Unknown split 'heldout'; did you mean 'held-out'\?$"):
        corpus.groups("heldout")
    with pytest.raises(LookupError, match=r"did you mean 'gcc-torture-v0'\?$"):
        corpus_uris(TRAIN, group_names=["gcc-tortur"])
    with pytest.raises(
        LookupError, match=r"^Unknown corpus group 'foo'; the groups are csmith-v0, "
    ):
        corpus.group("foo")


def test_the_enumeration_order_is_fixed():
    assert list(itertools.islice(corpus_uris(TRAIN), 3)) == [
        "generator://csmith-v0/0",
        "generator://csmith-v0/1",
        "generator://csmith-v0/2",
    ]
    stress = list(corpus_uris(TRAIN, group_names=["llvm-stress-v0"]))
    assert stress[:2] == ["generator://llvm-stress-v0/0", "generator://llvm-stress-v0/1"]
    assert stress[-1] == "generator://llvm-stress-v0/1999" and len(stress) == 2000
    assert list(corpus_uris(HELD_OUT, group_names=["builtin-v0"]))[:3] == BUILTIN_FIRST
    if installed("gcc-torture-v0"):
        assert list(itertools.islice(corpus_uris(TRAIN, group_names=["gcc-torture-v0"]), 3)) == [
            "benchmark://gcc-torture-v0/20000112-1",
            "benchmark://gcc-torture-v0/20000113-1",
            "benchmark://gcc-torture-v0/20000121-1",
        ]
    if installed("pypi-c-v0"):
        assert list(corpus_uris(HELD_OUT, group_names=["pypi-c-v0/zopfli"]))[:2] == [
            "benchmark://pypi-c-v0/zopfli",
            "benchmark://pypi-c-v0/zopfli/zopfli/src/zopfli/blocksplitter",
        ]
        first = next(corpus_uris(HELD_OUT))
        assert first == "benchmark://pypi-c-v0/cmark-gfm"
    assert corpus.sample(list(range(10)), 3) == [0, 3, 6]
    assert corpus.sample(list(range(4)), 10) == [0, 1, 2, 3]


def test_the_list_command_prints_a_split_one_uri_a_line(capsys):
    assert corpus_tool.main(["list", "--split", "held-out", "--group", "builtin-v0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:3] == BUILTIN_FIRST and len(lines) == 26
    assert lines == list(llvm_datasets().dataset("builtin-v0").benchmark_uris())
    assert corpus_tool.main(["list", "--split", "train", "--group", "llvm-stress-v0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "generator://llvm-stress-v0/0" and len(lines) == 2000
    assert corpus_tool.main(["list", "--split", "trian"]) == 2
    assert capsys.readouterr().err == "error: Unknown split 'trian'; did you mean 'train'?\n"
    assert corpus_tool.main(["list", "--split", "train", "--group", "builtin-v0"]) == 2
    assert "is in the 'held-out' split, not 'train'" in capsys.readouterr().err
    assert corpus_tool.main(["groups"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0].split()[:4] == ["group", "split", "dataset", "programs"]
    assert rows[2].split()[:5] == ["csmith-v0", "train", "generator://csmith-v0", "seeds", "0-9999"]


@pytest.fixture
def tiny_groups(monkeypatch):
    """Three llvm-stress-v0 seeds as a training group of their own: quick to load."""
    if shutil.which("llvm-stress-19") is None:
        pytest.skip("llvm-stress-19 is not installed")
    tiny = Group("tiny", "generator://llvm-stress-v0", TRAIN, seeds=range(3))
    monkeypatch.setattr(corpus, "GROUPS", (tiny, *corpus.GROUPS))
    return tiny


def counts_by_env(uris: list[str]) -> dict[str, int]:
    with compiler_gym.make("llvm-v0") as env:
        counts = {}
        for uri in uris:
            env.reset(benchmark=uri)
            counts[uri] = int(env.observation["IrInstructionCount"])
        return counts


class Refuses:
    """An env that must not be used: the counts are in the cache."""

    def reset(self, **kwargs):
        raise AssertionError("loaded a program whose count is cached")


def test_the_size_filter_keeps_the_programs_of_that_size_and_caches_counts(tiny_groups, capsys):
    uris = [f"generator://llvm-stress-v0/{s}" for s in range(3)]
    counts = counts_by_env(uris)
    smallest = min(counts.values())
    expected = [u for u in uris if counts[u] <= smallest]
    assert 0 < len(expected) < 3
    assert list(corpus_uris(TRAIN, max_instructions=smallest, group_names=["tiny"])) == expected
    # A second call reads the counts from the cache: no program is loaded again.
    again = corpus_uris(TRAIN, max_instructions=smallest, group_names=["tiny"], env=Refuses())
    assert list(again) == expected
    larger = corpus_uris(TRAIN, min_instructions=smallest + 1, group_names=["tiny"], env=Refuses())
    assert list(larger) == [u for u in uris if counts[u] > smallest]
    assert corpus_tool.main(["list", "--split", "train", "--group", "tiny"] +
                            ["--max-instructions", str(smallest), "--quiet"]) == 0  # fmt: skip
    assert capsys.readouterr().out.splitlines() == expected


def test_stats_measures_every_program_or_a_sample(tiny_groups, tmp_path, capsys):
    counts = counts_by_env([f"generator://llvm-stress-v0/{s}" for s in range(3)])
    with corpus.InstructionCounter() as counter:
        whole = corpus.group_stats(tiny_groups, counter)
        part = corpus.group_stats(tiny_groups, counter, at_most=2)
    assert (whole["programs"], whole["measured"], whole["loaded"]) == (3, 3, 3)
    assert whole["instructions"] == whole["estimated_instructions"] == sum(counts.values())
    assert (part["programs"], part["measured"], part["loaded"]) == (3, 2, 2)
    first_two = counts["generator://llvm-stress-v0/0"] + counts["generator://llvm-stress-v0/1"]
    assert part["instructions"] == first_two
    assert part["estimated_instructions"] == round(first_two * 3 / 2)
    assert whole["errors"] == {} and whole["rule"] == "seeds 0-2"
    ordered = sorted(counts.values())
    assert (whole["median_instructions"], whole["max_instructions"]) == (ordered[1], ordered[2])

    out = tmp_path / "stats.json"
    assert corpus_tool.main(["stats", "--group", "tiny", "--json", str(out), "--quiet"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[2].split()[:6] == ["tiny", "train", "3", "3", "3", str(sum(counts.values()))]
    report = json.loads(out.read_text())
    assert [g["group"] for g in report["groups"]] == ["tiny"]
    assert report["groups"][0]["instructions"] == sum(counts.values())
