(ns llm
  "One call to the configured language model through the host's model router.")

(defn request
  "Send one provider-neutral request map (system, messages, tools, optional model alias).
  Gives back the response map on success; a failure comes back as its error envelope
  ({:status :error :kind ... :reason ...}), as a value rather than a failure of the program."
  [req]
  (let [r (tool/llm-request req)]
    (if (= :ok (get r :status))
      (get r :value)
      r)))
