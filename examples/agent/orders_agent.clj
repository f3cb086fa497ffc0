;; An agent workflow as a program: the model explores data/orders in its own
;; mission and returns the answer; this program then uses that answer.
;;
;;   ptclisp run examples/agent/orders_agent.clj --data examples/orders.json \
;;     --replay examples/agent/orders_agent.replay.jsonl
;;
;; With --model main=openai:gpt-4o-mini (and OPENAI_API_KEY) a live model answers instead.

(def answer
  (agent.core/run-value
   "Which region had the highest paid revenue, and how much? Return region, paid_revenue (rounded to cents) and paid_orders."
   {"max_turns" 4}))

(println "top region:" (get answer "region"))
answer
