"""The agent library's host: run the shipped agent preludes against models and missions.

The agent loop itself is Lisp (`ptclisp.preludes`: agent.main, agent.core,
agent.prompt and their helpers).  This package supplies what those preludes
call on the host: the model router behind `tool/llm-request`, mission
sessions behind `tool/kernel-eval`, source checks, the mission model
context, result-contract validation and the typed aborts.

    from ptclisp.agent import AgentHost, Mission, Capability
    from ptclisp.providers import ScriptedProvider
    host = AgentHost(models={"m": ScriptedProvider([...])},
                     missions={"default": Mission(data={"xs": [1, 2, 3]})})
    out = host.run_entry("agent.main/run", {"task": "Sum data/xs", "agent": {"max_turns": 4}})
    out.ok, out.value, out.error

The `ptclisp agent` command lives in `ptclisp.commands.agent` (and `python -m
ptclisp.agent`); this package does not import it.
"""
from .errors import HostAbort, RunError
from .host import AgentHost, AgentOutcome, WorkflowSession
from .library import SHIPPED, components, shipped_source
from .limits import AgentLimits
from .mission import Capability, Evaluation, Mission, MissionSession
from .result_contract import ResultContract

__all__ = [
    "AgentHost", "AgentOutcome", "WorkflowSession", "Mission", "Capability", "MissionSession", "Evaluation",
    "AgentLimits", "ResultContract", "RunError", "HostAbort", "SHIPPED", "components", "shipped_source",
]
