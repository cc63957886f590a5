"""Fits scikit-learn's LogisticRegression on the JSON {x, y, c} read from stdin and prints
{weights, intercept}: the reference the audit's own Newton fit is checked against."""
import json
import sys

import numpy as np
from sklearn.linear_model import LogisticRegression


def main() -> None:
    data = json.load(sys.stdin)
    x = np.asarray(data["x"], dtype=float)
    y = np.asarray(data["y"], dtype=int)
    model = LogisticRegression(C=float(data["c"]), solver="lbfgs", tol=1e-12, max_iter=100000)
    model.fit(x, y)
    json.dump({"weights": model.coef_[0].tolist(), "intercept": float(model.intercept_[0])}, sys.stdout)


if __name__ == "__main__":
    main()
