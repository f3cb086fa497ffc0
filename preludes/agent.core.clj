(ns agent.core
  "The agent loop. Each turn asks the model for exactly one run_ptc_lisp call, runs its
  program in the mission, and answers with an observation or a correction, until a program
  returns or fails or the turn budget runs out. run-outcome reports every subject and
  provider failure as data; the other entries end the workflow on failure.")

;; ------------------------------------------------------------------ configuration

(defn- int64? [v]
  (and (integer? v) (<= -9223372036854775808 v 9223372036854775807)))

(defn- type-label [v]
  (cond
    (string? v) "string"
    (float? v) "float"
    (boolean? v) "bool"
    (map? v) "map"
    (vector? v) "vector"
    (nil? v) "nil"
    :else "other"))

(defn- bounded-option
  "The integer option of cfg within [lo, hi], default when absent; anything else aborts."
  [cfg option default lo hi]
  (let [v (get cfg option)]
    (cond
      (nil? v) default
      (not (int64? v))
      (tool/kernel-agent-config-failure {"option" option "min" lo "max" hi "type" (type-label v)})
      (or (< v lo) (> v hi))
      (tool/kernel-agent-config-failure {"option" option "min" lo "max" hi "value" v})
      :else v)))

(defn- text? [x] (and (string? x) (not (blank? x))))

(defn- invalid-config [reason]
  (fail (result/error :invalid-agent-config reason)))

(defn- phase-from [p]
  {:mission (get p "mission")
   :max-turns (get p "max_turns")
   :instruction (get p "instruction")
   :terminal-only? (true? (get p "terminal_only"))})

(defn- valid-phase? [p]
  (and (map? p)
       (text? (get p "mission"))
       (int64? (get p "max_turns"))
       (<= 1 (get p "max_turns") 128)
       (or (nil? (get p "instruction")) (text? (get p "instruction")))
       (or (nil? (get p "terminal_only")) (boolean? (get p "terminal_only")))))

(defn- resolve-phases [cfg max-turns]
  (let [phases (get cfg "phases")]
    (if (nil? phases)
      (let [mission (get cfg "mission")]
        (when (and (some? mission) (not (text? mission)))
          (invalid-config :invalid-mission))
        [{:mission (or mission "default") :max-turns max-turns :instruction nil :terminal-only? false}])
      (if (and (vector? phases)
               (<= 1 (count phases) 8)
               (every? valid-phase? phases)
               (<= (reduce + 0 (map (fn [p] (get p "max_turns")) phases)) 128)
               (not-any? (fn [p] (true? (get p "terminal_only"))) (butlast phases)))
        (mapv phase-from phases)
        (invalid-config :invalid-phases)))))

(defn- resolve-config [cfg validate?]
  (let [max-turns (bounded-option cfg "max_turns" 4 1 128)
        max-program (bounded-option cfg "max_program_chars" 64000 1 1000000)
        max-observation (bounded-option cfg "max_observation_chars" 2048 1 65536)
        max-transcript (bounded-option cfg "max_transcript_chars" 262144 1 1000000)
        phases (resolve-phases cfg max-turns)
        total (reduce + 0 (map (fn [p] (get p :max-turns)) phases))
        threshold (get cfg "consolidate_at_turns_remaining")]
    (when (and (some? threshold) (not (and (int64? threshold) (<= 1 threshold total))))
      (invalid-config :invalid-consolidation-threshold))
    {:phases phases
     :phased? (some? (get cfg "phases"))
     :total-turns total
     :threshold threshold
     :max-program-chars max-program
     :max-observation-chars max-observation
     :max-transcript-chars max-transcript
     :model (get cfg "model")
     :validate? validate?}))

;; ------------------------------------------------------------------ prompt seam

(defn- policy
  "Call a policy function (agent.prompt, agent.feedback) through the host's gate: sandboxed, checked,
  and replaced by the shipped function when it fails."
  [f & args]
  (let [r (tool/policy-call {"fn" f "args" (vec args)})]
    (if (= :ok (get r :status)) (get r :value) (fail (result/error :policy-unavailable r)))))

(defn- phase-config [ctx phase]
  {"mission" (get phase :mission)
   "max_turns" (get phase :max-turns)
   "terminal_only" (get phase :terminal-only?)
   "max_observation_chars" (get ctx :max-observation-chars)
   "max_program_chars" (get ctx :max-program-chars)})

(defn- initial-prompt-state [ctx phase]
  (let [s (policy "agent.prompt/initial-state" (phase-config ctx phase))]
    (if (map? s) s (fail (result/error :invalid-prompt :invalid-initial-state)))))

(defn- next-prompt-state [state event]
  (let [s (policy "agent.prompt/transition" state event)]
    (if (map? s) s (fail (result/error :invalid-prompt :invalid-transition)))))

(defn- system-prompt [state]
  (let [s (policy "agent.prompt/render" state)]
    (cond
      (and (map? s) (= :error (get s :status))) (fail (result/error :mission-unavailable s))
      (not (text? s)) (fail (result/error :invalid-prompt :invalid-render))
      :else s)))

;; ------------------------------------------------------------------ requests

(defn- tool-schema []
  {"type" "function"
   "function" {"name" "run_ptc_lisp"
               "description" "Run one PTC-Lisp program. A program that ends normally continues the task; return completes it and fail aborts it."
               "parameters" {"type" "object"
                             "additionalProperties" false
                             "required" ["program"]
                             "properties" {"program" {"type" "string"}}}}})

(defn- build-request [ctx system messages]
  (let [req {"system" system "messages" messages "tools" [(tool-schema)]}]
    (if (some? (get ctx :model)) (assoc req "model" (get ctx :model)) req)))

;; ------------------------------------------------------------------ outcomes

(defn- subject-failure [kind reason]
  {:status :subject-failure :kind kind :error {:ok false :kind kind :reason reason}})

(defn- turn-limit [ctx reason]
  {:status :subject-failure
   :kind :turn-limit
   :error {:ok false :kind :turn-limit :reason reason :limit :agent_turns :limit_value (get ctx :total-turns)}})

(defn- provider-failure [ctx e]
  (let [model (or (get e :model) (get ctx :model))]
    (if (some? model)
      {:status :provider-failure :error e :model model}
      {:status :provider-failure :error e})))

;; ------------------------------------------------------------------ transcript pieces

(defn- final-phase? [ctx st]
  (= (get st :phase-idx) (dec (count (get ctx :phases)))))

(defn- current-phase [ctx st]
  (nth (get ctx :phases) (get st :phase-idx)))

(defn- call-pair-head
  "The assistant message that replays the model's call (with its narration)."
  [narration call]
  [{"role" "assistant" "content" narration "tool_calls" [call]}])

(defn- tool-feedback [action text]
  {:before (call-pair-head (get action :rationale) (get action :public-tool-call))
   :role "tool"
   :tool-call-id (get action :tool-call-id)
   :text text})

(defn- feedback-messages
  "The messages for feedback fb, with the budget notice appended (or put first for a closing turn)."
  [fb notice]
  (let [text (cond
               (nil? notice) (get fb :text)
               (true? (get fb :notice-first?)) (str notice "\n\n" (get fb :text))
               :else (str (get fb :text) "\n\n" notice))
        last-msg (if (= "tool" (get fb :role))
                   {"role" "tool" "tool_call_id" (get fb :tool-call-id) "content" text}
                   {"role" "user" "content" text})]
    (conj (vec (get fb :before)) last-msg)))

;; ------------------------------------------------------------------ moving on

(defn- next-phase
  "Close the current phase (keeping its last feedback) and open the next one."
  [ctx st fb]
  (let [idx (inc (get st :phase-idx))
        phases (get ctx :phases)
        phase (nth phases idx)
        notice (policy "agent.feedback/budget-notice"
                       (get phase :max-turns) (= idx (dec (count phases))) (get ctx :threshold))
        opening {"role" "user"
                 "content" (policy "agent.feedback/phase-transition"
                                   (get phase :mission) (get phase :instruction) notice)}]
    (assoc st
           :phase-idx idx
           :turn 0
           :global-turn (inc (get st :global-turn))
           :messages (conj (into (get st :messages) (feedback-messages fb nil)) opening)
           :prompt-state (initial-prompt-state ctx phase)
           :closing? false)))

(defn- advance
  "Append feedback fb and take another turn when one remains in the phase; otherwise open the
  next phase; otherwise end with (exhausted)."
  [ctx st event fb exhausted]
  (let [phase (current-phase ctx st)
        turn (get st :turn)
        max-turns (get phase :max-turns)]
    (cond
      (agent.retry/retry? turn max-turns)
      (let [remaining (- max-turns (inc turn))
            notice (policy "agent.feedback/budget-notice" remaining (final-phase? ctx st) (get ctx :threshold))]
        {:next (assoc st
                      :turn (inc turn)
                      :global-turn (inc (get st :global-turn))
                      :messages (into (get st :messages) (feedback-messages fb notice))
                      :prompt-state (next-prompt-state (get st :prompt-state)
                                                       {:type event :turn turn :turns-remaining remaining}))})
      (not (final-phase? ctx st)) {:next (next-phase ctx st fb)}
      :else {:done (exhausted)})))

;; ------------------------------------------------------------------ dispatch

(defn- evaluation-of [envelope]
  (if (= :ok (get envelope :status))
    (get envelope :value)
    (fail (result/error :evaluation-unavailable (get envelope :reason)))))

(defn- on-returned [ctx st action evaluation]
  (let [v (get evaluation :value)]
    (cond
      (not (final-phase? ctx st))
      {:next (next-phase ctx st (tool-feedback action (policy "agent.feedback/observation" evaluation)))}
      (not (get ctx :validate?))
      {:done {:status :returned :value v}}
      :else
      (let [check (kernel/validate-result v)]
        (if (true? (get check :valid?))
          {:done {:status :returned :value v}}
          (advance ctx st :result-contract-error
                   (tool-feedback action (policy "agent.feedback/result-contract" check))
                   (fn [] (tool/kernel-result-contract-failure {"value" v "agent_turns" (get ctx :total-turns)}))))))))

(defn- on-failed [ctx st action evaluation]
  (let [reason (get evaluation :value)]
    (if (agent.retry/correctable-capability-failure? evaluation)
      (advance ctx st :evaluation-error
               (tool-feedback action (policy "agent.feedback/capability-error" evaluation))
               (fn [] (subject-failure :model-program-failed reason)))
      {:done (subject-failure :model-program-failed reason)})))

(defn- on-error [ctx st action evaluation]
  (if (false? (get evaluation :retryable?))
    (if (or (true? (get st :closing?))
            (not (agent.retry/retry? (get st :turn) (get (current-phase ctx st) :max-turns))))
      {:done (subject-failure :non-retryable-evaluation (get evaluation :kind))}
      (let [fb (assoc (tool-feedback action (policy "agent.feedback/non-retryable" evaluation)) :notice-first? true)
            step (advance ctx st :evaluation-error fb (fn [] nil))]
        {:next (assoc (get step :next) :closing? true)}))
    (advance ctx st :evaluation-error
             (tool-feedback action (policy "agent.feedback/evaluation-error" evaluation))
             (fn [] (turn-limit ctx :evaluation-error)))))

(defn- on-evaluation [ctx st action evaluation]
  (case (get evaluation :outcome)
    :continued (advance ctx st :evaluation-success
                        (tool-feedback action (policy "agent.feedback/observation" evaluation))
                        (fn [] (turn-limit ctx :intermediate-result)))
    :returned (on-returned ctx st action evaluation)
    :failed (on-failed ctx st action evaluation)
    :busy (fail (result/error :evaluation-unavailable :busy))
    :limit_exceeded (if (= :subordinate_evaluations (get evaluation :reason))
                      (tool/kernel-runtime-limit-failure {"proof" (get evaluation :limit_proof)})
                      (fail (result/error :evaluation-unavailable (get evaluation :reason))))
    (on-error ctx st action evaluation)))

(defn- run-program [ctx st action]
  (let [mission (get (current-phase ctx st) :mission)
        evaluation (evaluation-of (kernel/eval-observed mission (get action :program)
                                                        (get ctx :max-observation-chars)))]
    (cond
      (true? (get evaluation :terminal-host-failure?))
      (fail (result/error :capability-unavailable :input-validation-unavailable))
      (true? (get evaluation :terminal-provider-failure?))
      {:done (subject-failure :model-program-failed (get evaluation :value))}
      :else (on-evaluation ctx st action evaluation))))

(defn- on-tool-call [ctx st action]
  (let [phase (current-phase ctx st)]
    (if (not (get phase :terminal-only?))
      (run-program ctx st action)
      (let [check (evaluation-of (kernel/check-terminal-source (get phase :mission) (get action :program)))]
        (case (get check :outcome)
          :valid (run-program ctx st action)
          :invalid (advance ctx st :terminal-source-required
                            (tool-feedback action (agent.feedback/terminal-rejected
                                                   (get-in check [:diagnostic :message])))
                            (fn [] (turn-limit ctx :terminal-source-required)))
          (fail (result/error :evaluation-unavailable (get check :outcome))))))))

(defn- protocol-feedback [action]
  (let [text (policy "agent.feedback/protocol-error" action)
        narration (get action :narration)]
    (if (= :program-too-large (get action :reason))
      {:before (call-pair-head narration (get action :offending-call))
       :role "tool"
       :tool-call-id (get action :tool-call-id)
       :text text}
      {:before (if (text? narration) [{"role" "assistant" "content" narration}] [])
       :role "user"
       :text text})))

(defn- on-protocol-error [ctx st action]
  (tool/kernel-agent-protocol-error {})
  (advance ctx st :protocol-error (protocol-feedback action) (fn [] (turn-limit ctx :protocol-error))))

(defn- truncation-abort [action]
  (let [limit (get action :output-limit)
        alias (get action :alias)]
    (if (map? limit)
      (tool/kernel-runtime-limit-failure {"max_tokens" (get limit "value") "bindings" (get limit "bindings")
                                          "alias" alias})
      (tool/kernel-runtime-limit-failure {"alias" alias}))))

(defn- provider-abort [e]
  (fail (tool/kernel-llm-provider-failure (result/error :llm-provider-error e))))

(defn- dispatch [ctx st action]
  (case (get action :kind)
    :tool-call (on-tool-call ctx st action)
    :protocol-error (on-protocol-error ctx st action)
    :model-output-truncated (truncation-abort action)
    :max-calls {:done (provider-failure ctx (get action :error))}
    :provider-error (if (agent.retry/recoverable-provider-error? (get action :error))
                      {:done (provider-failure ctx (get action :error))}
                      (provider-abort (get action :error)))
    (fail (result/error :unknown-action (get action :kind)))))

(defn- annotate [ctx st action]
  (let [phase (current-phase ctx st)
        kind (name (get action :kind))]
    (workflow.event/annotate "agent-action"
                             (if (get ctx :phased?)
                               {"turn" (get st :global-turn) "phase" (get st :phase-idx) "phase-turn" (get st :turn)
                                "mission" (get phase :mission) "kind" kind}
                               {"turn" (get st :global-turn) "kind" kind}))))

(defn- take-turn
  "One model request and its consequences: {:next state} to go on, {:done outcome} to stop."
  [ctx st]
  (if (>= (get st :turn) (get (current-phase ctx st) :max-turns))
    {:done (turn-limit ctx :turn-limit-exceeded)}
    (let [request (build-request ctx (system-prompt (get st :prompt-state)) (get st :messages))]
      (let [action (agent.native/normalize (llm/request request) (get ctx :max-program-chars))]
        (annotate ctx st action)
        (dispatch ctx st action)))))

(defn- first-message [ctx task]
  (let [phase (first (get ctx :phases))
        instruction (get phase :instruction)
        notice (policy "agent.feedback/budget-notice"
                       (get phase :max-turns) (= 1 (count (get ctx :phases))) (get ctx :threshold))]
    {"role" "user"
     "content" (str task (if instruction (str "\n\n" instruction) "") "\n\n" notice)}))

(defn- run-loop [task cfg validate?]
  (let [ctx (resolve-config (or cfg {}) validate?)
        _ (tool/agent-loop-start {"options" (or cfg {})})
        start {:phase-idx 0
               :turn 0
               :global-turn 0
               :messages [(first-message ctx task)]
               :prompt-state (initial-prompt-state ctx (first (get ctx :phases)))
               :closing? false}]
    (let [outcome (loop [st start]
                    (let [step (take-turn ctx st)]
                      (if (contains? step :done)
                        (get step :done)
                        (recur (get step :next)))))]
      (tool/agent-loop-end {})
      outcome)))

;; ------------------------------------------------------------------ failing fast

(defn- outcome-value
  "The value of a returned outcome; any other outcome ends the workflow."
  [outcome]
  (case (get outcome :status)
    :returned (get outcome :value)
    :subject-failure (if (= :turn-limit (get outcome :kind))
                       (tool/kernel-runtime-limit-failure
                        {"agent_turns" (get-in outcome [:error :limit_value])
                         "reason" (name (get-in outcome [:error :reason]))})
                       (fail (get outcome :error)))
    :provider-failure (let [e (get outcome :error)]
                        (if (agent.native/quota-refusal? e) (fail e) (provider-abort e)))
    (fail (result/error :unknown-outcome (get outcome :status)))))

;; ------------------------------------------------------------------ entries

(defn run-outcome
  "Run the agent loop on task with config cfg and describe how it ended, as data:
  {:status :returned :value v}, {:status :subject-failure :kind k :error {...}} or
  {:status :provider-failure :error envelope :model alias}. Invalid configuration and host
  failures still end the workflow."
  {:signature "(task :string, cfg :map?) -> :map"}
  [task cfg]
  (run-loop task cfg false))

(defn run-value
  "Run the agent loop and give back the returned value; any other outcome ends the workflow."
  {:signature "(task :string, cfg :map?) -> :any"}
  [task cfg]
  (outcome-value (run-loop task cfg false)))

(defn run-result-value
  "Like run-value, but the returned value must satisfy the application's result contract. A
  value that does not is reported back to the model while turns remain."
  {:signature "(task :string, cfg :map?) -> :any"}
  [task cfg]
  (outcome-value (run-loop task cfg true)))

(defn run-phased-result-value
  "Like run-result-value over the mission phases listed in cfg \"phases\"; only the last phase
  can finish the task."
  {:signature "(task :string, cfg :map) -> :any"}
  [task cfg]
  (when (nil? (get cfg "phases"))
    (invalid-config :invalid-phases))
  (outcome-value (run-loop task cfg true)))

(defn run
  "Run the agent loop and finish the whole workflow with {:ok true :value v}, or with the bare
  value when cfg has \"result_envelope\" false."
  {:signature "(task :string, cfg :map?) -> :any"}
  [task cfg]
  (let [v (run-value task cfg)]
    (if (false? (get cfg "result_envelope"))
      (return v)
      (return {:ok true :value v}))))
