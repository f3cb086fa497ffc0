(ns analysis
  "Read-only questions about agent runs recorded with --trace-dir (ptclisp repl --runs DIR).
  Run summaries and turns are maps with keyword keys; programs and observations need runs
  recorded with --inspect.")

(defn runs
  "Summaries of the recorded runs, oldest first: :id :status :task :model :turns :input_tokens
  :output_tokens :cost_usd :error :error_kinds :failed_turns ... With a filter map, only the runs
  matching every key given: :status, :model, :error_kind, :search (text)."
  [& filter]
  (tool/analysis-runs (if (seq filter) {"filter" (first filter)} {})))

(defn open
  "One run by id: its summary, the preludes it loaded, its :turns and its :outcome."
  [id]
  (tool/analysis-open {"id" id}))

(defn turns
  "The turns of a run: per turn the model call (:alias :model :model_ms :tokens), the program's
  :outcome, :error (:kind :line :col), :eval_ms and :tool_calls."
  [id]
  (tool/analysis-turns {"id" id}))

(defn programs
  "The programs the model wrote in a run, as [{:turn n :program text}] (private evidence)."
  [id]
  (tool/analysis-programs {"id" id}))

(defn observations
  "What each program of a run gave back: [{:turn :outcome :observation :prints :message}]
  (private evidence)."
  [id]
  (tool/analysis-observations {"id" id}))
