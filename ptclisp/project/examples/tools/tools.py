"""The tools of the example agent: plain Python functions.

ptclisp reads each signature: `customer(customer_id: str)` is offered to the model as
(tool/customer {"customer_id" customer-id}) with customer_id a string; a call with a missing or
mistyped argument is refused before the function runs.
"""
from typing import Literal

CUSTOMERS = {
    "c01": {"name": "Ada Lovelace", "tier": "gold"},
    "c02": {"name": "Grace Hopper", "tier": "silver"},
    "c03": {"name": "Alan Turing", "tier": "gold"},
    "c04": {"name": "Edsger Dijkstra", "tier": "bronze"},
}

RATES = {"EUR": 0.92, "GBP": 0.79}


def customer(customer_id: str) -> dict:
    """Look up a customer by id: their name and tier (null when there is no such customer)."""
    found = CUSTOMERS.get(customer_id)
    return dict(found, customer_id=customer_id) if found else None


def exchange_rate(currency: Literal["EUR", "GBP"]) -> float:
    """How many units of `currency` one US dollar buys."""
    return RATES[currency]
