(ns agent.prompt
  "The system prompt of the agent loop. This namespace is the replaceable prompt seam:
  (initial-state cfg) builds a state map, (render state) turns it into the system prompt,
  and (transition state event) updates the state after each turn. The default prompt does
  not depend on the turn budget, so it stays the same from turn to turn."
  {:visibility :discoverable})

(defn initial-state
  "The prompt state for a phase config (mission, max_turns, terminal_only and the size limits)."
  [cfg]
  {:revision 0
   :mission (get cfg "mission")
   :turns-remaining (get cfg "max_turns")
   :terminal-only? (true? (get cfg "terminal_only"))
   :max-observation-chars (get cfg "max_observation_chars")
   :max-program-chars (get cfg "max_program_chars")})

(defn transition
  "The state after a turn: the revision counts up and the remaining budget is copied from event."
  [state event]
  (assoc state
         :revision (inc (or (get state :revision) 0))
         :turns-remaining (get event :turns-remaining)))

;; ------------------------------------------------------------------ fixed text

(defn- instructions []
  (join "\n"
        ["Instructions"
         "- Every turn, call the run_ptc_lisp tool exactly once with one complete PTC-Lisp program."
         "- A program that ends normally gives an intermediate observation; its value is kept as *1 (earlier ones as *2 and *3). End with nil when the value is large and you do not need to see it."
         "- Definitions from programs that succeed are kept for later turns. A program that fails is rolled back as a whole."
         "- (return value) completes the task with value. (fail value) gives up, with value as the reason."
         "- Use only the mission API listed under Available API, together with the built-in functions."
         "- Never repeat a call whose effect cannot be undone."
         "- Each reply tells you how many programs remain. On the FINAL TURN your program must call return or fail."
         "- Do not answer in prose: the answer is what your program returns."]))

(defn- language-notes [terminal-only?]
  (join "\n"
        ["PTC-Lisp"
         "- A small Clojure-like language for data work, with bounded time and memory: let, fn, if, cond, loop/recur, map, filter, reduce, get-in, assoc, update and the usual string and collection functions."
         "- Decoded JSON keeps string keys: read fields with (get m \"key\") or (get-in m [\"a\" \"b\"]). A keyword lookup such as (:key m) also finds a string key of the same name, and assoc, update, dissoc and merge with :key change that string key."
         (if terminal-only?
           "- This phase is terminal-only: send exactly one top-level (return ...) or (fail ...) form and nothing else."
           "- Work in small steps: look at data first, then define helpers with defn and reuse them on later turns.")
         "- Functions, data and definitions are values: pass them around like any other value."
         "- The Available API section below is complete: nothing else of the mission exists."
         "- To learn more about a function use (doc ns/name), (apropos \"text\"), (dir \"ns\"), (export-meta ns/name) or (source ns/name)."
         "- Call tools exactly in the form shown, for example (tool/name {\"arg\" value}); never invent tool names."
         "- Namespaces are fixed: (require '[clojure.string :as str]) only names an alias for this program. There is no macro definition, eval, try/catch, lazy-seq, transducer or file access; iterate, repeatedly and (range) must be consumed with take or take-while."]))

(defn- examples []
  (join "\n"
        ["Examples"
         "A first program defines a helper and looks at a value:"
         "  (defn add-one [x] (+ x 1))"
         "  (add-one 1)"
         "A later program uses the helper and finishes:"
         "  (return (add-one 41))"
         "A tool result is an envelope; check it before using the value:"
         "  (let [r (tool/exact-name {\"id\" 7})]"
         "    (if (= :ok (get r :status)) (get r :value) (fail r)))"]))

;; ------------------------------------------------------------------ types

(defn- render-fields [t]
  (let [fields (get t "fields")]
    (if (empty? fields)
      "{}"
      (str "{"
           (join ", " (map (fn [f]
                             (str (get f "name") (if (true? (get f "required")) "" "?") " "
                                  (render-type (get f "type"))))
                           fields))
           "}"))))

(defn- render-type [t]
  (if (not (map? t))
    ":any?"
    (let [kind (get t "kind")
          base (case kind
                 "string" ":string"
                 "integer" ":int"
                 "number" ":float"
                 "boolean" ":bool"
                 "keyword" ":keyword"
                 "datetime" ":datetime"
                 "nil" "nil"
                 "any" ":any"
                 "array" (str "[" (render-type (get t "items")) "]")
                 "object" (render-fields t)
                 ":any")]
      (if (and (true? (get t "nullable")) (not= "nil" kind)) (str base "?") base))))

(defn- render-contract [contract]
  (cond
    (not (map? contract)) nil
    (contains? contract "value") (render-type (get contract "value"))
    :else (str "("
               (join ", " (map (fn [p] (str (get p "name") " " (render-type (get p "type"))))
                               (get contract "parameters")))
               ") -> "
               (if (map? (get contract "returns")) (render-type (get contract "returns")) ":any?"))))

