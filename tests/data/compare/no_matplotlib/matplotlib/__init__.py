# Stands in for a missing matplotlib: the e2e test puts this folder first on PYTHONPATH to
# check that `tribench report` says clearly what is missing.
raise ImportError("No module named 'matplotlib' (simulated by tests/data/compare/no_matplotlib)")
