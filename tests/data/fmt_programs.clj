;; Programs for the formatter's round-trip test (tests/tooling/test_fmt.py): each must read, format to a
;; text that reads as the same forms, and format again to the same text. They are written for
;; the test to cover the reader's syntax, not taken from elsewhere. Programs are separated by a
;; line holding only ";;;;".
;;;;
(+ 1 2 3)
;;;;
[1 -2 3.5 -0.25 1e3 2.5E-4 ##Inf ##-Inf ##NaN]
;;;;
{:name "Ada" :age 36 :tags #{:math :engines} :score nil :ok true :no false}
;;;;
"a string with \"quotes\", a \\ backslash, a tab\t and a newline\n"
;;;;
"a string
   over two lines, spaces kept"
;;;;
[\a \Z \0 \newline \space \tab \( \) \[ \] \{ \} \; \" \\]
;;;;
(re-seq #"\d+(\.\d+)?" "12.5 and 7")
;;;;
(re-find #"^\s*([A-Za-z_]+)\s*=\s*\"(.*)\"$" line)
;;;;
(map #(* % %) [1 2 3])
;;;;
(map #(+ %1 %2) [1 2] [10 20])
;;;;
(#(apply + %&) 1 2 3)
;;;;
(filter #(contains? #{:a :b} (:kind %)) items)
;;;;
'symbol
;;;;
['a 'b-c 'd? 'e! '+ '- '*]
;;;;
#'inc
;;;;
(defn square [x] (* x x))
;;;;
(defn area
  "The area of a rectangle."
  [{:keys [w h] :or {w 1 h 1}}]
  (* w h))
;;;;
(defn greet
  ([] (greet "world"))
  ([who] (str "hello, " who))
  ([who & more] (apply str "hello, " who ", " more)))
;;;;
(let [[a b & rest] [1 2 3 4]
      {:keys [x y]} {:x 10 :y 20}
      {label :name :as whole} {:name "n"}]
  [a b rest x y label whole])
;;;;
(loop [i 0 acc []]
  (if (< i 5)
    (recur (inc i) (conj acc (* i i)))
    acc))
;;;;
(for [x (range 4) y (range x) :when (odd? (+ x y)) :let [s (+ x y)]] [x y s])
;;;;
(doseq [x [1 2 3]] (println "item" x))
;;;;
(cond
  (neg? n) :negative
  (zero? n) :zero
  :else :positive)
;;;;
(case op
  :add (+ a b)
  :sub (- a b)
  (:mul :times) (* a b)
  nil)
;;;;
(->> orders
     (filter #(= :paid (:status %)))
     (map :amount)
     (reduce + 0))
;;;;
(-> {:a {:b 1}} (assoc-in [:a :c] 2) (update-in [:a :b] inc) (dissoc :z))
;;;;
(some-> m :user :address :city str/upper-case)
;;;;
(cond-> x (pos? x) inc (even? x) (* 2))
;;;;
(when-let [v (get m :k)] (println v) v)
;;;;
(if-let [[k v] (first (seq m))] {k v} {})
;;;;
(def limits {:max 10, :min 0,})
;;;;
(defonce counter 0)
;;;;
(let [f (comp inc (partial * 2))
      g (juxt first last count)
      h (fnil + 0)]
  [(f 3) (g [1 2 3]) (h nil 1)])
;;;;
(tool/search {:query "books" :limit 5})
;;;;
(let [rows (tool/fetch-rows {:table "orders"})]
  (return (count rows)))
;;;;
(if (empty? data/items) (fail {:reason :no-items}) (first data/items))
;;;;
(str/join ", " (map name [:a :b :c]))
;;;;
(format "%s has %d items (%.2f%%)" "cart" 3 12.5)
;;;;
(group-by :category [{:category :x :v 1} {:category :y :v 2} {:category :x :v 3}])
;;;;
(sort-by (juxt :last :first) [{:first "b" :last "z"} {:first "a" :last "z"}])
;;;;
(reduce-kv (fn [acc k v] (assoc acc v k)) {} {:a 1 :b 2})
;;;;
(frequencies (mapcat str/split-lines ["a\nb" "b\nc"]))
;;;;
;; a comment before the form
(inc 1) ; and one after it
;; and one at the end
;;;;
(defn classify [n] ; trailing comment on the head line
  ;; an own-line comment in the body
  (if (even? n)
    :even ; a comment after a branch
    :odd))
;;;;
[[[[[[1]]]]] {{:a 1} [#{}]} () [] {} #{}]
;;;;
(let [very-long-name-number-one 1 very-long-name-number-two 2 very-long-name-number-three 3] (+ very-long-name-number-one very-long-name-number-two very-long-name-number-three))
;;;;
(fn [x] (fn [y] (fn [z] (+ x y z))))
;;;;
(letfn [(even2? [n] (if (zero? n) true (odd2? (dec n))))
        (odd2? [n] (if (zero? n) false (even2? (dec n))))]
  (even2? 10))
;;;;
(pmap (fn [id] (tool/lookup {:id id})) [1 2 3])
;;;;
(update {:n 1} :n + 10)
;;;;
(and (some? x) (or (nil? y) (= y :default)) (not (false? z)))
;;;;
(.toUpperCase "abc")
;;;;
(java.time.LocalDate/parse "2024-01-31")
;;;;
(Math/abs -3)
;;;;
*1
;;;;
(println "unicode: 日本語 — ünïcödé" \é)
;;;;
(do
  (def a 1)

  (def b 2)


  (+ a b))
;;;;
(vector 1,2,3 , 4)
