"""Workload t: one agent turn. A ~300-line PTC-Lisp program of the kind a model writes for a data task
(an operations review of a shop: parse, filter, group, join, rank, format, then send the report),
over about 1 MB of JSON data passed as context, with 20 tool calls (host Python functions returning
JSON-like data), three of the batches through `pmap`. Plain Python runs the same logic (TURN_PY)
against the same tools, its parallel batches through a thread pool made outside the timing.
Money is whole cents throughout, so every column's answer is exactly plain Python's.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from .agent_turn_data import TOOLS, shop_data
from .harness import Impl, ptc_program

TURN_SRC = r'''
;; Operations review of the shop for the last months: revenue by month, region, segment and
;; category (in EUR), the best customers with their credit tiers, unusual orders, stock of the
;; best sellers, late shipments, what customers write in order notes, their open tickets.
;; Sends the report to the ops team and returns the numbers behind it.

(def valid-status #{"paid" "shipped" "delivered"})
(def stop-words #{"the" "a" "and" "to" "of" "please" "for" "on" "in" "is" "at" "no" "after" "before"})

;; ---------------------------------------------------------------- helpers

(defn line-cents [line] (* (:qty line) (:unit_cents line)))

(defn order-cents [order] (reduce + 0 (map line-cents (:lines order))))

(defn month-of [ts] (subs ts 0 7))

(defn day-number
  "Days since year 0 of an ISO date, months counted as 31 days: enough for differences of weeks."
  [ts]
  (let [y (parse-long (subs ts 0 4))
        m (parse-long (subs ts 5 7))
        d (parse-long (subs ts 8 10))]
    (+ (* y 372) (* m 31) d)))

(defn pct [part whole]
  (if (pos? whole) (quot (* 100 part) whole) 0))

(defn eur-cents [rates currency cents]
  (quot (* cents 10000) (get rates currency 10000)))

(defn money [cents]
  (let [sign (if (neg? cents) "-" "")
        c (abs cents)]
    (str sign (quot c 100) "." (format "%02d" (mod c 100)))))

(defn total-of [k rows] (reduce + 0 (map k rows)))

;; ---------------------------------------------------------------- reference data

(def rates (:rates_bp (tool/fx-rates {:base "EUR"})))

(def products (into {} (map (fn [p] [(:sku p) p]) data/products)))

(def customers (into {} (map (fn [c] [(:id c) c]) data/customers)))

;; ---------------------------------------------------------------- orders in EUR

(def orders
  (->> data/orders
       (filter #(contains? valid-status (:status %)))
       (mapv (fn [o]
               (let [cust (get customers (:customer_id o))]
                 {:id (:id o)
                  :customer (:customer_id o)
                  :region (get cust :region "unknown")
                  :segment (get cust :segment "unknown")
                  :month (month-of (:created_at o))
                  :day (day-number (:created_at o))
                  :status (:status o)
                  :currency (:currency o)
                  :express (= "express" (get-in o [:shipping :method]))
                  :eur (eur-cents rates (:currency o) (order-cents o))
                  :lines (:lines o)
                  :note (:note o)})))))

(def total-eur (total-of :eur orders))

(def last-day (reduce max 0 (map :day orders)))

(def line-rows
  (vec (for [o orders
             l (:lines o)
             :let [p (get products (:sku l))]]
         {:sku (:sku l)
          :category (get p :category "other")
          :discontinued (true? (get p :discontinued))
          :qty (:qty l)
          :day (:day o)
          :eur (eur-cents rates (:currency o) (line-cents l))})))

;; ---------------------------------------------------------------- revenue views

(def by-month
  (->> orders
       (group-by :month)
       (map (fn [[m os]] {:month m :orders (count os) :eur (total-of :eur os)}))
       (sort-by :month)
       vec))

(def month-growth
  (vec (map (fn [prev cur]
              {:month (:month cur)
               :change (if (pos? (:eur prev)) (quot (* 100 (- (:eur cur) (:eur prev))) (:eur prev)) 0)})
            by-month (rest by-month))))

(def by-region
  (->> orders
       (group-by :region)
       (map (fn [[r os]]
              (let [eur (total-of :eur os)]
                {:region r :orders (count os) :eur eur :share (pct eur total-eur)
                 :avg (quot eur (count os))
                 :express (pct (count (filter :express os)) (count os))})))
       (sort-by (fn [r] [(- (:eur r)) (:region r)]))
       vec))

(def by-segment
  (->> orders
       (group-by :segment)
       (map (fn [[s os]] [s {:orders (count os) :eur (total-of :eur os)}]))
       (into {})))

(def by-category
  (->> line-rows
       (group-by :category)
       (map (fn [[c rows]]
              {:category c :units (total-of :qty rows) :eur (total-of :eur rows)
               :share (pct (total-of :eur rows) total-eur)}))
       (sort-by (fn [r] [(- (:eur r)) (:category r)]))
       vec))

(def currency-mix
  (->> orders
       (map :currency)
       frequencies
       (sort-by (fn [[c n]] [(- n) c]))
       (mapv (fn [[c n]] {:currency c :orders n :share (pct n (count orders))}))))

(def discontinued-sales
  (->> line-rows
       (filter :discontinued)
       (group-by :sku)
       (map (fn [[sku rows]] {:sku sku :units (total-of :qty rows)}))
       (sort-by (fn [r] [(- (:units r)) (:sku r)]))
       (take 5)
       vec))

;; ---------------------------------------------------------------- customers

(def customer-totals
  (->> orders
       (group-by :customer)
       (map (fn [[cid os]]
              (let [eur (total-of :eur os)]
                {:id cid :orders (count os) :eur eur :avg (quot eur (count os))})))
       vec))

(def repeat-rate
  (pct (count (filter #(> (:orders %) 1) customer-totals)) (count customer-totals)))

(def top-customers
  (->> customer-totals
       (sort-by (fn [c] [(- (:eur c)) (:id c)]))
       (take 40)
       vec))

(def tiers
  (->> (tool/customer-tiers {:ids (mapv :id top-customers)})
       (map (fn [t] [(:id t) t]))
       (into {})))

(def top-rows
  (mapv (fn [c]
          (let [cust (get customers (:id c))
                tier (get tiers (:id c))]
            {:id (:id c)
             :name (:name cust)
             :region (:region cust)
             :tier (get tier :tier "none")
             :eur (:eur c)
             :orders (:orders c)
             :over-limit (> (:eur c) (get tier :credit_limit_cents 0))}))
        top-customers))

(def tier-counts (frequencies (map :tier top-rows)))

(def avg-by-customer (into {} (map (fn [c] [(:id c) (:avg c)]) customer-totals)))

(def anomalies
  (->> orders
       (filter (fn [o] (> (:eur o) (* 3 (get avg-by-customer (:customer o) 0)))))
       (sort-by (fn [o] [(- (:eur o)) (:id o)]))
       (take 15)
       (mapv #(select-keys % [:id :customer :eur :month]))))

;; ---------------------------------------------------------------- stock of the best sellers

(def units-by-sku
  (reduce (fn [acc r] (update acc (:sku r) (fnil + 0) (:qty r))) {} line-rows))

(def recent-units
  (->> line-rows
       (filter #(> (:day %) (- last-day 28)))
       (reduce (fn [acc r] (update acc (:sku r) (fnil + 0) (:qty r))) {})))

(def best-skus
  (->> units-by-sku
       (sort-by (fn [[sku n]] [(- n) sku]))
       (take 8)
       (mapv first)))

(def stock (pmap (fn [sku] (tool/inventory {:sku sku})) best-skus))

(def stock-rows
  (mapv (fn [s]
          (let [free (- (:on_hand s) (:reserved s))
                weekly (quot (get recent-units (:sku s) 0) 4)]
            {:sku (:sku s)
             :name (get-in products [(:sku s) :name])
             :free free
             :weekly weekly
             :warehouse (:warehouse s)
             :restock-days (:restock_days s)
             :weeks-left (if (pos? weekly) (quot free weekly) 99)}))
        stock))

(def low-stock
  (->> stock-rows
       (filter #(or (< (:weeks-left %) 3) (< (* 7 (:weeks-left %)) (:restock-days %))))
       (sort-by (fn [s] [(:weeks-left s) (:sku s)]))
       vec))

;; ---------------------------------------------------------------- shipments

(def waiting
  (->> orders
       (filter #(= "shipped" (:status %)))
       (sort-by (fn [o] [(:day o) (:id o)]))
       (take 6)
       vec))

(def tracking (pmap (fn [o] (tool/shipment {:order-id (:id o)})) waiting))

(def late
  (->> (map (fn [o t]
              (let [last-event (last (:events t))]
                {:id (:id o)
                 :customer (:customer o)
                 :carrier (:carrier t)
                 :last (:code last-event)
                 :last-seen (subs (:at last-event) 0 10)
                 :days-late (- last-day (day-number (:eta t)))}))
            waiting tracking)
       (filter #(and (pos? (:days-late %)) (not= "delivered" (:last %))))
       (sort-by (fn [l] [(- (:days-late l)) (:id l)]))
       vec))

;; ---------------------------------------------------------------- what customers write

(def notes (vec (keep :note orders)))

(def note-words
  (->> notes
       (mapcat #(str/split (lower-case %) #"\s+"))
       (map #(str/replace % #"[^a-z0-9#]" ""))
       (remove #(or (str/blank? %) (contains? stop-words %) (str/starts-with? % "#")))
       frequencies
       (sort-by (fn [[w n]] [(- n) w]))
       (take 10)
       (mapv (fn [[w n]] {:word w :count n}))))

(def refs
  (->> notes
       (keep #(re-find #"ref #(\d+)" %))
       (map (fn [m] (parse-long (second m))))
       distinct
       sort
       vec))

(def urgent (count (filter #(re-find #"(?i)urgent|fragile" %) notes)))

;; ---------------------------------------------------------------- tickets of the top customers

(def ticket-sets
  (pmap (fn [c] (tool/tickets {:customer-id (:id c) :limit 5})) (take 3 top-customers)))

(def ticket-summary
  (mapv (fn [c ts]
          {:id (:id c)
           :open (count (filter #(= "open" (:status %)) ts))
           :subjects (mapv :subject (take 3 (sort-by (fn [t] [(:opened t) (:id t)]) ts)))})
        (take 3 top-customers) ticket-sets))

;; ---------------------------------------------------------------- the report

(def report-lines
  (concat
    [(str "Operations review " (:month (first by-month)) " to " (:month (last by-month)))
     (str "Revenue: " (money total-eur) " EUR over " (count orders) " orders; "
          repeat-rate "% of customers ordered more than once")
     ""
     "By region:"]
    (map (fn [r] (str "  " (:region r) ": " (money (:eur r)) " EUR (" (:share r) "%), avg "
                      (money (:avg r)) ", express " (:express r) "%"))
         by-region)
    ["" "By category:"]
    (map (fn [c] (str "  " (:category c) ": " (:units c) " units, " (money (:eur c)) " EUR")) by-category)
    ["" "Month over month:"]
    (map (fn [g] (str "  " (:month g) ": " (if (neg? (:change g)) "" "+") (:change g) "%")) month-growth)
    ["" "Top customers:"]
    (map-indexed (fn [i c] (str "  " (inc i) ". " (:name c) " [" (:tier c) "] " (money (:eur c))
                                (if (:over-limit c) " OVER CREDIT LIMIT" "")))
                 (take 10 top-rows))
    ["" (str "Unusual orders: " (count anomalies))]
    (map (fn [a] (str "  " (:id a) " " (:customer a) " " (money (:eur a)))) (take 5 anomalies))
    ["" "Low stock:"]
    (map (fn [s] (str "  " (:sku s) " " (:name s) ": " (:free s) " free, ~" (:weeks-left s)
                      " weeks (restock " (:restock-days s) " days, " (:warehouse s) ")"))
         low-stock)
    ["" "Late shipments:"]
    (map (fn [l] (str "  " (:id l) " via " (:carrier l) ", " (:days-late l) " days late, last "
                      (:last l) " on " (:last-seen l)))
         late)
    ["" (str "Notes: " (count notes) " (" urgent " urgent or fragile); common words: "
             (str/join ", " (map :word note-words)))
     (str "Open tickets of the top 3: " (total-of :open ticket-summary))]))

(def report (str/join "\n" report-lines))

(def sent
  (tool/send-report {:title "Operations review" :body report :recipients ["ops@example.com" "cfo@example.com"]}))

{:report-id (:id sent)
 :report report
 :total-eur total-eur
 :orders (count orders)
 :months by-month
 :growth month-growth
 :regions by-region
 :segments by-segment
 :categories by-category
 :currencies currency-mix
 :discontinued discontinued-sales
 :repeat-rate repeat-rate
 :top-customers top-rows
 :tiers tier-counts
 :anomalies anomalies
 :stock stock-rows
 :low-stock low-stock
 :late late
 :note-words note-words
 :refs (take 10 refs)
 :urgent urgent
 :tickets ticket-summary}
'''


TURN_PY = r"""
import re
from collections import Counter

