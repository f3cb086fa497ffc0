;; The workflow: trusted code that runs agent tasks and joins their answers.
;; Each agent.core/run-value call runs the agent loop in one mission with one model alias.

(def top
  (agent.core/run-value
   "Which region has the highest paid revenue? Return {\"region\" name \"revenue\" total} with the total rounded to cents."
   {"mission" "regions" "model" "analyst" "max_turns" 3}))

(println "top region:" (get top "region"))

(def best-category
  (agent.core/run-value
   (str "In region " (get top "region") ", which category has the highest paid revenue? "
        "Return {\"category\" name \"revenue\" total} with the total rounded to cents.")
   {"mission" "categories" "model" "specialist" "max_turns" 3}))

{"region" (get top "region")
 "region_revenue" (get top "revenue")
 "category" (get best-category "category")
 "category_revenue" (get best-category "revenue")}
