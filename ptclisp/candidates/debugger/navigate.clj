(ns debug
  "Finding your way through the failed runs of an agent: which runs failed and how, what each
  turn sent and got back. Built on the analysis functions; programs, observations and feedback
  need runs recorded with --inspect.")

(defn failures
  "The failed runs, one map each: :task :kind (wrong_answer, turn_limit, ...) :note :answer and
  :run (the trace run id, or nil when the run left no trace)."
  []
  data/failures)

(defn component
  "The current source of a component, by id (see data/components for the ids)."
  [id]
  (get data/components id))

(defn run
  "One traced run by id: its summary, preludes, turns and outcome."
  [id]
  (analysis/open id))

(defn turn
  "Turn n of a traced run: its public facts plus, when recorded, :program and :observation."
  [id n]
  (let [facts (first (filter (fn [t] (= n (get t :turn))) (analysis/turns id)))
        prog (first (filter (fn [t] (= n (get t :turn))) (analysis/programs id)))
        seen (first (filter (fn [t] (= n (get t :turn))) (analysis/observations id)))]
    (merge facts {:program (get prog :program) :observation (get seen :observation)
                  :message (get seen :message)})))

(defn programs
  "Every program a traced run sent, in turn order."
  [id]
  (analysis/programs id))

(defn feedback
  "What each program of a traced run got back (the observation or error the loop showed the model)."
  [id]
  (analysis/observations id))

(defn similar
  "The other failures of the same task."
  [task]
  (filter (fn [f] (= task (get f :task))) data/failures))
