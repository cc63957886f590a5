"""Writes the installed lm-evaluation-harness's built-in task, group and tag names as JSON.

`aptpace emit` refuses suite and task names that would silently replace a built-in
(an include-path task overrides a built-in of the same name with only a warning). The
committed snapshot lets `emit` check this without Python; test/emit re-generates it from
the installed harness and fails if the snapshot is stale.

Usage: python generator/core/emit/harness-task-names.py [OUT.json]   (stdout without OUT)
"""

import json
import sys
from importlib.metadata import version

from lm_eval.tasks import TaskManager


def main() -> None:
    manager = TaskManager()
    names = sorted(set(manager.all_tasks))
    payload = {
        "harness": "lm-eval",
        "harness_version": version("lm-eval"),
        "count": len(names),
        "names": names,
    }
    text = json.dumps(payload, indent=0, ensure_ascii=False) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w", encoding="utf-8") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
