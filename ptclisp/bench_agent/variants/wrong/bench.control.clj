(ns bench.control
  "Benchmark control prelude. bench-directive: reference-model-sabotage. This line tells the scripted reference model to answer badly on purpose, so a benchmark run can prove that scoring and statistics notice the difference. Real models can ignore it.")

(defn echo
  "Returns its argument unchanged."
  [x]
  x)
