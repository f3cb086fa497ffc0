"""The data and the tools of workload t (an agent turn): about 1 MB of JSON-like shop data, and six
host tools that answer deterministically from their arguments (the same answer in every column
and every process: values come from `zlib.crc32`, never from the salted `hash`).
"""
from __future__ import annotations

import random
import zlib

REGIONS = ["north", "south", "east", "west", "central"]
COUNTRIES = ["SE", "NO", "FI", "DK", "EE", "LV"]
SEGMENTS = ["consumer", "smb", "enterprise"]
CATEGORIES = ["books", "games", "garden", "kitchen", "office", "outdoor", "tools", "toys"]
CURRENCIES = ["EUR", "SEK", "NOK", "DKK", "USD"]
STATUSES = ["paid", "shipped", "delivered", "delivered", "delivered", "refunded", "cancelled"]
FIRST = ["Ada", "Bo", "Cleo", "Dan", "Eva", "Finn", "Greta", "Hugo", "Ines", "Jon", "Kai", "Lea"]
LAST = ["Berg", "Dahl", "Eklund", "Holm", "Lind", "Nyberg", "Sand", "Strand", "Vik", "Wahl"]
NOTE_WORDS = ["please", "deliver", "after", "5pm", "leave", "at", "door", "gift", "wrap", "the", "box",
              "call", "before", "delivery", "fragile", "invoice", "to", "office", "back", "entrance",
              "urgent", "for", "event", "on", "friday", "no", "plastic", "and", "thanks"]


def _date(rnd: random.Random, months: int = 6) -> str:
    return f"2026-{rnd.randint(1, months):02d}-{rnd.randint(1, 28):02d}"


def _note(rnd: random.Random, i: int) -> str | None:
    if rnd.random() < 0.55:
        return None
    words = [rnd.choice(NOTE_WORDS) for _ in range(rnd.randint(3, 10))]
    if rnd.random() < 0.3:
        words += ["ref", f"#{1000 + i % 997}"]
    text = " ".join(words)
    return text.capitalize() + ("!" if rnd.random() < 0.2 else ".")


def shop_data(scale: float = 1.0) -> dict:
    """{"orders", "customers", "products"}: about 1 MB of JSON at scale 1."""
    rnd = random.Random(18)
    products = []
    for i in range(int(240 * scale) or 8):
        products.append({"sku": f"SKU-{i:04d}", "name": f"{rnd.choice(CATEGORIES).title()} item {i}",
                         "category": rnd.choice(CATEGORIES), "price_cents": rnd.randint(199, 24_999),
                         "tags": rnd.sample(["new", "sale", "eco", "bulk", "gift", "premium"], 2),
                         "discontinued": rnd.random() < 0.08})
    customers = []
    for i in range(int(600 * scale) or 10):
        customers.append({"id": f"C{i:04d}", "name": f"{rnd.choice(FIRST)} {rnd.choice(LAST)}",
                          "email": f"customer{i}@example.com", "region": rnd.choice(REGIONS),
                          "country": rnd.choice(COUNTRIES), "segment": rnd.choice(SEGMENTS),
                          "signup": f"20{rnd.randint(19, 25)}-{rnd.randint(1, 12):02d}-{rnd.randint(1, 28):02d}"})
    orders = []
    for i in range(int(2600 * scale) or 20):
        lines = []
        for _ in range(rnd.randint(1, 4)):
            p = rnd.choice(products)
            qty = rnd.choice([1, 1, 1, 2, 2, 3, 5]) if rnd.random() > 0.01 else 40
            lines.append({"sku": p["sku"], "qty": qty, "unit_cents": p["price_cents"]})
        order = {"id": f"O{i:05d}", "customer_id": rnd.choice(customers)["id"],
                 "created_at": f"{_date(rnd)}T{rnd.randint(0, 23):02d}:{rnd.randint(0, 59):02d}:00Z",
                 "status": rnd.choice(STATUSES), "currency": rnd.choice(CURRENCIES), "lines": lines,
                 "shipping": {"method": rnd.choice(["standard", "standard", "express"]),
                              "country": rnd.choice(COUNTRIES)}}
        note = _note(rnd, i)
        if note is not None:
            order["note"] = note
        orders.append(order)
    return {"orders": orders, "customers": customers, "products": products}


def _num(*parts) -> int:
    return zlib.crc32("/".join(str(p) for p in parts).encode())


# Units of each currency per EUR, times 10,000 (integers: every column computes in whole cents).
RATES_BP = {"EUR": 10_000, "SEK": 115_230, "NOK": 117_410, "DKK": 74_590, "USD": 10_840}


def fx_rates(args: dict) -> dict:
    return {"base": args.get("base", "EUR"), "rates_bp": dict(RATES_BP), "as_of": "2026-06-30"}


def customer_tiers(args: dict) -> list:
    out = []
    for cid in args.get("ids", []):
        n = _num("tier", cid)
        out.append({"id": cid, "tier": ["bronze", "silver", "gold", "platinum"][n % 4],
                    "credit_limit_cents": 200_000 + (n % 50) * 20_000})
    return out


def inventory(args: dict) -> dict:
    sku = args["sku"]
    n = _num("stock", sku)
    return {"sku": sku, "on_hand": n % 120, "reserved": (n >> 8) % 25,
            "warehouse": ["Malmo", "Tampere", "Vejle"][n % 3], "restock_days": 3 + (n >> 4) % 20}


def shipment(args: dict) -> dict:
    oid = args["order_id"]
    n = _num("ship", oid)
    codes = ["label_created", "picked_up", "in_transit", "at_hub", "out_for_delivery"]
    events = [{"at": f"2026-0{1 + (n >> k) % 6}-{10 + k:02d}T08:00:00Z", "code": codes[k]}
              for k in range(1 + n % 5)]
    return {"order_id": oid, "carrier": ["PostNord", "DHL", "Bring", "Omniva"][n % 4],
            "events": events, "eta": f"2026-0{1 + (n >> 3) % 6}-{1 + (n >> 6) % 28:02d}"}


def tickets(args: dict) -> list:
    cid = args["customer_id"]
    subjects = ["Late delivery", "Wrong item", "Invoice question", "Return request", "Damaged box",
                "Change address", "Discount code"]
    out = []
    for k in range(args.get("limit", 5)):
        n = _num("ticket", cid, k)
        out.append({"id": f"T{n % 100_000:05d}", "subject": subjects[n % len(subjects)],
                    "status": ["open", "closed", "pending"][(n >> 5) % 3],
                    "opened": f"2026-0{1 + (n >> 7) % 6}-{1 + (n >> 9) % 28:02d}"})
    return out


def send_report(args: dict) -> dict:
    return {"ok": True, "id": f"R-{_num('report', args.get('title', ''), len(args.get('body', ''))) % 10_000}",
            "recipients": len(args.get("recipients", []))}


TOOLS = {"fx_rates": fx_rates, "customer_tiers": customer_tiers, "inventory": inventory,
         "shipment": shipment, "tickets": tickets, "send_report": send_report}
