"""Build the `data-qa` suite: four seeded datasets and the task manifest.

Run from anywhere:

    python ptclisp/bench_agent/suites/data-qa/generate.py          # (re)write data/*.json and manifest.json
    python ptclisp/bench_agent/suites/data-qa/generate.py --check  # exit 1 if the committed files differ

Everything is derived from one `random.Random(SEED)`, using only `random()`,
`randint`, `choice` and `choices`, whose outputs are stable across Python
versions.  Every expected answer is computed by a plain-Python reference
function over the generated records; ptclisp takes no part in it.  Each task
also carries a reference PTC-Lisp solution (one or more programs, run in
order in one session) that the scripted reference model sends; the suite
tests check those solutions against the Python answers.
"""
from __future__ import annotations

import datetime as dt
import json
import pathlib
import random
import statistics
import sys
from collections import Counter, defaultdict

SEED = 20260901
HERE = pathlib.Path(__file__).resolve().parent
COUNTS = {"products": 500, "orders": 1000, "employees": 200, "expenses": 800}

CATEGORIES = [("Electronics", 14, 40, 1500), ("Books", 16, 5, 80), ("Home", 14, 10, 400),
              ("Garden", 10, 8, 350), ("Toys", 12, 5, 150), ("Sports", 12, 10, 600),
              ("Clothing", 12, 8, 250), ("Grocery", 10, 1, 60)]
ADJECTIVES = ["Amber", "Bold", "Brisk", "Calm", "Clever", "Cozy", "Crisp", "Daring", "Eager", "Fancy",
              "Gentle", "Golden", "Happy", "Humble", "Jolly", "Lively", "Lucky", "Mellow", "Noble", "Polar",
              "Quiet", "Rapid", "Rustic", "Silver", "Sunny"]
NOUNS = ["Anchor", "Basket", "Beacon", "Blender", "Bottle", "Candle", "Compass", "Cushion", "Drone", "Easel",
         "Fountain", "Globe", "Hammock", "Helmet", "Kettle", "Lantern", "Mixer", "Notebook", "Puzzle", "Racket",
         "Scarf", "Skillet", "Speaker", "Teapot", "Wallet"]
FIRST = ["Ada", "Ben", "Cara", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivan", "Jade", "Kai", "Lena", "Milo", "Nia",
         "Omar", "Pia", "Quinn", "Rosa", "Sami", "Tara", "Uma", "Vik", "Wren", "Xena", "Yuri", "Zoe", "Abel",
         "Bea", "Cyrus", "Dina"]
LAST = ["Abbott", "Barker", "Castro", "Dalton", "Ebert", "Fischer", "Garcia", "Holm", "Ito", "Jensen", "Kowal",
        "Larsen", "Moreau", "Nakamura", "Okafor", "Petrov", "Quist", "Rossi", "Silva", "Tanaka", "Urban", "Varga",
        "Weber", "Xu", "Young", "Zeller", "Alves", "Brandt", "Conti", "Duarte"]
DEPARTMENTS = [("Engineering", 60, 95000), ("Sales", 40, 70000), ("Support", 30, 52000),
               ("Marketing", 20, 68000), ("Operations", 20, 60000), ("Finance", 15, 80000), ("HR", 15, 62000)]
TITLES = {1: "Associate", 2: "Specialist", 3: "Senior", 4: "Lead", 5: "Manager"}
CITIES = ["Berlin", "Lisbon", "Toronto", "Austin", "Osaka", "Nairobi"]
STATUSES = [("delivered", 55), ("shipped", 18), ("pending", 12), ("cancelled", 9), ("returned", 6)]
REGIONS = ["north", "south", "east", "west"]
DISCOUNTS = [0.0, 0.0, 0.0, 0.05, 0.1, 0.2]
EXPENSE_CATEGORIES = [("travel", 25, 80, 2500), ("meals", 30, 8, 180), ("software", 12, 10, 900),
                      ("hardware", 10, 40, 2200), ("training", 8, 100, 1800), ("office", 15, 5, 300)]
VENDORS = ["Acme", "Globex", "Initech", "Umbrella", "Hooli", "Vandelay", "Stark", "Wayne", "Wonka", "Tyrell"]


def _date(rng: random.Random, start: dt.date, end: dt.date) -> str:
    return (start + dt.timedelta(days=rng.randint(0, (end - start).days))).isoformat()


