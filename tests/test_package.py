"""The package as a user meets it first: what `import compiler_gym` costs."""

import subprocess
import sys


def test_import_compiler_gym_does_not_import_torch_or_the_rl_libraries():
    # A single env needs none of them; make_vec imports torch with its first batch.
    code = (
        "import sys, compiler_gym\n"
        "heavy = ('torch', 'torchrl', 'stable_baselines3', 'matplotlib', 'nevergrad')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_make_vec_still_returns_torch_tensors():
    import compiler_gym

    with compiler_gym.make_vec("llvm-autophase-ic-v0", num_envs=2, num_threads=1) as vec:
        obs, _ = vec.reset()
        assert type(obs).__module__.startswith("torch") and tuple(obs.shape) == (2, 56)
