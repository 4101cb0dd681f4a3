"""CompilerGym's ``compiler_gym.third_party``: the paths of the tools the environments use."""
