"""scikit-learn's HistGradientBoostingClassifier on rows from stdin (JSON {x, y, test}), printing
its log-odds for the test rows, with the settings of aptpace's boosted trees
(generator/core/questions/audit/boosted-trees.ts): depth 3, 60 rounds, shrinkage 0.1, L2 1,
at least 10 rows per leaf, 16 bins, no early stopping."""

import json
import sys

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

data = json.load(sys.stdin)
model = HistGradientBoostingClassifier(
    max_iter=60,
    max_depth=3,
    learning_rate=0.1,
    l2_regularization=1.0,
    min_samples_leaf=10,
    max_bins=16,
    max_leaf_nodes=None,
    early_stopping=False,
)
model.fit(np.asarray(data["x"], dtype=float), np.asarray(data["y"], dtype=int))
print(json.dumps(model.decision_function(np.asarray(data["test"], dtype=float)).tolist()))
