"""Test-run start-up for every Python process the tests spawn (on PYTHONPATH via vitest.config.ts).

Every `lm_eval` run first indexes the harness's ~14,000 built-in task YAML files, which takes
about half of a small run's time; the test suite runs the harness some 70 times and never uses a
built-in task. When APTPACE_LMEVAL_INDEX_CACHE names a folder, the index of the built-in task
folder is kept there between runs, keyed by the harness version and every YAML file's path, size
and modification time: a checkout whose task folder changed (our suite installed into it) is
indexed afresh. Everything else, including the index of `--include_path` folders, is the
harness's own code. Without the variable this module does nothing.
"""

import hashlib
import importlib.abc
import importlib.util
import os
import pickle
import sys
import tempfile
from pathlib import Path

_TARGET = "lm_eval.tasks._index"


def _key(root, version):
    digest = hashlib.sha256(f"{version}\0{root}".encode())
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(".yaml"):
                st = os.stat(os.path.join(dirpath, name))
                digest.update(f"{dirpath}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
    return digest.hexdigest()


def _patch(module, cache_dir):
    from importlib.metadata import version as installed_version

    task_index = module.TaskIndex
    original = task_index.build
    # The index module sits in the built-in task folder (lm_eval/tasks/), which is still importing.
    defaults = Path(module.__file__).parent.resolve()
    version = installed_version("lm_eval")

    def cached_defaults(resolve_includes):
        path = Path(cache_dir) / f"index-{_key(defaults, version)}-{int(resolve_includes)}.pickle"
        try:
            with open(path, "rb") as f:
                return pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError):
            pass
        part = original([defaults], resolve_includes=resolve_includes)
        try:
            os.makedirs(cache_dir, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=cache_dir, suffix=".tmp")
            with os.fdopen(fd, "wb") as f:
                pickle.dump(part, f)
            os.replace(tmp, path)
        except (OSError, pickle.PicklingError, TypeError, AttributeError):
            pass
        return part

    def build(paths, *, resolve_includes=True):
        paths = list(paths)
        if not any(Path(p).resolve() == defaults for p in paths):
            return original(paths, resolve_includes=resolve_includes)
        # The harness's own merge (later paths override earlier, with its warning), one path at a time.
        index = {}
        for root in paths:
            part = cached_defaults(resolve_includes) if Path(root).resolve() == defaults else original([root], resolve_includes=resolve_includes)
            for name, entry in part.items():
                if name in index:
                    module.log.warning("Task '%s' from %s overrides existing task from %s", name, entry.yaml_path, index[name].yaml_path)
                index[name] = entry
        return index

    task_index.build = staticmethod(build)


class _PatchOnImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Lets the harness's index module load as usual, then wraps its TaskIndex.build."""

    def __init__(self, cache_dir):
        self.cache_dir = cache_dir
        self.spec = None

    def find_spec(self, fullname, path, target=None):
        if fullname != _TARGET or self.spec is not None:
            return None
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(fullname)
        finally:
            sys.meta_path.insert(0, self)
        if spec is None or spec.loader is None:
            return None
        self.spec = spec
        self.inner = spec.loader
        spec.loader = self
        return spec

    def create_module(self, spec):
        return self.inner.create_module(spec)

    def exec_module(self, module):
        self.inner.exec_module(module)
        _patch(module, self.cache_dir)


if os.environ.get("APTPACE_LMEVAL_INDEX_CACHE"):
    sys.meta_path.insert(0, _PatchOnImport(os.environ["APTPACE_LMEVAL_INDEX_CACHE"]))
