(ns agent.native
  "Turns one model response into one action for the agent loop: a program to run, or the
  reason the response cannot be used.")

(defn- text? [x] (and (string? x) (not (blank? x))))

(defn- capped
  "s cut to at most n characters, marked when something was cut."
  [s n]
  (if (> (count s) n) (str (subs s 0 n) "… [truncated]") s))

(defn- narration [response]
  (let [c (get response "content")]
    (when (text? c) (capped c 2000))))

(defn- protocol-error
  [reason response & extra]
  (merge {:kind :protocol-error :reason reason :narration (narration response)} (first extra)))

(defn quota-refusal?
  "True when e is the router's refusal for an exhausted model-call quota."
  [e]
  (let [details (get e :details)
        limit (get details :limit)
        limit-name (when (or (keyword? limit) (string? limit)) (name limit))]
    (and (map? e)
         (= :error (get e :status))
         (= "limit_exceeded" (name (or (get e :kind) "")))
         (= "capability_quota" (name (or (get e :reason) "")))
         (map? details)
         (contains? #{"max_calls" "workflow_capability_calls" "workflow_capability_calls_per_name"
                      "mission_capability_calls" "mission_capability_calls_per_name"}
                    limit-name)
         (integer? (get details :limit_value))
         (pos? (get details :limit_value))
         (or (text? (get details :alias)) (text? (get details :name))))))

(defn- call-name [call]
  (or (get call "name") (get-in call ["function" "name"])))

(defn- call-args [call]
  (let [raw (or (get call "args") (get call "arguments") (get-in call ["function" "arguments"]))]
    (if (string? raw) (json/parse-string raw) raw)))

(defn- single-call-action [response call max-program-chars]
  (let [id (get call "id")
        args (call-args call)
        program (when (map? args) (get args "program"))
        public-call {"id" id "name" "run_ptc_lisp" "args" args}]
    (cond
      (not (map? call)) (protocol-error :multiple-or-missing-tool-calls response)
      (not= "run_ptc_lisp" (call-name call)) (protocol-error :wrong-tool-name response)
      (not (text? id)) (protocol-error :invalid-tool-call-id response)
      (not (map? args)) (protocol-error :invalid-json-arguments response)
      (not (and (= 1 (count args)) (contains? args "program"))) (protocol-error :extra-or-missing-arguments response)
      (not (string? program)) (protocol-error :program-not-string response)
      (blank? program) (protocol-error :program-empty response)
      (> (count program) max-program-chars)
      (protocol-error :program-too-large response
                      {:limit max-program-chars :size (count program) :offending-call public-call
                       :tool-call-id id})
      :else {:kind :tool-call
             :program program
             :rationale (narration response)
             :tool-call-id id
             :public-tool-call public-call})))

(defn- call-action [response max-program-chars]
  (let [calls (get response "tool_calls")]
    (cond
      (not (sequential? calls))
      (protocol-error (if (text? (get response "content")) :assistant-text-without-tool-call :missing-tool-call)
                      response)
      (not= 1 (count calls)) (protocol-error :multiple-or-missing-tool-calls response)
      :else (single-call-action response (first calls) max-program-chars))))

(defn- valid-output-limit? [ol]
  (let [v (get ol "value")
        b (get ol "bindings")
        order ["configured" "adapter_default" "model_output_limit" "remaining_context"]]
    (and (map? ol)
         (= "max_tokens" (get ol "name"))
         (integer? v) (<= 1 v 1000000)
         (vector? b) (seq b)
         (every? string? b)
         (= b (filterv (set b) order)))))

(defn- truncated? [response]
  (let [ol (get response "output_limit")]
    (and (= "length" (get response "finish_reason"))
         (text? (get response "model"))
         (or (nil? ol) (valid-output-limit? ol)))))

(defn normalize
  "Classify one model response. Gives a map whose :kind is :tool-call (with :program,
  :rationale, :tool-call-id and :public-tool-call), :protocol-error (with :reason and
  :narration), :model-output-truncated, :provider-error or :max-calls (with :error)."
  [response max-program-chars]
  (cond
    (quota-refusal? response) {:kind :max-calls :error response}
    (and (map? response) (= :error (get response :status))) {:kind :provider-error :error response}
    (not (map? response)) {:kind :protocol-error :reason :invalid-response :narration nil}
    :else
    (let [action (call-action response max-program-chars)]
      (if (and (not= :tool-call (get action :kind)) (truncated? response))
        {:kind :model-output-truncated
         :alias (get response "model")
         :output-limit (get response "output_limit")}
        action))))
