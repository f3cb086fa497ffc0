;; Order-analysis helpers, attached as a prelude:
;;   ptclisp run examples/orders_with_prelude.clj --prelude examples/order_helpers.clj --data examples/orders.json
(ns orders
  "Small helpers for lists of order maps with :status, :category, :region and :amount.")

(def statuses
  "Every order status the helpers know about."
  {:type "[:string]"}
  ["paid" "pending" "refunded"])

(defn with-status
  "The orders whose :status equals status (one of orders/statuses)."
  {:signature "(orders [:map], status :string) -> [:map]"}
  [orders status]
  (filterv #(= status (:status %)) orders))

(defn revenue
  "Sum of :amount over orders, rounded to cents."
  {:signature "(orders [{amount :float}]) -> :float"}
  [orders]
  (cents (sum-by :amount orders)))

(defn breakdown
  "Revenue, order count and average amount per value of key k (a keyword such as :category),
  sorted by revenue, largest first."
  [orders k]
  (->> (group-by k orders)
       (map (fn [[group rows]] (summary-row k group rows)))
       (sort-by :revenue >)
       vec))

(defn- summary-row [k group rows]
  {k group
   :orders (count rows)
   :revenue (revenue rows)
   :average (cents (avg-by :amount rows))})

(defn- cents [x]
  (/ (round (* x 100)) 100.0))
