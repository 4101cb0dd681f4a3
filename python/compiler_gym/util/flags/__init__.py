"""CompilerGym's ``compiler_gym.util.flags``: absl command-line flags that scripts share.

Each module defines its flags when it is imported, and each flag lives in exactly one module,
so two scripts (or a script and a library) that import the same module do not define a flag
twice::

    from absl import app, flags

    import compiler_gym.util.flags.nproc  # noqa: F401, defines --nproc
    from compiler_gym.util.flags.env_from_flags import env_from_flags

    def main(argv):
        with env_from_flags() as env:
            ...

    app.run(main)

Nothing else in the package imports these modules, so ``import compiler_gym`` needs no absl.
"""
