"""CompilerGym's ``compiler_gym.third_party.autophase``: the names of the ``Autophase``
observation's 56 features, in the order of its values, and their number. The names come from
the engine's feature table, the one the observation is computed from.

    >>> AUTOPHASE_FEATURE_DIM
    56
"""

from compiler_gym.envs.llvm_env import feature_names as _feature_names

AUTOPHASE_FEATURE_NAMES: list[str] = list(_feature_names()["Autophase"])

# The dimensionality of the Autophase feature vector.
AUTOPHASE_FEATURE_DIM: int = len(AUTOPHASE_FEATURE_NAMES)

__all__ = ["AUTOPHASE_FEATURE_DIM", "AUTOPHASE_FEATURE_NAMES"]
