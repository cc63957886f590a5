"""A model for harness tests that answers from a file instead of computing anything.

  answer_model.py ANSWERS_JSON <lm_eval arguments...> --model aptpace-answers

ANSWERS_JSON is {"generate": {doc id: generated text}, "choose": {doc id: choice index}}:
generate_until returns the text given for the document, and loglikelihood makes the given
choice the most likely one. The rest is the real `lm_eval` command line.
"""

import json
import sys

from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

ANSWERS = {"generate": {}, "choose": {}}


@register_model("aptpace-answers")
class AnswerModel(LM):
    def __init__(self, *args, **kwargs):
        super().__init__()

    @classmethod
    def create_from_arg_string(cls, arg_string, additional_config=None):
        return cls()

    def generate_until(self, requests, disable_tqdm=False):
        return [ANSWERS["generate"][request.doc["id"]] for request in requests]

    def loglikelihood(self, requests, disable_tqdm=False):
        out = []
        for request in requests:
            chosen = request.idx == ANSWERS["choose"][request.doc["id"]]
            out.append((0.0 if chosen else -10.0, chosen))
        return out

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError("no task here asks for rolling log-likelihoods")


if __name__ == "__main__":
    with open(sys.argv[1], encoding="utf-8") as handle:
        ANSWERS.update(json.load(handle))
    del sys.argv[1]
    from lm_eval.__main__ import cli_evaluate

    cli_evaluate()
