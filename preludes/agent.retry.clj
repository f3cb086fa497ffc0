(ns agent.retry
  "When the agent loop may take another turn, and which failures it treats as recoverable.")

(defn retry?
  "True when a turn is left after turn (counted from 0) in a budget of max-turns."
  [turn max-turns]
  (< (inc turn) max-turns))

(defn- atom-name
  "The name of a keyword or string with hyphens turned into underscores; nil for anything else."
  [x]
  (when (or (keyword? x) (string? x))
    (replace (name x) "-" "_")))

(defn- provider-reason?
  [reason]
  (contains? #{"denied" "not_found" "unavailable" "invalid_request" "internal" "domain_error"
               "invalid_result" "authentication_failed" "payment_required" "rate_limited"
               "tool_calling_unsupported" "timeout" "transport_error"}
             reason))

(defn recoverable-provider-error?
  "True for model-call failures that end the run as a provider failure the caller can inspect
  (provider errors, model alias problems, provider timeouts)."
  [e]
  (let [kind (atom-name (get e :kind))
        reason (atom-name (get e :reason))]
    (cond
      (= kind "provider_error") (provider-reason? reason)
      (= kind "protocol_error") (contains? #{"unknown_model_alias" "invalid_model_alias" "model_alias_required"}
                                           reason)
      (= kind "timeout") (= reason "provider_timeout")
      :else false)))

(defn correctable-capability-failure?
  "True when a failed program failed with exactly the envelope a capability returned, and no
  unsafe effect happened: the model may fix its call and try again."
  [evaluation]
  (let [v (get evaluation :value)]
    (and (true? (get evaluation :capability-failure?))
         (true? (get evaluation :retryable?))
         (map? v)
         (= "error" (get v "status"))
         (string? (get v "kind"))
         (string? (get v "reason"))
         (boolean? (get v "retryable?")))))
