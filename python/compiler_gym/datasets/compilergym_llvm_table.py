"""The facts of CompilerGym's LLVM datasets, as data: one :class:`Definition` row per
dataset (the archives CompilerGym publishes, their URLs and sha256 sums, for Linux; the folder
of an archive that holds the benchmarks; the kind of file a benchmark is; the class that reads
it, by name) and cBench's command lines over its runtime data. The classes that install and
read them are in :mod:`compiler_gym.datasets.compilergym_llvm`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from compiler_gym.util.download import url_filename

_FB = "https://dl.fbaipublicfiles.com/compiler_gym/"


@dataclass(frozen=True)
class Archive:
    """A file CompilerGym publishes: the URLs it is fetched from, in order, and its sha256."""

    urls: tuple[str, ...]
    sha256: str

    @property
    def filename(self) -> str:
        """Its name in a mirror and in a dataset's folder: the end of its first URL."""
        return url_filename(self.urls[0])


def _fb(filename: str, sha256: str) -> Archive:
    return Archive((_FB + filename,), sha256)


@dataclass(frozen=True)
class Definition:
    """One of CompilerGym's LLVM datasets: its archive (``strip_prefix`` is the folder in it
    that holds the benchmarks), the manifest of benchmark names (or, without one, the fixed
    ``benchmarks``), the suffix of a benchmark's file, and the class that reads it."""

    name: str
    description: str
    license: str
    archive: Archive
    strip_prefix: str
    manifest: Optional[Archive]
    kind: str  # the name of the class in compilergym_llvm that reads it
    suffix: str = ".bc"
    references: tuple[tuple[str, str], ...] = ()
    deprecated: str = ""
    sort_order: int = 0
    validatable: str = "No"
    benchmarks: tuple[str, ...] = ()
    extras: tuple[Archive, ...] = field(default=())  # more files the dataset needs


# -------------------------------------------------------------------------------------------
# cBench: CompilerGym's command lines, per program, over its runtime data ($D). A command with
# {i} is one input set per i in 1..20 (?dataset=0 is i=1); the others are one set each.

CBENCH_RUNTIME_DATA = _fb(
    "cBench-v0-runtime-data.tar.bz2",
    "a1b5b5d6b115e5809ccaefc2134434494271d184da67e2ee43d7f84d07329055",
)
CBENCH_INPUT_SETS = 20

# name: (command lines, link options)
CBENCH_RUNS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "bitcount": (("1125000", "512"), ()),
    "blowfish": (("d $D/office_data/{i}.benc output.txt 1234567890abcdeffedcba0987654321",), ()),
    "bzip2": (("-d -k -f -c $D/bzip2_data/{i}.bz2",), ()),
    "crc32": (("$D/telecom_data/{i}.pcm",), ()),
    "dijkstra": (("$D/network_dijkstra_data/{i}.dat",), ()),
    "gsm": (("-fps -c $D/telecom_gsm_data/{i}.au",), ()),
    "jpeg-c": (("-dct int -progressive -outfile output.jpeg $D/consumer_jpeg_data/{i}.ppm",), ()),
    "jpeg-d": (("-dct int -outfile output.ppm $D/consumer_jpeg_data/{i}.jpg",), ()),
    "patricia": (("$D/network_patricia_data/{i}.udp",), ()),
    "qsort": (("$D/automotive_qsort_data/{i}.dat",), ("-lm",)),
    "sha": (("$D/office_data/{i}.txt",), ()),
    "stringsearch": (("$D/office_data/{i}.txt $D/office_data/{i}.s.txt output.txt",), ("-lm",)),
    # One input set only, in CompilerGym: the others take very long or crash.
    "stringsearch2": (("$D/office_data/1.txt $D/office_data/1.s.txt output.txt",), ()),
    "susan": (("$D/automotive_susan_data/{i}.pgm output_large.corners.pgm -c",), ("-lm",)),
    "tiff2bw": (("$D/consumer_tiff_data/{i}.tif output.tif",), ("-lm",)),
    "tiff2rgba": (("$D/consumer_tiff_data/{i}.tif output.tif",), ("-lm",)),
    "tiffdither": (("$D/consumer_tiff_data/{i}.bw.tif out.tif",), ("-lm",)),
    "tiffmedian": (("$D/consumer_tiff_data/{i}.nocomp.tif output.tif",), ("-lm",)),
}


