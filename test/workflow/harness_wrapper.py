"""A team's harness wrapper, as run plans see it: registers a model class, then runs lm-eval's CLI.

Used by the run-plan tests as the reference file's `harness.command`. Every call appends one
line to calls.log in the working directory (the --output_path and the environment variable the
reference file's `harness.env` sets), so a test sees which jobs ran. A job whose --output_path
contains the text in the file `fail-job` (if present) exits 3 before running, as a crashed job.
"""
import os
import sys

from lm_eval.api.registry import register_model
from lm_eval.models.dummy import DummyLM


@register_model("team-echo")
class TeamEcho(DummyLM):
    """The dummy model under a name only this wrapper knows."""


def main() -> None:
    args = sys.argv[1:]
    output = args[args.index("--output_path") + 1] if "--output_path" in args else ""
    with open("calls.log", "a", encoding="utf-8") as log:
        log.write(f"{output}\t{os.environ.get('TEAM_TAG', '')}\n")
    if os.path.exists("fail-job"):
        with open("fail-job", encoding="utf-8") as f:
            marker = f.read().strip()
        if marker and marker in output:
            print(f"harness_wrapper: failing {output} on purpose", file=sys.stderr)
            sys.exit(3)
    from lm_eval.__main__ import cli_evaluate

    sys.argv = ["lm_eval", *args]
    cli_evaluate()


if __name__ == "__main__":
    main()