(defn- bounds [label t]
  (filter some?
          [(when (some? (get t "minimum")) (str label " >= " (get t "minimum")))
           (when (some? (get t "maximum")) (str label " <= " (get t "maximum")))
           (when (some? (get t "min_length")) (str label " length >= " (get t "min_length")))
           (when (some? (get t "max_length")) (str label " length <= " (get t "max_length")))
           (when (some? (get t "min_items")) (str label " items >= " (get t "min_items")))
           (when (some? (get t "max_items")) (str label " items <= " (get t "max_items")))
           (when (some? (get t "enum")) (str label " one of " (json/generate-string (get t "enum"))))
           (when (contains? t "const") (str label " = " (json/generate-string (get t "const"))))]))

(defn- typed-parts
  "[label type] pairs of a contract: each parameter, each field of an object parameter, the result."
  [contract]
  (let [params (get contract "parameters")
        field-parts (fn [label t]
                      (map (fn [f] [(str label "[\"" (get f "name") "\"]") (get f "type")])
                           (get t "fields")))]
    (concat
     (mapcat (fn [p] (let [label (get p "name") t (get p "type")]
                       (concat [[label t]] (field-parts label t))))
             params)
     (when (map? (get contract "returns"))
       (concat [["return" (get contract "returns")]] (field-parts "return" (get contract "returns")))))))

(defn- constraints [contract]
  (let [parts (mapcat (fn [[label t]] (bounds label t)) (typed-parts contract))]
    (when (seq parts) (join "; " parts))))

(defn- schema-docs [contract]
  (let [parts (filter some?
                      (map (fn [[label t]]
                             (let [title (get t "title") desc (get t "description")]
                               (when (or (string? title) (string? desc))
                                 (str label ": " (join " — " (filter string? [title desc]))))))
                           (typed-parts contract)))]
    (when (seq parts) (join "; " parts))))

(defn- one-line [s]
  (replace (replace (str s) "\r" "") "\n" " "))

(defn- render-entry [e]
  (let [contract (get e "contract")
        type-text (render-contract contract)
        constraint-text (when (map? contract) (constraints contract))
        docs-text (when (map? contract) (schema-docs contract))
        effect (get e "effect")]
    (join "\n"
          (filter some?
                  [(str "- " (if (= "value" (get e "kind")) "Value: " "Call: ") (get e "form"))
                   (when type-text (str "  Type: " type-text))
                   (when constraint-text (str "  Constraints: " constraint-text))
                   (when docs-text (str "  Schema docs: " docs-text))
                   (when (and (string? effect) (not= "unknown" effect)) (str "  Effect: " effect))
                   (when (string? (get e "docs")) (str "  Docs: " (one-line (get e "docs"))))]))))

(defn- tool-entry? [e]
  (starts-with? (str (get e "form")) "(tool/"))

(defn- visible-entries [entries]
  (let [sorted (sort-by (fn [e] (str (get e "form"))) entries)
        facade? (some (fn [e] (and (= "call" (get e "kind")) (not (tool-entry? e)))) sorted)]
    (if facade? (filterv (fn [e] (not (tool-entry? e))) sorted) (vec sorted))))

(defn- render-api [context]
  (let [entries (visible-entries (get context "entries"))
        notes (filter (fn [n] (string? (get n "doc"))) (get context "namespaces"))]
    (if (empty? entries)
      "Available API\n- This mission offers no data, functions or tools of its own.\n"
      (str "Available API\n"
           (if (seq notes)
             (str "API notes\n"
                  (join "\n" (map (fn [n] (str "- " (get n "namespace") ": " (one-line (get n "doc")))) notes))
                  "\n")
             "")
           (if (some tool-entry? entries)
             "Tool calls take one argument map and return an envelope: {:status :ok :value v} on success, {:status :error :kind k :reason r} on failure.\n"
             "")
           "Legend: a field written name? may be left out; a type written :type? also allows nil.\n"
           (join "\n" (map render-entry entries))
           "\n"))))

(defn- render-result [context]
  (let [t (get context "result")
        contract {"parameters" [] "returns" t}]
    (when (map? t)
      (join "\n"
            (filter some?
                    ["Result contract"
                     "- The value your program returns with (return value) must have this type; it is checked before the task counts as done."
                     (str "  Type: " (render-type t))
                     (when-let [c (constraints contract)] (str "  Constraints: " c))
                     (when-let [d (schema-docs contract)] (str "  Schema docs: " d))])))))

(defn render
  "The system prompt for state, or the error envelope of a mission that cannot be described."
  [state]
  (let [r (kernel/mission-model-context (get state :mission))]
    (if (not= :ok (get r :status))
      r
      (let [context (json/parse-string (get r :value))]
        (if (not (map? context))
          {:status :error :kind :protocol_error :reason :invalid_model_context}
          (join "\n\n"
                (filter some?
                        ["PTC_AGENT_PROMPT_V1"
                         "You complete the task by writing PTC-Lisp programs and running them with the run_ptc_lisp tool."
                         (instructions)
                         (language-notes (true? (get state :terminal-only?)))
                         (examples)
                         (render-api context)
                         (render-result context)])))))))