VALID_STATUS = {"paid", "shipped", "delivered"}
STOP_WORDS = {"the", "a", "and", "to", "of", "please", "for", "on", "in", "is", "at", "no", "after", "before"}


def line_cents(line):
    return line["qty"] * line["unit_cents"]


def order_cents(order):
    return sum(line_cents(line) for line in order["lines"])


def day_number(ts):
    return int(ts[0:4]) * 372 + int(ts[5:7]) * 31 + int(ts[8:10])


def quot(a, b):
    q = abs(a) // abs(b)
    return q if (a >= 0) == (b > 0) else -q


def pct(part, whole):
    return quot(100 * part, whole) if whole > 0 else 0


def eur_cents(rates, currency, cents):
    return quot(cents * 10000, rates.get(currency, 10000))


def money(cents):
    sign = "-" if cents < 0 else ""
    c = abs(cents)
    return f"{sign}{c // 100}.{c % 100:02d}"


def group_by(key, rows):
    out = {}
    for row in rows:
        out.setdefault(row[key], []).append(row)
    return out


def total(key, rows):
    return sum(row[key] for row in rows)


def add_units(rows):
    out = {}
    for row in rows:
        out[row["sku"]] = out.get(row["sku"], 0) + row["qty"]
    return out


def load_orders(data, rates, customers, products):
    orders = []
    for o in data["orders"]:
        if o["status"] not in VALID_STATUS:
            continue
        cust = customers.get(o["customer_id"]) or {}
        orders.append({"id": o["id"], "customer": o["customer_id"], "region": cust.get("region", "unknown"),
                       "segment": cust.get("segment", "unknown"), "month": o["created_at"][0:7],
                       "day": day_number(o["created_at"]), "status": o["status"], "currency": o["currency"],
                       "express": (o.get("shipping") or {}).get("method") == "express",
                       "eur": eur_cents(rates, o["currency"], order_cents(o)), "lines": o["lines"],
                       "note": o.get("note")})
    line_rows = []
    for o in orders:
        for line in o["lines"]:
            p = products.get(line["sku"]) or {}
            line_rows.append({"sku": line["sku"], "category": p.get("category", "other"),
                              "discontinued": p.get("discontinued") is True, "qty": line["qty"], "day": o["day"],
                              "eur": eur_cents(rates, o["currency"], line_cents(line))})
    return orders, line_rows