def _weighted(rng: random.Random, pairs):
    return rng.choices([p[0] for p in pairs], weights=[p[1] for p in pairs])[0]


def make_datasets(seed: int = SEED) -> dict:
    rng = random.Random(seed)
    names = [f"{a} {n}" for a in ADJECTIVES for n in NOUNS]
    rng.shuffle(names)
    products = []
    for i in range(1, COUNTS["products"] + 1):
        cat = rng.choices(CATEGORIES, weights=[c[1] for c in CATEGORIES])[0]
        lo, hi = cat[2], cat[3]
        price = round(lo + (hi - lo) * rng.random() ** 2, 2)
        stock = 0 if rng.random() < 0.1 else rng.randint(1, 500)
        products.append({
            "id": f"P{i:04d}", "name": names[i - 1], "category": cat[0], "price": price, "stock": stock,
            "rating": round(1 + 4 * rng.random() ** 0.7, 1), "supplier": f"S{rng.randint(1, 20):02d}",
            "discontinued": rng.random() < 0.08,
            "launched": _date(rng, dt.date(2018, 1, 1), dt.date(2024, 6, 30)),
        })

    people = [f"{f} {l}" for f in FIRST for l in LAST]
    rng.shuffle(people)
    employees = []
    for i in range(1, COUNTS["employees"] + 1):
        dept = rng.choices(DEPARTMENTS, weights=[d[1] for d in DEPARTMENTS])[0]
        level = rng.choices([1, 2, 3, 4, 5], weights=[25, 30, 25, 14, 6])[0]
        salary = int(round(dept[2] * (0.7 + 0.25 * level) * (0.85 + 0.3 * rng.random()), -2))
        employees.append({
            "id": f"E{i:03d}", "name": people[i - 1], "department": dept[0], "title": TITLES[level],
            "level": level, "salary": salary, "hire_date": _date(rng, dt.date(2008, 1, 1), dt.date(2024, 9, 30)),
            "manager_id": None, "location": rng.choice(CITIES), "remote": rng.random() < 0.25,
        })
    by_dept = defaultdict(list)
    for e in employees:
        by_dept[e["department"]].append(e)
    for members in by_dept.values():
        ranked = sorted(members, key=lambda e: (-e["level"], e["id"]))
        managers = ranked[:3]
        for e in members:
            if e not in managers:
                e["manager_id"] = rng.choices(managers, weights=[5, 3, 2])[0]["id"]

    sales_ids = [e["id"] for e in employees if e["department"] == "Sales"]
    weights = [1 + 6 * rng.random() ** 3 for _ in products]
    orders = []
    for i in range(1, COUNTS["orders"] + 1):
        product = rng.choices(products, weights=weights)[0]
        orders.append({
            "id": f"O{i:05d}", "product_id": product["id"], "customer": f"C{rng.randint(1, 150):03d}",
            "quantity": rng.choices(range(1, 11), weights=[30, 20, 14, 10, 8, 6, 5, 3, 2, 2])[0],
            "date": _date(rng, dt.date(2024, 1, 1), dt.date(2024, 12, 31)),
            "status": _weighted(rng, STATUSES), "region": rng.choice(REGIONS),
            "discount": rng.choice(DISCOUNTS), "sales_rep": rng.choice(sales_ids),
        })

    expenses = []
    for i in range(1, COUNTS["expenses"] + 1):
        cat = rng.choices(EXPENSE_CATEGORIES, weights=[c[1] for c in EXPENSE_CATEGORIES])[0]
        expenses.append({
            "id": f"X{i:04d}", "employee_id": rng.choice(employees)["id"], "category": cat[0],
            "amount": round(cat[2] + (cat[3] - cat[2]) * rng.random() ** 2.5, 2),
            "date": _date(rng, dt.date(2024, 1, 1), dt.date(2024, 12, 31)),
            "status": rng.choices(["approved", "pending", "rejected"], weights=[70, 15, 15])[0],
            "vendor": rng.choice(VENDORS),
        })
    return {"products": products, "orders": orders, "employees": employees, "expenses": expenses}


# ------------------------------------------------------------------------------------------------
# Plain-Python helpers for the reference answers
# ------------------------------------------------------------------------------------------------
def _price(d):
    return {p["id"]: p["price"] for p in d["products"]}


def _revenue(o, price):
    return o["quantity"] * price[o["product_id"]] * (1 - o["discount"])


