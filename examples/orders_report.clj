;; Revenue report over data/orders: paid orders only, grouped by category.
;; Run: ptclisp run examples/orders_report.clj --data examples/orders.json
(def paid (filter #(= "paid" (:status %)) data/orders))

(defn summarize [[category orders]]
  {:category category
   :orders (count orders)
   :revenue (round (sum-by :amount orders))
   :average (round (avg-by :amount orders))})

(let [rows (->> (group-by :category paid)
                (map summarize)
                (sort-by :revenue :desc))]
  (println "paid orders:" (count paid) "of" (count data/orders))
  (doseq [{:keys [category orders revenue]} rows]
    (println (format "%-8s %3d orders  %8d" category orders revenue)))
  {:top-category (:category (first rows))
   :total-revenue (sum-by :revenue rows)})
