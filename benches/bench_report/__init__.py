"""The parts of ``benches/report.py``, the benchmark report against the peers: the data set
(:mod:`.dataset`), running the systems' workers in their own interpreters (:mod:`.runner`),
what the figures mean (:mod:`.summary`) and the Markdown and plots (:mod:`.render`). The workers
themselves (``workers/``) run as scripts in each system's virtual environment and import nothing
of hebbs but the engine's public API."""