def revenue_views(orders, line_rows, total_eur):
    by_month = sorted(({"month": m, "orders": len(os), "eur": total("eur", os)}
                       for m, os in group_by("month", orders).items()), key=lambda r: r["month"])
    month_growth = [{"month": cur["month"],
                     "change": quot(100 * (cur["eur"] - prev["eur"]), prev["eur"]) if prev["eur"] > 0 else 0}
                    for prev, cur in zip(by_month, by_month[1:])]
    by_region = []
    for r, os in group_by("region", orders).items():
        eur = total("eur", os)
        by_region.append({"region": r, "orders": len(os), "eur": eur, "share": pct(eur, total_eur),
                          "avg": quot(eur, len(os)), "express": pct(len([o for o in os if o["express"]]), len(os))})
    by_region.sort(key=lambda r: (-r["eur"], r["region"]))
    by_segment = {s: {"orders": len(os), "eur": total("eur", os)} for s, os in group_by("segment", orders).items()}
    by_category = sorted(({"category": c, "units": total("qty", rows), "eur": total("eur", rows),
                           "share": pct(total("eur", rows), total_eur)}
                          for c, rows in group_by("category", line_rows).items()),
                         key=lambda r: (-r["eur"], r["category"]))
    currency_mix = [{"currency": c, "orders": n, "share": pct(n, len(orders))}
                    for c, n in sorted(Counter(o["currency"] for o in orders).items(), key=lambda cn: (-cn[1], cn[0]))]
    discontinued_sales = sorted(({"sku": sku, "units": total("qty", rows)}
                                 for sku, rows in group_by("sku", [r for r in line_rows if r["discontinued"]]).items()),
                                key=lambda r: (-r["units"], r["sku"]))[:5]
    return {"months": by_month, "growth": month_growth, "regions": by_region, "segments": by_segment,
            "categories": by_category, "currencies": currency_mix, "discontinued": discontinued_sales}


