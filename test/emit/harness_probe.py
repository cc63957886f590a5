"""Asks the real lm-evaluation-harness about an emitted suite; prints one JSON object.

  probe.py load SUITE_DIR GROUP      TaskManager(include_path=SUITE_DIR, include_defaults=False).load([GROUP]):
                                      per task the config the harness built, its documents, and the exact
                                      context of document 0; plus every YAML file as PyYAML reads it.
  probe.py utils SUITE_DIR           JSON on stdin {"normalise": [...], "rouge": [[pred, [targets]], ...]}:
                                      the suite's utils.py applied to each (first_line filter, ROUGE).
"""

import importlib.util
import json
import sys
from pathlib import Path

import yaml


class _FunctionLoader(yaml.CSafeLoader):
    pass


_FunctionLoader.add_constructor("!function", lambda loader, node: {"!function": loader.construct_scalar(node)})


def read_yaml_files(suite_dir: Path):
    out = {}
    for path in sorted(suite_dir.iterdir()):
        if path.is_file() and (path.suffix == ".yaml" or path.name.endswith("_yaml")):
            with path.open("rb") as fh:
                out[path.name] = yaml.load(fh, Loader=_FunctionLoader)  # noqa: S506 - our own loader class
    return out


def load(suite_dir: Path, group: str):
    from lm_eval.tasks import TaskManager

    manager = TaskManager(include_path=str(suite_dir), include_defaults=False)
    loaded = manager.load([group])
    tasks = {}
    for name, task in sorted(loaded["tasks"].items()):
        docs = list(task.eval_docs)
        cfg = task.config
        shots = cfg.num_fewshot or 0
        fewshot_docs = list(task.fewshot_docs()) if cfg.fewshot_split else []
        tasks[name] = {
            "output_type": cfg.output_type,
            "num_fewshot": cfg.num_fewshot,
            "fewshot_split": cfg.fewshot_split,
            "target_delimiter": cfg.target_delimiter,
            "generation_kwargs": cfg.generation_kwargs,
            "filters": [f["name"] for f in (cfg.filter_list or [])],
            "metrics": sorted(task.aggregation().keys()),
            "higher_is_better": task.higher_is_better(),
            "version": cfg.metadata.get("version") if cfg.metadata else None,
            "features": list(task.features),
            "docs": docs,
            "fewshot_ids": [d["id"] for d in fewshot_docs],
            "context0": task.fewshot_context(docs[0], shots),
            "target0": task.doc_to_target(docs[0]),
            "choices0": task.doc_to_choice(docs[0]) if cfg.output_type == "multiple_choice" else None,
        }
    groups = {
        name: {"children": loaded["group_map"].get(name, []), "aggregate": [vars(a) for a in (group.aggregate_metric_list or [])]}
        for name, group in loaded["groups"].items()
    }
    return {"tasks": tasks, "groups": groups, "yaml": read_yaml_files(suite_dir), "all_tasks": sorted(manager.all_tasks)}


def utils(suite_dir: Path, request):
    spec = importlib.util.spec_from_file_location("aptpace_probe_utils", suite_dir / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    normalised = [module.normalise_first_line(s) for s in request.get("normalise", [])]
    filtered = module.first_line([[s] for s in request.get("normalise", [])], None)
    rouge = [module._rouge(pred, targets) for pred, targets in request.get("rouge", [])] if hasattr(module, "_rouge") else None
    em = [module._exact_match(pred, targets) for pred, targets in request.get("exact_match", [])] if hasattr(module, "_exact_match") else None
    return {"normalised": normalised, "filtered": [f[0] for f in filtered], "rouge": rouge, "exact_match": em}


def main():
    command, suite_dir = sys.argv[1], Path(sys.argv[2])
    if command == "load":
        result = load(suite_dir, sys.argv[3])
    elif command == "utils":
        result = utils(suite_dir, json.load(sys.stdin))
    else:
        raise SystemExit(f"unknown command {command}")
    sys.stdout.write(json.dumps(result, ensure_ascii=False, default=str))


if __name__ == "__main__":
    main()
