;; Paid revenue per region and category, using the `orders` prelude.
;; Run: ptclisp run examples/orders_with_prelude.clj --prelude examples/order_helpers.clj --data examples/orders.json
(def paid (orders/with-status data/orders "paid"))

(println "paid orders:" (count paid) "of" (count data/orders))
(doseq [{:keys [region revenue]} (orders/breakdown paid :region)]
  (println (format "%-6s %10.2f" region revenue)))

{:paid-revenue (orders/revenue paid)
 :pending-revenue (orders/revenue (orders/with-status data/orders "pending"))
 :top-category (:category (first (orders/breakdown paid :category)))}
