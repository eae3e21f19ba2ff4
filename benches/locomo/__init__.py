"""The LoCoMo evidence-recall evaluation behind ``benches/locomo_eval.py``: data loading, the
script-side BM25 and fusion baselines, the hebbs stores, the settings and the report."""
