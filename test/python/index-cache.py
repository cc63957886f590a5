"""Prints the harness's task index (name -> kind, file) as JSON, and checks the cache key."""

import json
import os
import sys
import tempfile
from pathlib import Path

from lm_eval.tasks import TaskManager

if sys.argv[1] == "index":
    manager = TaskManager(include_path=sys.argv[2])
    print(json.dumps({name: [entry.kind.name, str(entry.yaml_path)] for name, entry in sorted(manager._index.items())}))
else:
    import sitecustomize

    with tempfile.TemporaryDirectory() as root:
        Path(root, "a.yaml").write_text("task: a\n")
        first = sitecustomize._key(root, "0.4.13")
        same = sitecustomize._key(root, "0.4.13")
        Path(root, "b.yaml").write_text("task: b\n")
        added = sitecustomize._key(root, "0.4.13")
        Path(root, "a.yaml").write_text("task: a2\n")
        os.utime(Path(root, "a.yaml"), ns=(1, 1))
        changed = sitecustomize._key(root, "0.4.13")
        other_version = sitecustomize._key(root, "0.4.14")
    print(json.dumps({"stable": first == same, "distinct": len({first, added, changed, other_version}) == 4}))
