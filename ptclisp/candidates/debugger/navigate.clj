(ns debug
  "Finding your way through the failed runs of an agent: which runs failed and how, what each
  turn sent and what it got back. Built on the analysis functions (whose answers arrive as tool
  results); programs, observations and feedback need runs recorded with --inspect.")

(defn- unwrap [result]
  (if (and (map? result) (contains? result :status))
    (if (= :ok (keyword (get result :status))) (get result :value) result)
    result))

(defn- field [m k]
  (if (contains? m k) (get m k) (get m (name k))))

(defn- at-turn [items n]
  (first (filter (fn [t] (= n (field t :turn))) items)))

(defn failures
  "The failed runs, one map each: :task :variant :kind (wrong_answer, turn_limit, ...) :note
  :answer and :run (the trace run id, or nil when the run left no trace)."
  []
  data/failures)

(defn component
  "The current source of a component, by id (the ids are the keys of data/components)."
  [id]
  (get data/components id))

(defn run
  "One traced run by id: its summary, the preludes it loaded, its turns and its outcome."
  [id]
  (unwrap (analysis/open id)))

(defn turns
  "The public facts of each turn of a traced run: model call, outcome, error position, tool calls."
  [id]
  (unwrap (analysis/turns id)))

(defn programs
  "Every program a traced run sent, as [{turn program}] in turn order."
  [id]
  (unwrap (analysis/programs id)))

(defn feedback
  "What each program of a traced run got back: [{turn outcome observation prints message}]."
  [id]
  (unwrap (analysis/observations id)))

(defn turn
  "Turn n of a traced run in one map: its public facts, the program and what it got back."
  [id n]
  (let [facts (at-turn (turns id) n)
        prog (at-turn (programs id) n)
        seen (at-turn (feedback id) n)]
    {:turn n :outcome (field facts :outcome) :error (field facts :error) :program (field prog :program)
     :observation (field seen :observation) :message (field seen :message)}))

(defn similar
  "The failures of the same task (in every arm and repeat)."
  [task]
  (filter (fn [f] (= task (get f :task))) data/failures))