def customer_views(orders, customers):
    customer_totals = []
    for cid, os in group_by("customer", orders).items():
        eur = total("eur", os)
        customer_totals.append({"id": cid, "orders": len(os), "eur": eur, "avg": quot(eur, len(os))})
    top_customers = sorted(customer_totals, key=lambda c: (-c["eur"], c["id"]))[:40]
    tiers = {t["id"]: t for t in customer_tiers({"ids": [c["id"] for c in top_customers]})}
    top_rows = []
    for c in top_customers:
        cust = customers.get(c["id"]) or {}
        tier = tiers.get(c["id"]) or {}
        top_rows.append({"id": c["id"], "name": cust.get("name"), "region": cust.get("region"),
                         "tier": tier.get("tier", "none"), "eur": c["eur"], "orders": c["orders"],
                         "over-limit": c["eur"] > tier.get("credit_limit_cents", 0)})
    avg_by_customer = {c["id"]: c["avg"] for c in customer_totals}
    anomalies = [{"id": o["id"], "customer": o["customer"], "eur": o["eur"], "month": o["month"]}
                 for o in sorted((o for o in orders if o["eur"] > 3 * avg_by_customer.get(o["customer"], 0)),
                                 key=lambda o: (-o["eur"], o["id"]))[:15]]
    return top_customers, {
        "repeat-rate": pct(len([c for c in customer_totals if c["orders"] > 1]), len(customer_totals)),
        "top-customers": top_rows, "tiers": dict(Counter(r["tier"] for r in top_rows)), "anomalies": anomalies}


