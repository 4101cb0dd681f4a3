"""Training agents on the vector engine: a focused PPO over ``make_vec``.

    from compiler_gym.train.config import TrainConfig
    from compiler_gym.train.trainer import Trainer

:mod:`~compiler_gym.train.config` holds the settings (a dataclass, read from JSON or TOML),
:mod:`~compiler_gym.train.ppo` PPO's arithmetic (GAE, the clipped-surrogate update),
:mod:`~compiler_gym.train.trainer` the rollouts, checkpoints and resume; the command line is
``python -m compiler_gym.bin.train``. Needs PyTorch, and is imported only when named.
"""
