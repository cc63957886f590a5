"""Reads back what aptpace's tracker script logged offline, as JSON on stdout.

W&B: every offline run file under WANDB_DIR (argv[1]), read record by record. The file is a
LevelDB-style log (7-byte header ":W&B" + magic + version, 32 KiB blocks, records with a
checksum, a length and a FULL/FIRST/MIDDLE/LAST type) of wandb's own protobuf Records.
MLflow: every run of every experiment in the tracking store (argv[2]), through MlflowClient.
"""

from __future__ import annotations

import glob
import json
import os
import struct
import sys

BLOCK = 32768
HEADER = 7


def wandb_records(path: str):
    data = open(path, "rb").read()
    if data[:4] != b":W&B":
        raise ValueError(f"{path}: not a W&B run file")
    pos, pending = 7, b""
    while pos + HEADER <= len(data):
        left = BLOCK - pos % BLOCK
        if left < HEADER:
            pos += left
            continue
        _checksum, length, kind = struct.unpack("<IHB", data[pos : pos + HEADER])
        if kind == 0 and length == 0:
            pos += left
            continue
        chunk = data[pos + HEADER : pos + HEADER + length]
        pos += HEADER + length
        if kind == 1:
            yield chunk
        elif kind == 2:
            pending = chunk
        elif kind == 3:
            pending += chunk
        elif kind == 4:
            yield pending + chunk
            pending = b""


def read_wandb(root: str) -> list[dict]:
    from wandb.proto import wandb_internal_pb2 as pb

    runs = []
    # `latest-run` is a link to the newest run folder: each file once, by its real path.
    files = sorted({os.path.realpath(p) for p in glob.glob(os.path.join(root, "**", "run-*.wandb"), recursive=True)})
    for path in files:
        run = {"file": path, "id": None, "name": None, "project": None, "history": [], "summary": {}}
        for data in wandb_records(path):
            record = pb.Record()
            record.ParseFromString(data)
            kind = record.WhichOneof("record_type")
            if kind == "run":
                run["id"], run["name"], run["project"] = record.run.run_id, record.run.display_name, record.run.project
            elif kind == "history":
                row = {"/".join(item.nested_key) or item.key: json.loads(item.value_json) for item in record.history.item}
                run["history"].append(row)
            elif kind == "summary":
                for item in record.summary.update:
                    run["summary"]["/".join(item.nested_key) or item.key] = json.loads(item.value_json)
        runs.append(run)
    return runs


def read_mlflow(uri: str) -> list[dict]:
    os.environ["MLFLOW_ALLOW_FILE_STORE"] = "true"
    from mlflow.tracking import MlflowClient

    client = MlflowClient(tracking_uri=uri)
    runs = []
    for experiment in client.search_experiments():
        for run in client.search_runs([experiment.experiment_id]):
            metrics = {
                key: sorted([m.step, m.value] for m in client.get_metric_history(run.info.run_id, key))
                for key in run.data.metrics
            }
            runs.append({"experiment": experiment.name, "name": run.info.run_name, "metrics": metrics, "tags": run.data.tags, "params": run.data.params})
    return runs


if __name__ == "__main__":
    json.dump({"wandb": read_wandb(sys.argv[1]), "mlflow": read_mlflow(sys.argv[2])}, sys.stdout)