def stock_views(products, line_rows, last_day):
    units_by_sku = add_units(line_rows)
    recent_units = add_units([r for r in line_rows if r["day"] > last_day - 28])
    best_skus = [sku for sku, n in sorted(units_by_sku.items(), key=lambda kv: (-kv[1], kv[0]))[:8]]
    stock = pmap(lambda sku: inventory({"sku": sku}), best_skus)
    stock_rows = []
    for s in stock:
        free = s["on_hand"] - s["reserved"]
        weekly = quot(recent_units.get(s["sku"], 0), 4)
        stock_rows.append({"sku": s["sku"], "name": (products.get(s["sku"]) or {}).get("name"), "free": free,
                           "weekly": weekly, "warehouse": s["warehouse"], "restock-days": s["restock_days"],
                           "weeks-left": quot(free, weekly) if weekly > 0 else 99})
    low_stock = sorted((s for s in stock_rows if s["weeks-left"] < 3 or 7 * s["weeks-left"] < s["restock-days"]),
                       key=lambda s: (s["weeks-left"], s["sku"]))
    return {"stock": stock_rows, "low-stock": low_stock}


def late_shipments(orders, last_day):
    waiting = sorted((o for o in orders if o["status"] == "shipped"), key=lambda o: (o["day"], o["id"]))[:6]
    tracking = pmap(lambda o: shipment({"order_id": o["id"]}), waiting)
    late = []
    for o, t in zip(waiting, tracking):
        last_event = t["events"][-1]
        row = {"id": o["id"], "customer": o["customer"], "carrier": t["carrier"], "last": last_event["code"],
               "last-seen": last_event["at"][0:10], "days-late": last_day - day_number(t["eta"])}
        if row["days-late"] > 0 and row["last"] != "delivered":
            late.append(row)
    late.sort(key=lambda r: (-r["days-late"], r["id"]))
    return late


def note_views(orders):
    notes = [o["note"] for o in orders if o["note"] is not None]
    words = [re.sub(r"[^a-z0-9#]", "", w) for n in notes for w in re.split(r"\s+", n.lower())]
    counts = Counter(w for w in words if w and w not in STOP_WORDS and not w.startswith("#"))
    note_words = [{"word": w, "count": n} for w, n in sorted(counts.items(), key=lambda wn: (-wn[1], wn[0]))[:10]]
    refs = sorted({int(m.group(1)) for m in (re.search(r"ref #(\d+)", n) for n in notes) if m})
    urgent = len([n for n in notes if re.search(r"(?i)urgent|fragile", n)])
    return len(notes), {"note-words": note_words, "refs": refs[:10], "urgent": urgent}


def ticket_views(top_customers):
    ticket_sets = pmap(lambda c: tickets({"customer_id": c["id"], "limit": 5}), top_customers[:3])
    return [{"id": c["id"], "open": len([t for t in ts if t["status"] == "open"]),
             "subjects": [t["subject"] for t in sorted(ts, key=lambda t: (t["opened"], t["id"]))[:3]]}
            for c, ts in zip(top_customers[:3], ticket_sets)]


