"""Models for harness tests that answer from the data, registered with the real lm-eval.

    ladder_model.py <lm_eval arguments...> --model aptpace-ladder --model_args ability=0.5,seed=ref-3

Every document of an aptpace suite carries its gold (`gold` and `choices` for multiple choice,
`targets` for generation). The model answers a document correctly with probability

    p(ability, difficulty) = 1 / (1 + exp(-(ability - difficulty)))

where a document's difficulty is fixed by its id (logistic-distributed, the same for every
model) and the draw is fixed by (seed, document id). Models that share a seed form a checkpoint
ladder: a higher ability answers a superset of the documents a lower one answers. `mode=oracle`
always answers correctly, `mode=anti` never does. A wrong multiple-choice answer makes the next
choice the most likely one; a wrong generation is a fixed string no target equals.

Run as a script, it registers the class and hands the rest of the command line to lm_eval.
"""

import hashlib
import math

from lm_eval.api.model import LM
from lm_eval.api.registry import register_model

WRONG_TEXT = "(no answer)"


def unit(*parts):
    """A number in (0, 1) fixed by the parts."""
    digest = hashlib.sha256("\x1f".join(parts).encode("utf-8")).digest()
    return (int.from_bytes(digest[:8], "big") + 0.5) / 2.0**64


def difficulty(doc_id):
    u = unit("difficulty", doc_id)
    return math.log(u / (1.0 - u))


def p_correct(ability, doc_id):
    return 1.0 / (1.0 + math.exp(-(ability - difficulty(doc_id))))


@register_model("aptpace-ladder")
class LadderModel(LM):
    def __init__(self, ability=0.0, seed="ladder", mode="ability", **_ignored):
        super().__init__()
        if mode not in ("ability", "oracle", "anti"):
            raise ValueError(f"mode must be ability, oracle or anti, not {mode!r}")
        self.ability = float(ability)
        self.seed = str(seed)
        self.mode = mode

    @classmethod
    def create_from_arg_string(cls, arg_string, additional_config=None):
        args = dict(part.split("=", 1) for part in arg_string.split(",") if part)
        return cls(**args)

    def correct(self, doc):
        if self.mode != "ability":
            return self.mode == "oracle"
        doc_id = str(doc["id"])
        return unit("draw", self.seed, doc_id) < p_correct(self.ability, doc_id)

    def generate_until(self, requests, disable_tqdm=False):
        out = []
        for request in requests:
            doc = request.doc
            out.append(doc["targets"][0] if self.correct(doc) else WRONG_TEXT)
        return out

    def loglikelihood(self, requests, disable_tqdm=False):
        out = []
        for request in requests:
            doc = request.doc
            gold = int(doc["gold"])
            chosen = gold if self.correct(doc) else (gold + 1) % len(doc["choices"])
            out.append((0.0 if request.idx == chosen else -10.0, request.idx == chosen))
        return out

    def loglikelihood_rolling(self, requests, disable_tqdm=False):
        raise NotImplementedError("no aptpace task asks for rolling log-likelihoods")


if __name__ == "__main__":
    from lm_eval.__main__ import cli_evaluate

    cli_evaluate()
