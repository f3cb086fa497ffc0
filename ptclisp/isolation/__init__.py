"""Evaluations in other processes (`isolation="process"`).

    process.py  running one evaluation in a child process under OS limits, and the child's side
    pool.py     the warm worker processes (fork server, bounded pool)
"""
