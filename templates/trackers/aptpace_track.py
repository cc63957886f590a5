"""Log an aptpace check to Weights & Biases or MLflow through their own clients.

`aptpace check --track wandb|mlflow` runs this file with the Python named by `--python`
(default: $APTPACE_PYTHON, else python3) and writes one JSON payload on stdin:

    {"format": "aptpace-tracking", "version": 1, "tracker": "wandb" | "mlflow",
     "project": ..., "run": ..., "config": {...},
     "points": [{"step": int | null, "metrics": {...}, "tags": {...}}],
     "defaultDir": ...}

The trackers are configured as their users configure them (WANDB_MODE, WANDB_DIR,
WANDB_API_KEY, MLFLOW_TRACKING_URI, ...). Left unconfigured, they write under `defaultDir`
(inside the check's output folder) rather than into the working directory. Exit status:
0 logged, 3 the payload is unreadable, 4 the tracker's client is not installed, 5 the client
failed.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from typing import Any


def run_id(project: str, run: str) -> str:
    """A W&B run id derived from the names, so each later check resumes the same run."""
    return hashlib.sha256(f"{project}\0{run}".encode()).hexdigest()[:16]


def log_wandb(payload: dict[str, Any]) -> None:
    os.environ.setdefault("WANDB_DIR", payload["defaultDir"])
    os.environ.setdefault("WANDB_SILENT", "true")
    os.makedirs(os.environ["WANDB_DIR"], exist_ok=True)
    import wandb

    run = wandb.init(
        project=payload["project"],
        name=payload["run"],
        id=run_id(payload["project"], payload["run"]),
        resume="allow",
        config=payload["config"],
    )
    try:
        for point in payload["points"]:
            if point["step"] is None:
                run.log(point["metrics"])
            else:
                run.log(point["metrics"], step=point["step"])
            run.summary.update(point["tags"])
    finally:
        run.finish()


def log_mlflow(payload: dict[str, Any]) -> None:
    if "MLFLOW_TRACKING_URI" not in os.environ:
        os.environ["MLFLOW_TRACKING_URI"] = "file://" + os.path.join(payload["defaultDir"], "mlruns")
        # MLflow keeps its file store behind this switch; a team's server or database is set
        # through MLFLOW_TRACKING_URI instead.
        os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
    import mlflow

    experiment = mlflow.set_experiment(payload["project"])
    # Matched here rather than in a filter string, so no run name needs quoting.
    runs = mlflow.search_runs(experiment_ids=[experiment.experiment_id], output_format="list")
    existing = sorted((r for r in runs if r.info.run_name == payload["run"]), key=lambda r: r.info.start_time)
    run_id_arg = existing[0].info.run_id if existing else None
    with mlflow.start_run(run_id=run_id_arg, run_name=None if run_id_arg else payload["run"]):
        mlflow.log_params({k: v for k, v in payload["config"].items() if v is not None})
        for point in payload["points"]:
            mlflow.log_metrics(point["metrics"], step=point["step"] or 0)
            mlflow.set_tags(point["tags"])


LOGGERS = {"wandb": log_wandb, "mlflow": log_mlflow}


def main() -> int:
    try:
        payload = json.loads(sys.stdin.read())
        if payload.get("format") != "aptpace-tracking" or payload.get("version") != 1:
            raise ValueError("not an aptpace tracking payload (format/version)")
        logger = LOGGERS[payload["tracker"]]
    except (ValueError, KeyError) as error:
        print(f"unreadable payload: {error}", file=sys.stderr)
        return 3
    try:
        logger(payload)
    except ImportError as error:
        print(f"the {payload['tracker']} client is not installed in {sys.executable}: {error}", file=sys.stderr)
        return 4
    except Exception as error:  # the client's own failure, reported by aptpace as a finding
        print(f"{payload['tracker']} failed: {type(error).__name__}: {error}", file=sys.stderr)
        return 5
    return 0


if __name__ == "__main__":
    sys.exit(main())
