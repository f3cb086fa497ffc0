(ns kernel
  "Mission evaluation as seen from the workflow: run a program in a named mission, check a
  program without running it, describe what the mission offers, and check a final value
  against the application's result contract. Each function returns the host's envelope.")

(defn eval-source
  "Run program text in the named mission. The envelope's value is the evaluation map
  (:outcome :continued, :returned, :failed, :evaluation_error, ...)."
  [mission source]
  (tool/kernel-eval {"kind" "source" "source" source "mission" mission}))

(defn eval-observed
  "Like eval-source, but a successful value is summarised as an observation of at most
  observation-chars characters (the full value stays in the mission's history)."
  [mission source observation-chars]
  (tool/kernel-eval {"kind" "source" "source" source "mission" mission
                     "observation_chars" observation-chars}))

(defn check-source
  "Parse and analyze program text against the mission without running it."
  [mission source]
  (tool/kernel-check-source {"source" source "mission" mission}))

(defn check-terminal-source
  "Like check-source, and also require exactly one top-level (return ...) or (fail ...) form."
  [mission source]
  (tool/kernel-check-source {"source" source "mission" mission "require" "terminal"}))

(defn mission-model-context
  "The JSON text describing the mission's data, functions and tools for the model."
  [mission]
  (tool/kernel-mission-model-context {"mission" mission}))

(defn validate-result
  "Check value against the application's result contract. Gives {:enforced? bool :valid? bool
  :details {...}}; a refused request fails the program."
  [value]
  (let [r (tool/kernel-result-contract {"value" value})]
    (if (= :ok (get r :status))
      (get r :value)
      (fail r))))
