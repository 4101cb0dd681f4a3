"""Every public class, function, method and property of the package says what it is."""

# The RL and search extras (pyproject's optional-dependencies); a module that needs one of them
# is skipped only when that dependency is not installed.
OPTIONAL_DEPENDENCIES = {"torch", "torchrl", "stable_baselines3", "nevergrad", "matplotlib"}


def test_every_public_object_has_a_docstring():
    import dataclasses
    import importlib
    import inspect
    import pkgutil

    import compiler_gym

    def property_doc(cls, name: str, prop: property) -> str:
        # The getter's docstring, or that of the same-named attribute of a base class.
        if prop.fget is not None and inspect.getdoc(prop.fget):
            return inspect.getdoc(prop.fget)
        for base in cls.__mro__[1:]:
            if name in vars(base):
                doc = inspect.getdoc(vars(base)[name])
                if doc:
                    return doc
        return ""

    missing = []
    for info in pkgutil.walk_packages(compiler_gym.__path__, "compiler_gym."):
        name = info.name
        if name == "compiler_gym._C":
            continue
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            # An optional dependency is missing: its modules cannot be imported, so not checked.
            if (e.name or "").split(".")[0] in OPTIONAL_DEPENDENCIES:
                continue
            raise
        for attr, obj in vars(module).items():
            if attr.startswith("_") or not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue
            if obj.__module__ != name:
                continue
            qualname = f"{name}.{attr}"
            doc = inspect.getdoc(obj)
            # A dataclass without a docstring gets a generated one: its signature.
            if not doc or (dataclasses.is_dataclass(obj) and doc.startswith(f"{obj.__name__}(")):
                missing.append(qualname)
            if not inspect.isclass(obj):
                continue
            for member_name, member in vars(obj).items():
                if member_name.startswith("_"):
                    continue
                if isinstance(member, property):
                    doc = property_doc(obj, member_name, member)
                elif isinstance(member, (classmethod, staticmethod)):
                    doc = inspect.getdoc(member.__func__)
                elif inspect.isfunction(member):
                    doc = inspect.getdoc(getattr(obj, member_name))  # inherited docs count
                else:
                    continue
                if not doc:
                    missing.append(f"{qualname}.{member_name}")

    assert not missing, f"{len(missing)} public objects have no docstring:\n" + "\n".join(missing)