def render(r, n_notes):
    lines = [f"Operations review {r['months'][0]['month']} to {r['months'][-1]['month']}",
             f"Revenue: {money(r['total-eur'])} EUR over {r['orders']} orders; "
             f"{r['repeat-rate']}% of customers ordered more than once", "", "By region:"]
    lines += [f"  {g['region']}: {money(g['eur'])} EUR ({g['share']}%), avg {money(g['avg'])}, express {g['express']}%"
              for g in r["regions"]]
    lines += ["", "By category:"]
    lines += [f"  {c['category']}: {c['units']} units, {money(c['eur'])} EUR" for c in r["categories"]]
    lines += ["", "Month over month:"]
    lines += [f"  {g['month']}: {'' if g['change'] < 0 else '+'}{g['change']}%" for g in r["growth"]]
    lines += ["", "Top customers:"]
    lines += [f"  {i + 1}. {c['name']} [{c['tier']}] {money(c['eur'])}" + (" OVER CREDIT LIMIT" if c["over-limit"] else "")
              for i, c in enumerate(r["top-customers"][:10])]
    lines += ["", f"Unusual orders: {len(r['anomalies'])}"]
    lines += [f"  {a['id']} {a['customer']} {money(a['eur'])}" for a in r["anomalies"][:5]]
    lines += ["", "Low stock:"]
    lines += [f"  {s['sku']} {s['name']}: {s['free']} free, ~{s['weeks-left']} weeks "
              f"(restock {s['restock-days']} days, {s['warehouse']})" for s in r["low-stock"]]
    lines += ["", "Late shipments:"]
    lines += [f"  {x['id']} via {x['carrier']}, {x['days-late']} days late, last {x['last']} on {x['last-seen']}"
              for x in r["late"]]
    lines += ["", f"Notes: {n_notes} ({r['urgent']} urgent or fragile); common words: "
                  + ", ".join(w["word"] for w in r["note-words"]),
              f"Open tickets of the top 3: {total('open', r['tickets'])}"]
    return "\n".join(lines)


def turn(data):
    rates = fx_rates({"base": "EUR"})["rates_bp"]
    products = {p["sku"]: p for p in data["products"]}
    customers = {c["id"]: c for c in data["customers"]}
    orders, line_rows = load_orders(data, rates, customers, products)
    total_eur = total("eur", orders)
    last_day = max([0] + [o["day"] for o in orders])
    result = {"total-eur": total_eur, "orders": len(orders)}
    result.update(revenue_views(orders, line_rows, total_eur))
    top_customers, views = customer_views(orders, customers)
    result.update(views)
    result.update(stock_views(products, line_rows, last_day))
    result["late"] = late_shipments(orders, last_day)
    n_notes, views = note_views(orders)
    result.update(views)
    result["tickets"] = ticket_views(top_customers)
    report = render(result, n_notes)
    sent = send_report({"title": "Operations review", "body": report,
                        "recipients": ["ops@example.com", "cfo@example.com"]})
    result.update({"report-id": sent["id"], "report": report})
    return result
"""

# pmap for interpreters without threads (monty): the same calls, one after the other
SEQUENTIAL_PMAP = "def pmap(f, xs):\n    return [f(x) for x in xs]\n"

_POOL: list = []


def thread_pmap(f, xs):
    """Plain Python's pmap: the calls on a thread pool made once (outside the timing)."""
    if not _POOL:
        _POOL.append(ThreadPoolExecutor(max_workers=8, thread_name_prefix="bench-pmap"))
    return list(_POOL[0].map(f, xs))


def turn_data(quick: bool) -> dict:
    return shop_data(0.1 if quick else 1.0)


def python_turn():
    """`turn(data)` of TURN_PY compiled once, with the tools and a thread-pool pmap as its globals."""
    ns = dict(TOOLS, pmap=thread_pmap)
    exec(compile(TURN_PY, "<turn>", "exec"), ns)  # noqa: S102 - our own text
    return ns["turn"]


def ptc_tools() -> dict:
    """The tools under the names a PTC program calls them by (`tool/fx-rates`)."""
    return {name.replace("_", "-"): f for name, f in TOOLS.items()}


def w_agent_turn(quick):
    data = turn_data(quick)
    turn = python_turn()
    return {"python": Impl(lambda: turn(data)), "ptclisp": ptc_program(TURN_SRC, data, ptc_tools())}