def _top(scores: dict, n: int, name: str):
    """Keys of the n best scores (value descending, key ascending); insists the cut is not a near-tie."""
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    if n < len(ranked):
        gap = ranked[n - 1][1] - ranked[n][1]
        if isinstance(gap, float) and gap < 0.01:
            raise AssertionError(f"{name}: near-tie at the top-{n} boundary")
    return [k for k, _ in ranked[:n]]


def _argmax(scores: dict, name: str):
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    if len(ranked) > 1 and abs(ranked[0][1] - ranked[1][1]) < 0.01:
        raise AssertionError(f"{name}: the maximum is tied")
    return ranked[0][0]


def _sum_by(rows, key, value):
    out = defaultdict(float)
    for r in rows:
        out[key(r)] += value(r)
    return dict(out)


# ------------------------------------------------------------------------------------------------
# Tasks.  `answer(d)` is the reference; `check` builds the validator from the answer;
# `ptc` is the reference PTC-Lisp solution (a list of programs sent on successive turns).
# ------------------------------------------------------------------------------------------------
def exact(v):
    return {"type": "exact", "expected": v}


def tol(abs_tol):
    return lambda v: {"type": "tolerance", "expected": v, "abs": abs_tol}


def seq(v):
    return {"type": "sequence", "expected": v}


def as_set(v):
    return {"type": "set", "expected": sorted(v)}


def around(width):
    return lambda v: {"type": "range", "min": round(v - width, 6), "max": round(v + width, 6)}


MAP_CLOSE = ("(let [a data/answer e data/expected] "
             "(and (map? a) (= (set (map str (keys a))) (set (keys e))) "
             "(every? (fn [[k v]] (and (number? v) (< (abs (- v (get e k))) 0.01))) a)))")


def map_close(v):
    return {"type": "lisp", "expected": v, "predicate": MAP_CLOSE}


