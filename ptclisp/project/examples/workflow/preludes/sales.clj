(ns sales "Helpers over data/orders for the categories mission.")

(defn paid-revenue-by
  "The paid revenue of the orders, rounded to cents, grouped by the value of field (a string key)."
  {:signature "(orders [:map], field :string) -> :map"}
  [orders field]
  (->> orders
       (filter #(= "paid" (get % "status")))
       (group-by #(get % field))
       (map (fn [[k rows]] [k (/ (round (* 100 (sum-by #(get % "amount") rows))) 100.0)]))
       (into {})))