# -------------------------------------------------------------------------------------------
# The table: CompilerGym's facts (Linux files), one row per dataset.

_ANGHABENCH_TAR = Archive(
    (
        "https://github.com/brenocfg/AnghaBench/archive/"
        "d8034ac8562b8c978376008f4b33df01b8887b19.tar.gz",
    ),
    "85d068e4ce44f2581e3355ee7a8f3ccb92568e9f5bd338bc3a918566f3aff42f",
)
_ANGHABENCH = {
    "description": "Compile-only C/C++ functions extracted from GitHub",
    "license": "Unknown. See: https://github.com/brenocfg/AnghaBench/issues/1",
    "archive": _ANGHABENCH_TAR,
    "strip_prefix": "AnghaBench-d8034ac8562b8c978376008f4b33df01b8887b19",
    "suffix": ".c",
    "references": (
        ("Paper", "https://homepages.dcc.ufmg.br/~fernando/publications/papers/FaustinoCGO21.pdf"),
        ("Homepage", "http://cuda.dcc.ufmg.br/angha/"),
    ),
}
_CBENCH_REFERENCES = (
    ("Paper", "https://arxiv.org/pdf/1407.3487.pdf"),
    ("Homepage", "https://ctuning.org/wiki/index.php/CTools:CBench"),
)
_CBENCH_V1_TAR = _fb(
    "llvm_bitcodes-10.0.0-cBench-v1-linux.tar.bz2",
    "601fff3944c866f6617e653b6eb5c1521382c935f56ca1f36a9f5cf1a49f3de5",
)
_MIBENCH_MANIFEST = _fb(
    "llvm_bitcodes-10.0.0-mibench-v0-manifest.bz2",
    "8ed985d685b48f444a3312cd84ccc5debda4a839850e442a3cdc93910ba0dc5f",
)
_MIBENCH_REFERENCES = (("Paper", "http://vhosts.eecs.umich.edu/mibench/Publications/MiBench.pdf"),)
_POJ104_REFERENCES = (
    ("Paper", "https://ojs.aaai.org/index.php/AAAI/article/download/10139/9998"),
    ("Homepage", "https://sites.google.com/site/treebasedcnn/"),
)