TASKS = [
    # -- level 1: counts and filters ------------------------------------------------------------
    dict(id="l1-electronics-count", level=1, tags=["count", "filter"], data=["products"],
         question="How many products are in the Electronics category? Answer with an integer.",
         answer=lambda d: sum(1 for p in d["products"] if p["category"] == "Electronics"), check=exact,
         ptc=['(return (count (filter #(= "Electronics" (get % "category")) data/products)))']),
    dict(id="l1-cancelled-orders", level=1, tags=["count", "filter"], data=["orders"],
         question="How many orders have the status \"cancelled\"? Answer with an integer.",
         answer=lambda d: sum(1 for o in d["orders"] if o["status"] == "cancelled"), check=exact,
         ptc=['(return (count (filter #(= "cancelled" (get % "status")) data/orders)))']),
    dict(id="l1-remote-employees", level=1, tags=["count", "filter"], data=["employees"],
         question="How many employees work remotely? Answer with an integer.",
         answer=lambda d: sum(1 for e in d["employees"] if e["remote"]), check=exact,
         ptc=['(return (count (filter #(get % "remote") data/employees)))']),
    dict(id="l1-large-expenses", level=1, tags=["count", "filter"], data=["expenses"],
         question="How many expense records have an amount greater than 500? Answer with an integer.",
         answer=lambda d: sum(1 for x in d["expenses"] if x["amount"] > 500), check=exact,
         ptc=['(return (count (filter #(> (get % "amount") 500) data/expenses)))']),
    dict(id="l1-premium-product-ids", level=1, tags=["filter", "sort"], data=["products"],
         question="List the ids of all products priced above 1200, sorted in ascending order. "
                  "Answer with a list of id strings.",
         answer=lambda d: sorted(p["id"] for p in d["products"] if p["price"] > 1200), check=seq,
         ptc=['(return (sort (map #(get % "id") (filter #(> (get % "price") 1200) data/products))))']),
    dict(id="l1-march-orders", level=1, tags=["count", "filter", "dates"], data=["orders"],
         question="How many orders were placed in March 2024? Order dates are YYYY-MM-DD strings. "
                  "Answer with an integer.",
         answer=lambda d: sum(1 for o in d["orders"] if o["date"].startswith("2024-03")), check=exact,
         ptc=['(return (count (filter #(str/starts-with? (get % "date") "2024-03") data/orders)))']),
    dict(id="l1-early-hr-hires", level=1, tags=["filter", "sort", "dates"], data=["employees"],
         question="Which employees in the HR department were hired before 2015-01-01? "
                  "Answer with their names as a list sorted alphabetically.",
         answer=lambda d: sorted(e["name"] for e in d["employees"]
                                 if e["department"] == "HR" and e["hire_date"] < "2015-01-01"), check=seq,
         ptc=['(return (sort (map #(get % "name") (filter #(and (= "HR" (get % "department")) '
              '(neg? (compare (get % "hire_date") "2015-01-01"))) data/employees))))']),
    dict(id="l1-distinct-customers", level=1, tags=["count", "distinct"], data=["orders"],
         question="How many distinct customers placed at least one order? Answer with an integer.",
         answer=lambda d: len({o["customer"] for o in d["orders"]}), check=exact,
         ptc=['(return (count (distinct (map #(get % "customer") data/orders))))']),
    dict(id="l1-pending-hardware", level=1, tags=["count", "filter"], data=["expenses"],
         question="How many expenses in the \"hardware\" category are still pending? Answer with an integer.",
         answer=lambda d: sum(1 for x in d["expenses"]
                              if x["category"] == "hardware" and x["status"] == "pending"), check=exact,
         ptc=['(return (count (filter #(and (= "hardware" (get % "category")) (= "pending" (get % "status"))) '
              'data/expenses)))']),
    dict(id="l1-rich-support", level=1, tags=["filter", "boolean"], data=["employees"],
         question="Is there any employee in the Support department with a salary above 90000? "
                  "Answer with true or false.",
         answer=lambda d: any(e["department"] == "Support" and e["salary"] > 90000 for e in d["employees"]),
         check=exact,
         ptc=['(return (boolean (some #(and (= "Support" (get % "department")) (> (get % "salary") 90000)) '
              'data/employees)))']),
    dict(id="l1-supplier-rated", level=1, tags=["count", "filter"], data=["products"],
         question="How many products from supplier S07 have a rating of at least 4.0? Answer with an integer.",
         answer=lambda d: sum(1 for p in d["products"] if p["supplier"] == "S07" and p["rating"] >= 4.0),
         check=exact,
         ptc=['(return (count (filter #(and (= "S07" (get % "supplier")) (>= (get % "rating") 4.0)) '
              'data/products)))']),
    dict(id="l1-dead-stock-categories", level=1, tags=["filter", "set"], data=["products"],
         question="Which product categories contain at least one discontinued product with zero stock? "
                  "Answer with a list of category names in any order.",
         answer=lambda d: {p["category"] for p in d["products"] if p["discontinued"] and p["stock"] == 0},
         check=as_set,
         ptc=['(return (vec (distinct (map #(get % "category") '
              '(filter #(and (get % "discontinued") (zero? (get % "stock"))) data/products)))))']),

    # -- level 2: aggregates and extremes -------------------------------------------------------
    dict(id="l2-total-stock", level=2, tags=["aggregate", "sum"], data=["products"],
         question="What is the total number of units in stock across all products? Answer with an integer.",
         answer=lambda d: sum(p["stock"] for p in d["products"]), check=exact,
         ptc=['(return (reduce + (map #(get % "stock") data/products)))']),
    dict(id="l2-average-price", level=2, tags=["aggregate", "mean"], data=["products"],
         question="What is the average product price? Answer with a number (two decimals are enough).",
         answer=lambda d: statistics.fmean(p["price"] for p in d["products"]), check=tol(0.01),
         ptc=['(let [ps (map #(get % "price") data/products)] (return (/ (reduce + ps) (count ps))))']),
    dict(id="l2-most-expensive", level=2, tags=["extreme"], data=["products"],
         question="What is the name of the most expensive product? Answer with the name as a string.",
         answer=lambda d: _argmax({p["name"]: p["price"] for p in d["products"]}, "most expensive"), check=exact,
         ptc=['(return (get (apply max-key #(get % "price") data/products) "name"))']),
    dict(id="l2-approved-expense-total", level=2, tags=["aggregate", "sum", "filter"], data=["expenses"],
         question="What is the total amount of all approved expenses? Answer with a number.",
         answer=lambda d: sum(x["amount"] for x in d["expenses"] if x["status"] == "approved"),
         check=tol(0.01),
         ptc=['(return (reduce + (map #(get % "amount") (filter #(= "approved" (get % "status")) data/expenses))))']),
    dict(id="l2-engineering-salary", level=2, tags=["aggregate", "mean", "filter"], data=["employees"],
         question="What is the average salary in the Engineering department? Answer with a number.",
         answer=lambda d: statistics.fmean(e["salary"] for e in d["employees"] if e["department"] == "Engineering"),
         check=tol(0.5),
         ptc=['(let [s (map #(get % "salary") (filter #(= "Engineering" (get % "department")) data/employees))] '
              '(return (/ (reduce + s) (count s))))']),
    dict(id="l2-first-hire", level=2, tags=["extreme", "dates"], data=["employees"],
         question="On which date was the earliest-hired employee hired? Answer with a YYYY-MM-DD string.",
         answer=lambda d: min(e["hire_date"] for e in d["employees"]), check=exact,
         ptc=['(return (first (sort (map #(get % "hire_date") data/employees))))']),
    dict(id="l2-delivered-units", level=2, tags=["aggregate", "sum", "filter"], data=["orders"],
         question="How many units in total were ordered in orders with status \"delivered\"? Answer with an integer.",
         answer=lambda d: sum(o["quantity"] for o in d["orders"] if o["status"] == "delivered"), check=exact,
         ptc=['(return (reduce + (map #(get % "quantity") (filter #(= "delivered" (get % "status")) data/orders))))']),
    dict(id="l2-median-salary", level=2, tags=["aggregate", "median"], data=["employees"],
         question="What is the median salary over all employees (the mean of the two middle values when the "
                  "count is even)? Answer with a number.",
         answer=lambda d: statistics.median(e["salary"] for e in d["employees"]), check=tol(0.5),
         ptc=['(def salaries (vec (sort (map #(get % "salary") data/employees))))',
              '(let [n (count salaries) h (quot n 2)] (return (if (even? n) '
              '(/ (+ (nth salaries (dec h)) (nth salaries h)) 2.0) (nth salaries h))))']),
    dict(id="l2-largest-department", level=2, tags=["group", "extreme"], data=["employees"],
         question="Which department has the most employees? Answer with the department name.",
         answer=lambda d: _argmax(Counter(e["department"] for e in d["employees"]), "largest department"),
         check=exact,
         ptc=['(return (key (apply max-key val (frequencies (map #(get % "department") data/employees)))))']),
    dict(id="l2-status-counts", level=2, tags=["group", "count"], data=["orders"],
         question="How many orders are there per status? Answer with a map from status name to count.",
         answer=lambda d: dict(sorted(Counter(o["status"] for o in d["orders"]).items())), check=exact,
         ptc=['(return (frequencies (map #(get % "status") data/orders)))']),
    dict(id="l2-lost-order-share", level=2, tags=["aggregate", "percentage"], data=["orders"],
         question="What percentage of orders were cancelled or returned? Answer with a number between 0 and 100.",
         answer=lambda d: 100 * sum(1 for o in d["orders"] if o["status"] in ("cancelled", "returned"))
         / len(d["orders"]), check=around(0.5),
         ptc=['(return (* 100.0 (/ (count (filter #(contains? #{"cancelled" "returned"} (get % "status")) '
              'data/orders)) (count data/orders))))']),
    dict(id="l2-expense-by-category", level=2, tags=["group", "sum"], data=["expenses"],
         question="What is the total expense amount per expense category (all statuses)? "
                  "Answer with a map from category to total amount.",
         answer=lambda d: _sum_by(d["expenses"], lambda x: x["category"], lambda x: x["amount"]), check=map_close,
         ptc=['(return (update-vals (group-by #(get % "category") data/expenses) '
              '(fn [xs] (reduce + (map #(get % "amount") xs)))))']),

    # -- level 3: top-N, multi-step, joins -------------------------------------------------------
    dict(id="l3-top-products-revenue", level=3, tags=["join", "top-n"], data=["products", "orders"],
         question="Revenue of an order is quantity x product price x (1 - discount). Considering all orders "
                  "except cancelled ones, which 5 products earned the most revenue? Answer with their product "
                  "ids as a list, highest revenue first.",
         answer=lambda d: _top(_sum_by([o for o in d["orders"] if o["status"] != "cancelled"],
                                       lambda o: o["product_id"], lambda o: _revenue(o, _price(d))), 5,
                               "top products"), check=seq,
         ptc=['(def price (into {} (map (juxt #(get % "id") #(get % "price")) data/products)))',
              '(def revenue (reduce (fn [acc o] (update acc (get o "product_id") (fnil + 0) '
              '(* (get o "quantity") (get price (get o "product_id")) (- 1 (get o "discount"))))) {} '
              '(remove #(= "cancelled" (get % "status")) data/orders)))',
              '(return (mapv key (take 5 (sort-by (juxt (comp - val) key) revenue))))']),
    dict(id="l3-best-region", level=3, tags=["join", "extreme"], data=["products", "orders"],
         question="Revenue of an order is quantity x product price x (1 - discount). Which region has the "
                  "highest revenue from delivered orders? Answer with the region name.",
         answer=lambda d: _argmax(_sum_by([o for o in d["orders"] if o["status"] == "delivered"],
                                          lambda o: o["region"], lambda o: _revenue(o, _price(d))), "region"),
         check=exact,
         ptc=['(def price (into {} (map (juxt #(get % "id") #(get % "price")) data/products)))',
              '(return (key (apply max-key val (update-vals (group-by #(get % "region") '
              '(filter #(= "delivered" (get % "status")) data/orders)) '
              '(fn [os] (reduce + (map #(* (get % "quantity") (get price (get % "product_id")) '
              '(- 1 (get % "discount"))) os)))))))']),
    dict(id="l3-top-customers", level=3, tags=["group", "top-n"], data=["orders"],
         question="Which 3 customers placed the most orders? Break ties by customer id in ascending order. "
                  "Answer with the customer ids as a list, most orders first.",
         answer=lambda d: _top(Counter(o["customer"] for o in d["orders"]), 3, "top customers"), check=seq,
         ptc=['(return (mapv key (take 3 (sort-by (juxt (comp - val) key) '
              '(frequencies (map #(get % "customer") data/orders))))))']),
    dict(id="l3-dept-expenses", level=3, tags=["join", "group", "sum"], data=["employees", "expenses"],
         question="What is the total amount of approved expenses per department of the employee who filed "
                  "them? Answer with a map from department name to total (leave out departments without "
                  "approved expenses).",
         answer=lambda d: _sum_by([x for x in d["expenses"] if x["status"] == "approved"],
                                  lambda x: {e["id"]: e["department"] for e in d["employees"]}[x["employee_id"]],
                                  lambda x: x["amount"]), check=map_close,
         ptc=['(def dept (into {} (map (juxt #(get % "id") #(get % "department")) data/employees)))',
              '(return (update-vals (group-by #(get dept (get % "employee_id")) '
              '(filter #(= "approved" (get % "status")) data/expenses)) '
              '(fn [xs] (reduce + (map #(get % "amount") xs)))))']),
    dict(id="l3-top-sales-rep", level=3, tags=["join", "extreme"], data=["products", "orders", "employees"],
         question="Revenue of an order is quantity x product price x (1 - discount). Which sales rep has the "
                  "highest revenue over shipped and delivered orders? Answer with the employee's name.",
         answer=lambda d: {e["id"]: e["name"] for e in d["employees"]}[_argmax(_sum_by(
             [o for o in d["orders"] if o["status"] in ("shipped", "delivered")],
             lambda o: o["sales_rep"], lambda o: _revenue(o, _price(d))), "sales rep")], check=exact,
         ptc=['(def price (into {} (map (juxt #(get % "id") #(get % "price")) data/products)))',
              '(def by-rep (update-vals (group-by #(get % "sales_rep") '
              '(filter #(contains? #{"shipped" "delivered"} (get % "status")) data/orders)) '
              '(fn [os] (reduce + (map #(* (get % "quantity") (get price (get % "product_id")) '
              '(- 1 (get % "discount"))) os)))))',
              '(let [best (key (apply max-key val by-rep))] '
              '(return (get (first (filter #(= best (get % "id")) data/employees)) "name")))']),
    dict(id="l3-category-avg-quantity", level=3, tags=["join", "mean", "extreme"], data=["products", "orders"],
         question="Over all orders, which product category has the highest average order quantity? "
                  "Answer with the category name.",
         answer=lambda d: _argmax({c: statistics.fmean(q) for c, q in _group_values(
             d["orders"], lambda o: {p["id"]: p["category"] for p in d["products"]}[o["product_id"]],
             lambda o: o["quantity"]).items()}, "category quantity"), check=exact,
         ptc=['(def cat (into {} (map (juxt #(get % "id") #(get % "category")) data/products)))',
              '(return (key (apply max-key val (update-vals (group-by #(get cat (get % "product_id")) data/orders) '
              '(fn [os] (/ (reduce + (map #(get % "quantity") os)) (count os)))))))']),
    dict(id="l3-heavy-spenders", level=3, tags=["join", "filter", "set"], data=["employees", "expenses"],
         question="Which employees have total approved expenses greater than 4% of their salary? "
                  "Answer with their employee ids in any order.",
         answer=lambda d: _heavy_spenders(d, 0.04), check=as_set,
         ptc=['(def spent (update-vals (group-by #(get % "employee_id") '
              '(filter #(= "approved" (get % "status")) data/expenses)) '
              '(fn [xs] (reduce + (map #(get % "amount") xs)))))',
              '(return (vec (map #(get % "id") (filter #(> (get spent (get % "id") 0) '
              '(* 0.04 (get % "salary"))) data/employees))))']),
    dict(id="l3-best-month", level=3, tags=["join", "group", "dates"], data=["products", "orders"],
         question="Revenue of an order is quantity x product price x (1 - discount). In which month of 2024 "
                  "was the revenue of non-cancelled orders highest? Answer with a YYYY-MM string.",
         answer=lambda d: _argmax(_sum_by([o for o in d["orders"] if o["status"] != "cancelled"],
                                          lambda o: o["date"][:7], lambda o: _revenue(o, _price(d))), "month"),
         check=exact,
         ptc=['(def price (into {} (map (juxt #(get % "id") #(get % "price")) data/products)))',
              '(return (key (apply max-key val (update-vals (group-by #(subs (get % "date") 0 7) '
              '(remove #(= "cancelled" (get % "status")) data/orders)) '
              '(fn [os] (reduce + (map #(* (get % "quantity") (get price (get % "product_id")) '
              '(- 1 (get % "discount"))) os)))))))']),
    dict(id="l3-discontinued-orders", level=3, tags=["join", "count"], data=["products", "orders"],
         question="How many orders are for products that are discontinued? Answer with an integer.",
         answer=lambda d: sum(1 for o in d["orders"]
                              if o["product_id"] in {p["id"] for p in d["products"] if p["discontinued"]}),
         check=exact,
         ptc=['(def gone (set (map #(get % "id") (filter #(get % "discontinued") data/products))))',
              '(return (count (filter #(contains? gone (get % "product_id")) data/orders)))']),
    dict(id="l3-busiest-manager", level=3, tags=["self-join", "extreme"], data=["employees"],
         question="Which manager has the most direct reports (employees whose manager_id is the manager's id)? "
                  "Answer with the manager's name.",
         answer=lambda d: {e["id"]: e["name"] for e in d["employees"]}[_argmax(
             Counter(e["manager_id"] for e in d["employees"] if e["manager_id"]), "manager")], check=exact,
         ptc=['(let [top (key (apply max-key val (frequencies (keep #(get % "manager_id") data/employees))))] '
              '(return (get (first (filter #(= top (get % "id")) data/employees)) "name")))']),
    dict(id="l3-well-rated-suppliers", level=3, tags=["group", "mean", "set"], data=["products"],
         question="Which suppliers have an average product rating above 3.45? Answer with the supplier ids "
                  "in any order.",
         answer=lambda d: {s for s, r in _group_values(d["products"], lambda p: p["supplier"],
                                                       lambda p: p["rating"]).items() if statistics.fmean(r) > 3.45},
         check=as_set,
         ptc=['(return (vec (keep (fn [[s ps]] (when (> (/ (reduce + (map #(get % "rating") ps)) (count ps)) 3.45) s)) '
              '(group-by #(get % "supplier") data/products))))']),
    dict(id="l3-top-category-share", level=3, tags=["join", "group", "percentage"], data=["products", "orders"],
         question="Revenue of an order is quantity x product price x (1 - discount). Considering non-cancelled "
                  "orders, what percentage of total revenue comes from the product category with the highest "
                  "revenue? Answer with a number between 0 and 100.",
         answer=lambda d: _top_share(d), check=tol(0.05),
         ptc=['(def price (into {} (map (juxt #(get % "id") #(get % "price")) data/products)))',
              '(def cat (into {} (map (juxt #(get % "id") #(get % "category")) data/products)))',
              '(let [rev (update-vals (group-by #(get cat (get % "product_id")) '
              '(remove #(= "cancelled" (get % "status")) data/orders)) '
              '(fn [os] (reduce + (map #(* (get % "quantity") (get price (get % "product_id")) '
              '(- 1 (get % "discount"))) os))))] '
              '(return (* 100.0 (/ (apply max (vals rev)) (reduce + (vals rev))))))']),
]


