"""The command-line tools, one module each (``python -m compiler_gym.bin.<tool>``; the
``compiler_gym-*`` scripts of pyproject.toml run their ``main``)."""
