"""What the agent host calls to open a run's trace: the public facts of the run's setup.

Owns `start_run_trace(host, run, env, task=None, source=None)`: starts a
run in `host.trace` (a TraceWriter) and writes its `run_start` event:
models (alias -> provider kind and resolved model), the host limits, the
preludes attached to the workflow and to each mission (namespace, origin
file name, key, export count), and per mission the number of data names and
the capability names.  The task and a workflow file's source are private
evidence; the public event has their sizes and digests.  Imports
trace.usage and trace.plain_data (duck-typed host objects; it does
not import ptclisp.agent).  A directory that cannot be created leaves the
run untraced (a warning on the `ptclisp.trace` logger), never failed.
"""
from __future__ import annotations


import attrs

from .plain_data import prelude_list
from .usage import provider_identity
from ..errors import logger

log = logger("ptclisp.trace")


def start_run_trace(host, run, env, *, task=None, source=None):
    """The run's RunTrace with its `run_start` written; None (and a warning) when its directory cannot be made."""
    try:
        trace = host.trace.start_run()
    except OSError as e:
        log.warning("cannot start a trace in %s: %s; the run goes on untraced", host.trace.directory, e)
        return None
    router = host.router
    models = {}
    for alias in router.aliases:
        kind, model = provider_identity(router, alias)
        models[alias] = {"provider": kind, "model": model}
    try:
        limits = attrs.asdict(host.limits)
    except Exception:  # noqa: BLE001 - limits of an unexpected type: leave them out
        limits = {}
    missions = {}
    mission_preludes = {}
    for name, session in run.sessions.items():
        data = getattr(session.mission, "data", None) or {}
        missions[name] = {"data_names": len(data),
                          "capabilities": sorted(getattr(session.tools, "caps", {}) or {})}
        mission_preludes[name] = prelude_list(session.env)
    trace.start(models=models, limits=limits, missions=missions, task=task, source=source,
                preludes={"workflow": prelude_list(env), "missions": mission_preludes},
                extra={"default_model": getattr(router, "default", None)})
    return trace