def _group_values(rows, key, value):
    out = defaultdict(list)
    for r in rows:
        out[key(r)].append(value(r))
    return dict(out)


def _heavy_spenders(d, share):
    spent = _sum_by([x for x in d["expenses"] if x["status"] == "approved"], lambda x: x["employee_id"],
                    lambda x: x["amount"])
    return {e["id"] for e in d["employees"] if spent.get(e["id"], 0) > share * e["salary"]}


def _top_share(d):
    price = _price(d)
    cat = {p["id"]: p["category"] for p in d["products"]}
    rev = _sum_by([o for o in d["orders"] if o["status"] != "cancelled"], lambda o: cat[o["product_id"]],
                  lambda o: _revenue(o, price))
    return 100 * max(rev.values()) / sum(rev.values())


def _schema_for(value) -> dict:
    """The answer contract: the JSON type of the expected answer (shape only, never the value)."""
    if isinstance(value, bool):
        return {"type": "boolean"}
    if isinstance(value, int):
        return {"type": "integer"}
    if isinstance(value, float):
        return {"type": "number"}
    if isinstance(value, str):
        return {"type": "string"}
    if isinstance(value, (list, set, tuple)):
        items = {_schema_for(v)["type"] for v in value}
        return {"type": "array", "items": {"type": items.pop()}} if len(items) == 1 else {"type": "array"}
    if isinstance(value, dict):
        kinds = {_schema_for(v)["type"] for v in value.values()}
        kind = "number" if kinds <= {"integer", "number"} else None
        return {"type": "object", "additionalProperties": {"type": kind}} if kind else {"type": "object"}
    raise TypeError(type(value))


