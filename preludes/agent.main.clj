(ns agent.main
  "The default workflow entry: run the agent loop on an input map and finish with its value.")

(defn run
  "Run the agent on input {\"task\" text \"agent\" config} and finish the workflow with the
  value it returned, checked against the application's result contract when one is configured."
  [input]
  (return (agent.core/run-result-value (get input "task") (or (get input "agent") {}))))
