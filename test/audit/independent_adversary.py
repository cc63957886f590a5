"""An options-only adversary the builder never trained against.

Reads a question JSONL (``aptpace build`` output), describes every option of every scored MCQ
by surface features computed here from scratch (no code shared with the audit's adversary or
the builder's filter): length, character 3/4/5-gram overlap with the question's own context,
word overlap with the goal and the last observation, JSON structure, share of the option's
argument words the context shows, agreement of a step's plan with its arguments, bigram
fluency under a word model of the context, repeated or unseen capitalised words, tool use, a
finish marker, similarity to the other options (mean, nearest, near copies), the words no other
option has (how many, and whether the goal and the context show them), whether a URL the option
opens is in the last observation or only earlier, and the fluency of a step's plan alone. Each feature is also given as its rank and
z-score within the question. A gradient-boosted classifier (scikit-learn's
HistGradientBoostingClassifier) is cross-fitted over folds grouped by research question /
issue (``provenance.source_group``, else ``instance_id``, else the trajectory), so no question is scored by a model
that saw its source; a question is answered by the option with the highest held-out score.

Prints JSON: per task and language, the number of scored questions, the adversary's accuracy
(ties share credit), chance, and the best single feature read as "pick the highest" or "pick
the lowest". ``--table`` prints a Markdown table instead.

    .venv/bin/python test/audit/independent_adversary.py QUESTIONS.jsonl [--table] [--folds 5]
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from collections import Counter, defaultdict

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier
from sklearn.model_selection import GroupKFold

WORD = re.compile(r"[\u3400-\u9fff]|[A-Za-z0-9_]+")
CAPITALISED = re.compile(r"\b[A-Z][a-z]+\b")
URL = re.compile(r"https?://[^\s\"'<>)\]\\]+")
FINISH = re.compile(r"task_complete|\bsubmit\b|\bfinish\b|final_answer|提交|完成")
MIN_CELL = 30

FEATURES = [
    "log_chars",
    "log_words",
    "char3_overlap",
    "char4_overlap",
    "char5_overlap",
    "goal_overlap",
    "last_observation_overlap",
    "context_word_overlap",
    "args_in_context",
    "plan_args_agreement",
    "is_json",
    "json_keys",
    "arg_count",
    "bigram_fluency",
    "min_bigram",
    "unseen_capitalised",
    "repeated_capitalised",
    "tool_seen_before",
    "finish",
    "mean_similarity",
    "max_similarity",
    "digit_share",
    "punctuation_share",
    "unique_words",
    "unique_in_goal",
    "unique_in_context",
    "url_in_last_observation",
    "url_seen_earlier",
    "plan_fluency",
    "near_copies",
]


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


def ngrams(text: str, n: int) -> set[str]:
    t = text.lower()
    return {t[i : i + n] for i in range(len(t) - n + 1)}


def share(own: set[str], other: set[str]) -> float:
    return len(own & other) / len(own) if own else 0.0


def context_of(q: dict) -> tuple[str, str, str]:
    """The question's own context (its segment after the shots, option texts cut out), its head and its tail."""
    prompt = q["prompt"]
    segment = prompt[q.get("question_start") or 0 :]
    for choice in q["choices"]:
        segment = segment.replace(choice, " ")
    return segment, segment[:800], segment[-2000:]


def parse_step(text: str) -> tuple[dict | None, str, str]:
    """(parsed JSON, plan text, argument text) of an option."""
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if not isinstance(parsed, dict):
        return None, text, text
    plan = str(parsed.get("planning", parsed.get("plan", parsed.get("thought", ""))))
    execution = parsed.get("execution", parsed)
    args = execution.get("args", execution.get("arguments", {})) if isinstance(execution, dict) else {}
    return parsed, plan, json.dumps(args, ensure_ascii=False)


def tool_of(parsed: dict | None, text: str) -> str:
    if parsed is not None:
        execution = parsed.get("execution", parsed)
        if isinstance(execution, dict):
            return str(execution.get("name", execution.get("tool", "")))
    return text.split(" ", 1)[0] if text else ""


