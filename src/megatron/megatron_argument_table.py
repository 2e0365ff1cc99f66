#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes megatron_arguments.tsv: every option Megatron-LM's pretrain scripts accept, with what its
argparse action takes (nargs, the value's type, the choices), so pipebench parses a launch line as
Megatron's argparse parses it (megatron_argparse.h). The build makes it C++ (embed_argument_table.sh).

Usage (by hand, after changing the pinned commit):
  git -C MEGATRON_LM_CHECKOUT checkout COMMIT
  python3 src/megatron/megatron_argument_table.py MEGATRON_LM_CHECKOUT > src/megatron/megatron_arguments.tsv

Only names, nargs, type names and choices are written: no text of Megatron-LM is copied.

Megatron-LM builds its parser in megatron/training/arguments.py (add_megatron_arguments), much of it
generated from dataclasses (ArgumentGroupFactory), so the names are read by running that function
rather than by reading the file. Its imports need torch and GPU libraries; here every module that is
neither Python's own nor megatron is replaced by an inert stand-in, which is enough to build the
parser. The commit recorded is the checkout's HEAD.
"""
import abc
import argparse
import importlib.abc
import importlib.machinery
import subprocess
import sys
import types
import typing

# Modules the parser's imports need that are stood in for (torch and what it brings).
STUBBED_TOP_LEVEL = {"torch", "numpy", "triton"}


class _Anything(type(typing.Protocol)):
    """A class that stands for any object of a stubbed module: every attribute, call, index and
    arithmetic gives another such class, so module-level code of megatron runs through."""

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return _anything(cls.__name__ + "." + name)

    def __call__(cls, *args, **kwargs):
        return _anything(cls.__name__ + "()")

    def __getitem__(cls, key):
        return cls

    def __lt__(cls, other):
        return False

    __le__ = __gt__ = __ge__ = __lt__

    def __iter__(cls):
        return iter(())

    def __len__(cls):
        return 0

    def __int__(cls):
        return 0

    __index__ = __int__

    def __float__(cls):
        return 0.0

    def __add__(cls, other):
        return cls

    __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __floordiv__ = __mod__ = __pow__ = __add__

    def __enter__(cls):
        return cls

    def __exit__(cls, *exc):
        return False

    def __hash__(cls):
        return id(cls)

    def __eq__(cls, other):
        return cls is other


def _anything(name):
    return _Anything(name, (), {})


class _StubModule(types.ModuleType):
    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []

    def __getattr__(self, name):
        if name == "__version__":
            return "99.0.0"
        if name.startswith("__"):
            raise AttributeError(name)
        value = _anything(self.__name__ + "." + name)
        setattr(self, name, value)
        return value


class _StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] not in STUBBED_TOP_LEVEL:
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        return _StubModule(spec.name)

    def exec_module(self, module):
        pass


def _packaging_stand_in():
    """packaging.version for megatron's version checks, where packaging is not installed."""
    try:
        import packaging.version  # noqa: F401

        return
    except ImportError:
        pass

    class Version:
        def __init__(self, text):
            parts = str(text).split("+")[0].split(".")[:3]
            self.key = tuple(int(p) if p.isdigit() else 0 for p in parts)

        def __lt__(self, other):
            return self.key < other.key

        def __le__(self, other):
            return self.key <= other.key

        def __gt__(self, other):
            return self.key > other.key

        def __ge__(self, other):
            return self.key >= other.key

        def __eq__(self, other):
            return self.key == other.key

    package = types.ModuleType("packaging")
    package.__path__ = []
    version = types.ModuleType("packaging.version")
    version.Version = version.parse = Version
    package.version = version
    sys.modules["packaging"] = package
    sys.modules["packaging.version"] = version


# argparse's nargs as the table writes it: "" for one value (nargs None), else nargs itself; flags 0.
def _nargs(action):
    return "" if action.nargs is None else str(action.nargs)


# The value's type as the table writes it. int, float and str are converted as Python does
# (megatron_argparse.cc); an Enum-valued dataclass field (argument_utils.py _get_enum_kwargs) takes a
# member's name; any other converter is Megatron's own function, named so the table says what is not
# checked. type=bool on a flag (BooleanOptionalAction) converts nothing.
def _type(action):
    if action.nargs == 0:
        return "flag"
    if action.type is None or action.type is str:
        return "str"
    if action.type in (int, float):
        return action.type.__name__
    if getattr(action.type, "__name__", "") == "enum_type_handler":
        return "enum"
    return getattr(action.type, "__name__", repr(action.type))


def _choices(action):
    if action.choices is None:
        return []
    out = [c.name if _type(action) == "enum" else str(c) for c in action.choices]
    for c in out:
        assert " " not in c and c, (action.option_strings, c)
    return out


def _field(text):
    assert not any(c in text for c in '"\\\t\n'), text
    return text


def main():
    checkout = sys.argv[1]
    commit = subprocess.run(["git", "-C", checkout, "rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    typing.override = getattr(typing, "override", lambda f: f)  # Python < 3.12
    _packaging_stand_in()
    sys.meta_path.insert(0, _StubFinder())
    sys.path.insert(0, checkout)
    import warnings

    warnings.simplefilter("ignore")
    from megatron.training import arguments

    parser = argparse.ArgumentParser(allow_abbrev=False)
    arguments.add_megatron_arguments(parser)
    # The emulation knows no mutually exclusive groups, required options or positionals: none exist.
    assert not parser._mutually_exclusive_groups
    assert not parser._has_negative_number_optionals
    rows = []
    for action in parser._actions:
        assert action.option_strings and not action.required, action
        if "--help" in action.option_strings:
            continue
        assert all(s.startswith("--") for s in action.option_strings), action.option_strings
        rows.append((sorted(action.option_strings, key=len)[0], action))
    rows.sort(key=lambda row: row[0])
    out = sys.stdout
    out.write("# Generated by src/megatron/megatron_argument_table.py from Megatron-LM (do not edit; run it again):\n")
    out.write("# every option megatron/training/arguments.py add_megatron_arguments registers, explicit and\n")
    out.write("# generated from the config dataclasses: option strings, argparse nargs, value type, choices.\n")
    out.write("# commit %s\n" % commit)
    for _, action in rows:
        out.write("\t".join(_field(f) for f in (" ".join(action.option_strings), _nargs(action), _type(action),
                                                 " ".join(_choices(action)))) + "\n")


if __name__ == "__main__":
    main()
