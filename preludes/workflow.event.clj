(ns workflow.event
  "Annotations that the host records alongside a workflow run.")

(defn annotate
  "Record one annotation of the given type with a small data map. Never fails the run."
  [type data]
  (tool/workflow-annotate {"type" type "data" data}))