class Bigram:
    def __init__(self, tokens: list[str]) -> None:
        self.uni = Counter(tokens)
        self.bi = Counter(zip(tokens, tokens[1:], strict=False))
        self.total = len(tokens)
        self.vocabulary = len(self.uni) + 1

    def scores(self, tokens: list[str]) -> tuple[float, float]:
        if not tokens:
            return 0.0, 0.0
        logs = []
        for i, w in enumerate(tokens):
            p_uni = (self.uni[w] + 1) / (self.total + self.vocabulary)
            if i == 0:
                logs.append(math.log(p_uni))
                continue
            prev = tokens[i - 1]
            p_bi = self.bi[(prev, w)] / self.uni[prev] if self.uni[prev] else 0.0
            logs.append(math.log(0.8 * p_bi + 0.2 * p_uni))
        return sum(logs) / len(logs), min(logs)


def option_rows(q: dict) -> np.ndarray:
    context, head, tail = context_of(q)
    context_words = set(words(context))
    goal_words = set(words(head))
    tail_words = set(words(tail))
    grams = {n: ngrams(context[-30000:], n) for n in (3, 4, 5)}
    model = Bigram(words(context[-30000:]))
    context_capitalised = set(CAPITALISED.findall(context))
    lower_context = context.lower()
    word_sets = [set(words(c)) for c in q["choices"]]
    rows = []
    for i, choice in enumerate(q["choices"]):
        parsed, plan, args = parse_step(choice)
        option_words = words(choice)
        own = word_sets[i]
        arg_words = set(words(args))
        plan_words = set(words(plan))
        fluency, worst = model.scores(option_words)
        capitalised = CAPITALISED.findall(choice)
        counts = Counter(capitalised)
        others = [len(own & word_sets[j]) / max(1, len(own | word_sets[j])) for j in range(len(q["choices"])) if j != i]
        tool = tool_of(parsed, choice)
        # Words no other option has: what a swap or a borrowed step brings in, and where the context shows them.
        unique = own - set().union(*(word_sets[j] for j in range(len(word_sets)) if j != i))
        urls = [u.rstrip(".,;") for u in URL.findall(choice)]
        rows.append(
            [
                math.log1p(len(choice)),
                math.log1p(len(option_words)),
                share(ngrams(choice, 3), grams[3]),
                share(ngrams(choice, 4), grams[4]),
                share(ngrams(choice, 5), grams[5]),
                share(own, goal_words),
                share(own, tail_words),
                share(own, context_words),
                share(arg_words, context_words) if arg_words else 1.0,
                len(plan_words & arg_words) / len(arg_words) if arg_words and parsed is not None else 0.0,
                1.0 if parsed is not None else 0.0,
                float(len(parsed)) if parsed is not None else 0.0,
                float(len(json.loads(args))) if parsed is not None and args.startswith("{") else 0.0,
                fluency,
                worst,
                sum(1 for c in set(capitalised) if c not in context_capitalised) / max(1, len(set(capitalised))),
                sum(n - 1 for n in counts.values()) / max(1, len(capitalised)),
                1.0 if tool and tool.lower() in lower_context else 0.0,
                1.0 if FINISH.search(choice) else 0.0,
                float(np.mean(others)) if others else 0.0,
                float(max(others)) if others else 0.0,
                sum(ch.isdigit() for ch in choice) / max(1, len(choice)),
                sum(not ch.isalnum() and not ch.isspace() for ch in choice) / max(1, len(choice)),
                math.log1p(len(unique)),
                share(unique, goal_words),
                share(unique, context_words),
                1.0 if any(u in tail for u in urls) else 0.0,
                1.0 if any(u in context[: -len(tail)] for u in urls) else 0.0,
                model.scores(words(plan))[0] if parsed is not None else fluency,
                float(sum(1 for o in others if o > 0.7)),
            ]
        )
    raw = np.asarray(rows, dtype=float)
    sd = raw.std(axis=0)
    z = np.where(sd > 1e-9, (raw - raw.mean(axis=0)) / np.where(sd > 1e-9, sd, 1), 0.0)
    rank = raw.argsort(axis=0).argsort(axis=0) / max(1, len(raw) - 1)
    return np.hstack([raw, z, rank])