_ROWS = (
    Definition(
        name="benchmark://anghabench-v1",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-anghabench-v1-linux-manifest.bz2",
            "14df85f650199498cf769715e9f0d7841d09f9fa62a95b8ecc242bdaf227f33a",
        ),
        kind="AnghaBenchDataset",
        **_ANGHABENCH,
    ),
    Definition(
        name="benchmark://anghabench-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-anghabench-v0-linux-manifest.bz2",
            "a038d25d39ee9472662a9704dfff19c9e3512ff6a70f1067af85c5cb3784b477",
        ),
        deprecated="Please use anghabench-v1",
        kind="CSourceDataset",
        **_ANGHABENCH,
    ),
    Definition(
        name="benchmark://jotaibench-v0",
        description="Compile-only C/C++ functions extracted from GitHub",
        license="GNU General Public License v3.0 (GPLv3)",
        archive=Archive(
            (
                "https://github.com/ChrisCummins/jotai-benchmarks/raw/"
                "ca26ccd27afecf38919c1e101c64e3cc17e39631/benchmarks/jotaibench.bz2",
            ),
            "b5a51af3d4e2f77a66001635ec64ed321e0ece19873c4a888040859af7556401",
        ),
        strip_prefix="jotaibench/jotaibench-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-jotaibench-v0.bz2",
            "ac4ee456e52073964d472d3e3969058b2f3052f8a4b402719013a3c603eb4b62",
        ),
        kind="JotaiBenchDataset",
        suffix=".c",
        references=(
            (
                "Paper",
                "https://homepages.dcc.ufmg.br/~fernando/publications/papers/FaustinoCGO21.pdf",
            ),
            ("Homepage", "http://cuda.dcc.ufmg.br/angha/"),
        ),
    ),
    Definition(
        name="benchmark://blas-v0",
        description="Basic linear algebra kernels",
        license="BSD 3-Clause",
        archive=_fb(
            "llvm_bitcodes-10.0.0-blas-v0.tar.bz2",
            "e724a8114709f8480adeb9873d48e426e8d9444b00cddce48e342b9f0f2b096d",
        ),
        strip_prefix="blas-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-blas-v0-manifest.bz2",
            "6946437dcb0da5fad3ed8a7fd83eb4294964198391d5537b1310e22d7ceebff4",
        ),
        kind="BlasDataset",
        references=(("Homepage", "http://www.netlib.org/blas/"),),
    ),
    Definition(
        name="benchmark://clgen-v0",
        description="Synthetically generated OpenCL kernels",
        license="GNU General Public License v3.0",
        archive=Archive(
            (
                "https://github.com/ChrisCummins/paper-synthesizing-benchmarks/raw/"
                "e45b6dffe9998f612624f05a6c4878ab4bcc84ec/data/clgen-1000.tar.bz2",
            ),
            "0bbd1b737f2537305e4db09b2971a5fa848b7c3a978bff6b570f45d1a488a72c",
        ),
        strip_prefix="clgen-1000/kernels",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-clgen-v0-manifest.bz2",
            "d2bbc1da5a24a8cb03b604d1d8e59227b33bdfcd964ebe741ca8339f1c8d65cc",
        ),
        kind="CLgenDataset",
        suffix=".cl",
        references=(
            ("Paper", "https://chriscummins.cc/pub/2017-cgo.pdf"),
            ("Homepage", "https://github.com/ChrisCummins/clgen"),
        ),
        extras=(
            _fb(
                "libclc-v0.tar.bz2",
                "f1c511f2ac12adf98dcc0fbfc4e09d0f755fa403c18f1fb1ffa5547e1fa1a499",
            ),
            Archive(
                (
                    "https://github.com/ChrisCummins/clgen/raw/"
                    "463c0adcd8abcf2432b24df0aca594b77a69e9d3/deeplearning/clgen/data/include/"
                    "opencl.h",
                ),
                "f95b9f4c8b1d09114e491846d0d41425d24930ac167e024f45dab8071d19f3f7",
            ),
        ),
    ),
    Definition(
        name="benchmark://cbench-v1",
        description="Runnable C benchmarks",
        license="BSD 3-Clause",
        archive=_CBENCH_V1_TAR,
        strip_prefix="cBench-v1",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-cbench-v1-manifest.bz2",
            "eeffd7593aeb696a160fd22e6b0c382198a65d0918b8440253ea458cfe927741",
        ),
        kind="CBenchDataset",
        references=_CBENCH_REFERENCES,
        sort_order=-1,
        validatable="Partially",
        extras=(CBENCH_RUNTIME_DATA,),
    ),
    Definition(
        name="benchmark://cBench-v1",
        description="Runnable C benchmarks",
        license="BSD 3-Clause",
        archive=_CBENCH_V1_TAR,
        strip_prefix="cBench-v1",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-cBench-v1-manifest.bz2",
            "635b94eeb2784dfedb3b53fd8f84517c3b4b95d851ddb662d4c1058c72dc81e0",
        ),
        kind="CompilerGymDataset",
        references=_CBENCH_REFERENCES,
        deprecated=(
            "Please use 'benchmark://cbench-v1' (note the lowercase name). "
            "The dataset is the same, only the name has changed"
        ),
        sort_order=100,
        validatable="Partially",
    ),
    Definition(
        name="benchmark://cBench-v0",
        description="Runnable C benchmarks",
        license="BSD 3-Clause",
        archive=_fb(
            "llvm_bitcodes-10.0.0-cBench-v0-linux.tar.bz2",
            "9b5838a90895579aab3b9375e8eeb3ed2ae58e0ad354fec7eb4f8b31ecb4a360",
        ),
        strip_prefix="cBench-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-cBench-v0-manifest.bz2",
            "635b94eeb2784dfedb3b53fd8f84517c3b4b95d851ddb662d4c1058c72dc81e0",
        ),
        kind="CompilerGymDataset",
        references=_CBENCH_REFERENCES,
        deprecated="Please use 'benchmark://cbench-v1'",
    ),
    Definition(
        name="benchmark://chstone-v0",
        description="Benchmarks for C-based High-Level Synthesis",
        license="Mixture of open source and public domain licenses",
        archive=Archive(
            (
                "https://github.com/ChrisCummins/patmos_HLS/archive/"
                "e62d878ceb91e5a18007ca2e0a9602ee44ff7d59.tar.gz",
            ),
            "f7acab9d3c3dc7b971e62c8454bc909d84bddb6d0a96378e41beb94231739acb",
        ),
        strip_prefix="patmos_HLS-e62d878ceb91e5a18007ca2e0a9602ee44ff7d59/benchmarks/CHStone",
        manifest=None,
        kind="CHStoneDataset",
        suffix=".c",
        references=(
            ("Paper", "http://www.yxi.com/applications/iscas2008-300_1027.pdf"),
            ("Homepage", "http://www.ertl.jp/chstone/"),
        ),
        benchmarks=(
            "adpcm",
            "aes",
            "blowfish",
            "dfadd",
            "dfdiv",
            "dfmul",
            "dfsin",
            "gsm",
            "jpeg",
            "mips",
            "motion",
            "sha",
        ),
    ),
    Definition(
        name="benchmark://github-v0",
        description="Compile-only C/C++ objects from GitHub",
        license="CC BY 4.0",
        archive=_fb(
            "llvm_bitcodes-10.0.0-github-v0.tar.bz2",
            "880269dd7a5c2508ea222a2e54c318c38c8090eb105c0a87c595e9dd31720764",
        ),
        strip_prefix="github-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-github-v0-linux-manifest.bz2",
            "aede9ca78657b4694ada9a4592d93f0bbeb3b3bd0fff3b537209850228480d3b",
        ),
        kind="GitHubDataset",
        references=(("Paper", "https://arxiv.org/pdf/2012.01470.pdf"),),
    ),
    Definition(
        name="benchmark://linux-v0",
        description="Compile-only object files from C Linux kernel",
        license="GPL-2.0",
        archive=_fb(
            "llvm_bitcodes-10.0.0-linux-v0.tar.bz2",
            "a1ae5c376af30ab042c9e54dc432f89ce75f9ebaee953bc19c08aff070f12566",
        ),
        strip_prefix="linux-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-linux-v0-linux-manifest.bz2",
            "32ceb8576f683798010816ac605ee496f386ddbbe64be9e0796015d247a73f92",
        ),
        kind="LinuxDataset",
        references=(("Homepage", "https://www.linux.org/"),),
    ),
    Definition(
        name="benchmark://mibench-v1",
        description="C benchmarks",
        license="BSD 3-Clause",
        archive=_fb(
            "llvm_bitcodes-10.0.0-mibench-v1.tar.bz2",
            "795b80d3198bc96e394823a4cb294d256845beffccce52fea0e3446395212bb5",
        ),
        strip_prefix="mibench-v1",
        manifest=_MIBENCH_MANIFEST,
        kind="MibenchDataset",
        references=_MIBENCH_REFERENCES,
    ),
    Definition(
        name="benchmark://mibench-v0",
        description="C benchmarks",
        license="BSD 3-Clause",
        archive=_fb(
            "llvm_bitcodes-10.0.0-mibench-v0.tar.bz2",
            "128c090c40b955b99fdf766da167a5f642018fb35c16a1d082f63be2e977eb13",
        ),
        strip_prefix="mibench-v0",
        manifest=_MIBENCH_MANIFEST,
        kind="CompilerGymDataset",
        references=_MIBENCH_REFERENCES,
        deprecated="Please use mibench-v1",
        sort_order=100,
    ),
    Definition(
        name="benchmark://npb-v0",
        description="NASA Parallel Benchmarks",
        license="NASA Open Source Agreement v1.3",
        archive=_fb(
            "llvm_bitcodes-10.0.0-npb-v0.tar.bz2",
            "793ac2e7a4f4ed83709e8a270371e65b724da09eaa0095c52e7f4209f63bb1f2",
        ),
        strip_prefix="npb-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-npb-v0-manifest.bz2",
            "89eccb7f1b0b9e1f82b9b900b9f686ff5b189a2a67a4f8969a15901cd315dba2",
        ),
        kind="NPBDataset",
    ),
    Definition(
        name="benchmark://opencv-v0",
        description="Compile-only object files from C++ OpenCV library",
        license="Apache 2.0",
        archive=_fb(
            "llvm_bitcodes-10.0.0-opencv-v0.tar.bz2",
            "003df853bd58df93572862ca2f934c7b129db2a3573bcae69a2e59431037205c",
        ),
        strip_prefix="opencv-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-opencv-v0-manifest.bz2",
            "8de96f722fab18f3a2a74db74b4038c7947fe8b3da867c9260206fdf5338cd81",
        ),
        kind="OpenCVDataset",
        references=(("Homepage", "https://opencv.org/"),),
    ),
    Definition(
        name="benchmark://poj104-v1",
        description="Solutions to programming programs",
        license="BSD 3-Clause",
        archive=Archive(
            (
                _FB + "llvm_bitcodes-10.0.0-poj104-v1.tar.gz",
                "https://drive.google.com/u/0/uc?id=0B2i-vWnOu7MxVlJwQXN6eVNONUU&export=download",
            ),
            "c0b8ef3ee9c9159c882dc9337cb46da0e612a28e24852a83f8a1cd68c838f390",
        ),
        strip_prefix="ProgramData",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-poj104-v1-linux-manifest.bz2",
            "ee6253ee826e171816105e76fa78c0d3cbd319ef66e10da4bcf9cf8a78e12ab9",
        ),
        kind="POJ104Dataset",
        suffix=".txt",
        references=_POJ104_REFERENCES,
    ),
    Definition(
        name="benchmark://poj104-v0",
        description="Solutions to programming programs",
        license="BSD 3-Clause",
        archive=_fb(
            "llvm_bitcodes-10.0.0-poj104-v0.tar.bz2",
            "6254d629887f6b51efc1177788b0ce37339d5f3456fb8784415ed3b8c25cce27",
        ),
        strip_prefix="poj104-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-poj104-v0-manifest.bz2",
            "ac3eaaad7d2878d871ed2b5c72a3f39c058ea6694989af5c86cd162414db750b",
        ),
        kind="CompilerGymDataset",
        references=_POJ104_REFERENCES,
        deprecated="Please update to benchmark://poj104-v1.",
        sort_order=100,
    ),
    Definition(
        name="benchmark://tensorflow-v0",
        description="Compile-only object files from C++ TensorFlow library",
        license="Apache 2.0",
        archive=_fb(
            "llvm_bitcodes-10.0.0-tensorflow-v0.tar.bz2",
            "f77dd1988c772e8359e1303cc9aba0d73d5eb27e0c98415ac3348076ab94efd1",
        ),
        strip_prefix="tensorflow-v0",
        manifest=_fb(
            "llvm_bitcodes-10.0.0-tensorflow-v0-manifest.bz2",
            "cffc45cd10250d483cb093dec913c8a7da64026686284cccf404623bd1da6da8",
        ),
        kind="TensorFlowDataset",
        references=(("Homepage", "https://www.tensorflow.org/"),),
    ),
)

#: CompilerGym's LLVM datasets that download, by name (``generator://csmith-v0`` and
#: ``generator://llvm-stress-v0`` are this project's generators).
DEFINITIONS: dict[str, Definition] = {row.name: row for row in _ROWS}
