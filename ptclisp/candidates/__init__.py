"""Improving a project's agent between runs: candidates, a static gate, trials, human promotion.

The slow loop: failed runs -> a proposed change to one component (`candidate new`, or the
debugging agent of `candidate propose`) -> the static gate (gate.py) -> a trial against the
incumbent on a task suite, on the `bench agent` engine (trial.py) -> a person promotes it
(promote.py), which writes it into ptclisp.toml and appends a promotion record.  Every step is
recorded under `P/.ptclisp/` (store.py); nothing here changes the project except `promote`.
Modules: components (ids and sources), store, gate, trial, promote, propose, cli (the command).
"""