def argmax_credit(scores: np.ndarray, gold: int) -> float:
    top = scores.max()
    best = np.flatnonzero(np.isclose(scores, top, rtol=0, atol=1e-12))
    return 1.0 / len(best) if gold in best else 0.0


def group_of(q: dict) -> str:
    p = q.get("provenance", {})
    return p.get("source_group") or p.get("instance_id") or p.get("traj_id") or q["id"]


def evaluate(questions: list[dict], folds: int, rows: list[np.ndarray] | None = None) -> dict:
    rows = rows if rows is not None else [option_rows(q) for q in questions]
    groups = [group_of(q) for q in questions]
    credits = np.zeros(len(questions))
    k = min(folds, len(set(groups)))
    if k >= 2:
        x = np.vstack(rows)
        y = np.concatenate([[1 if j == q["gold"] else 0 for j in range(len(q["choices"]))] for q in questions])
        owner = np.concatenate([[i] * len(q["choices"]) for i, q in enumerate(questions)])
        option_groups = [groups[i] for i in owner]
        for train, test in GroupKFold(n_splits=k).split(x, y, option_groups):
            model = HistGradientBoostingClassifier(max_iter=100, learning_rate=0.1, max_leaf_nodes=15, l2_regularization=1.0, random_state=0)
            model.fit(x[train], y[train])
            scores = model.predict_proba(x[test])[:, 1]
            for i in sorted(set(owner[test])):
                mask = owner[test] == i
                credits[i] = argmax_credit(scores[mask], questions[i]["gold"])
    single = {}
    for f, name in enumerate(FEATURES):
        for sign, label in ((1, "highest"), (-1, "lowest")):
            single[f"{name} ({label})"] = float(np.mean([argmax_credit(sign * r[:, f], q["gold"]) for r, q in zip(rows, questions, strict=True)]))
    return {"credits": credits, "single": single, "folds": k}


def cells(questions: list[dict], folds: int) -> list[dict]:
    by_task: dict[str, list[dict]] = defaultdict(list)
    for q in questions:
        if q.get("format") == "mcq" and q.get("split", "test") == "test":
            by_task[q["task"]].append(q)
    out = []
    for task in sorted(by_task):
        members = by_task[task]
        rows = [option_rows(q) for q in members]
        result = evaluate(members, folds, rows)
        languages = sorted({q.get("language", "en") for q in members})
        for language in ["all", *languages]:
            idx = [i for i, q in enumerate(members) if language == "all" or q.get("language", "en") == language]
            n = len(idx)
            chance = float(np.mean([1 / len(members[i]["choices"]) for i in idx]))
            accuracy = float(np.mean(result["credits"][idx])) if result["folds"] >= 2 else None
            sub = [members[i] for i in idx]
            single = evaluate(sub, 0, [rows[i] for i in idx])["single"] if language != "all" else result["single"]
            best = max(single.items(), key=lambda kv: kv[1])
            out.append(
                {
                    "task": task,
                    "language": language,
                    "n": n,
                    "chance": chance,
                    "accuracy": accuracy,
                    "excess_points": None if accuracy is None else 100 * (accuracy - chance),
                    "gated": language != "all" and n >= MIN_CELL,
                    "best_single_feature": best[0],
                    "best_single_accuracy": best[1],
                }
            )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("questions")
    parser.add_argument("--table", action="store_true")
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    with open(args.questions, encoding="utf-8") as f:
        questions = [json.loads(line) for line in f if line.strip()]
    result = cells(questions, args.folds)
    if not args.table:
        json.dump(result, sys.stdout, ensure_ascii=False, indent=1)
        return
    print("| task | language | n | chance | adversary | best single feature |")
    print("| --- | --- | --- | --- | --- | --- |")
    for c in result:
        acc = "—" if c["accuracy"] is None else f"{100 * c['accuracy']:.1f}% ({c['excess_points']:+.1f})"
        print(f"| {c['task']} | {c['language']} | {c['n']} | {100 * c['chance']:.1f}% | {acc} | {c['best_single_feature']} {100 * c['best_single_accuracy']:.1f}% |")


if __name__ == "__main__":
    main()
