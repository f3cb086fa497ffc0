(ns cap
  "Helpers for capability envelopes ({:status :ok :value v} or {:status :error ...})."
  {:visibility :discoverable})

(defn ok?
  "True when r is a success envelope."
  [r]
  (and (map? r) (= :ok (get r :status))))

(defn unwrap!
  "The value of a success envelope; any other result fails the program with r itself, so a
  capability's own error stays recognisable as that capability's failure."
  [r]
  (if (ok? r) (get r :value) (fail r)))