def _plain(value):
    if isinstance(value, set):
        return sorted(value)
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, float):
        return round(value, 6)
    return value


def build_manifest(datasets: dict) -> dict:
    tasks = []
    seen = set()
    for t in TASKS:
        if t["id"] in seen:
            raise AssertionError(f"duplicate task id {t['id']}")
        seen.add(t["id"])
        raw = t["answer"](datasets)
        answer = _plain(raw)
        validator = t["check"](answer)
        tasks.append({
            "id": t["id"], "level": t["level"], "tags": t["tags"], "question": t["question"],
            "data": t["data"], "validator": validator, "answer_schema": _schema_for(answer),
            "reference": t["ptc"],
        })
    return {
        "format": "ptclisp-bench-suite/1",
        "name": "data-qa",
        "description": "Questions over four seeded business datasets (products, orders, employees, expenses): "
                       "level 1 counts and filters, level 2 aggregates and extremes, level 3 top-N, "
                       "multi-step and cross-dataset joins.",
        "seed": SEED,
        "defaults": {"max_turns": 6, "time_limit_s": 120},
        "datasets": {name: f"data/{name}.json" for name in COUNTS},
        "tasks": tasks,
    }


def render(obj) -> str:
    return json.dumps(obj, indent=1, ensure_ascii=False) + "\n"


def outputs() -> dict:
    """{relative path: file text} of everything this script writes."""
    datasets = make_datasets()
    files = {f"data/{name}.json": render(rows) for name, rows in datasets.items()}
    files["manifest.json"] = render(build_manifest(datasets))
    return files


USAGE = "usage: generate.py [--check]\n  --check  compare with the committed files instead of writing"


def main(argv=None) -> int:
    """Write the suite's files, or with --check report (exit 1) the ones that differ. A script with one flag:
    it parses its arguments by hand (argument parsers belong to ptclisp/commands/)."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv in (["-h"], ["--help"]):
        print(__doc__.splitlines()[0] + "\n\n" + USAGE)
        return 0
    if argv not in ([], ["--check"]):
        print(USAGE + f"\ngenerate.py: unexpected arguments: {' '.join(argv)}", file=sys.stderr)
        return 2
    check = argv == ["--check"]
    stale = []
    for rel, text in outputs().items():
        path = HERE / rel
        if check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(rel)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    if stale:
        print("stale: " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
