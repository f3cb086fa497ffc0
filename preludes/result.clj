(ns result
  "Plain result maps: {:ok true :value v} for success, {:ok false :kind k :reason r} for failure.")

(defn ok
  "Wrap a successful value as {:ok true :value value}."
  [value]
  {:ok true :value value})

(defn error
  "Describe a failure as {:ok false :kind kind :reason reason}."
  [kind reason]
  {:ok false :kind kind :reason reason})

(defn ok?
  "True when r is a success map built by result/ok."
  [r]
  (and (map? r) (true? (get r :ok))))

(defn error?
  "True when r is a failure map built by result/error."
  [r]
  (and (map? r) (false? (get r :ok))))
