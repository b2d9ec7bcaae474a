package plan

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/scenarios"
	"github.com/headroom-sim/headroom/scenarios/schema"
)

// keysScenario is a small plan with every key of [plan]: a queue of jobs
// served by a hosted model with a rate limit, a second workload, a knob of
// each kind (a monotone range with prices, a scale with prices, options
// with a price), and every constraint. Its simulations are short, so each
// key can be tried on a whole plan.
const keysScenario = `name = "keys"
seed = 5
duration = "20m"
interval = "1m"

[[workload]]
name = "jobs"
route = "server"
demand = { unit = "requests/s", rate = 1.5 }
tokens = { input = 100, output = 10 }
client = { max_concurrency = 1, retry = "none" }
slo = { ttft = "4s" }

[[workload]]
name = "side"
route = "server"
demand = { unit = "requests/s", rate = 0.3 }
tokens = { input = 50, output = 10 }
client = { retry = "none" }

[[provider]]
name = "server"
  [provider.limits]
  rpm = 90
  [provider.latency]
  ttft = { base = "1s", dist = "exponential" }
  [provider.price]
  input = 2.0
  output = 8.0

[plan]
objective = ["min_cost", "max_load"]
attainment = 0.9
window = "5m"
window_requests = 20
replications = 2
confidence = 0.9
bound = "mean"
recheck = 3
screen = 0.5
max_failed = 0.2
max_429 = 0.3
budget = 100
max_factor = 8
precision = 0.05

[[plan.target]]
workload = "jobs"
metric = "queue_wait"
percentile = 95
max = "3s"

[[plan.knob]]
name = "servers"
key = "workload.jobs.client.max_concurrency"
range = "1..6"
prices = [1, 2, 3, 4, 5, 6]
per = "day"
monotone = true

[[plan.knob]]
name = "tier"
scale = ["provider.server.limits.rpm"]
values = [1, 2]
prices = [0, 0.5]
per = "hour"

[[plan.knob]]
name = "speed"
monotone = false
  [[plan.knob.option]]
  name = "standard"
  set = { "provider.server.latency.ttft.base" = "1s" }
  [[plan.knob.option]]
  name = "fast"
  price = 2
  per = "day"
  set = { "provider.server.latency.ttft.base" = "0.6s" }
`

// planKey is one key of [plan] reached in the decoded table.
type planKey struct {
	path  string // canonical: plan.knob[0].range
	field schema.Field
	t     reflect.Type // pointers removed
}

// planKeys lists every key of the [plan] table spec: every field of every
// table, in every element of the arrays of tables spec has.
func planKeys(t reflect.Type, v reflect.Value, at string) []planKey {
	var out []planKey
	fields, err := schema.Fields(t)
	if err != nil {
		panic(err)
	}
	for _, f := range fields {
		path := at + "." + f.Key
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		fv := v.Field(f.Index)
		if ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct {
			for i := 0; i < fv.Len(); i++ {
				out = append(out, planKeys(ft.Elem(), fv.Index(i), path+"["+strconv.Itoa(i)+"]")...)
			}
			continue
		}
		out = append(out, planKey{path, f, ft})
	}
	return out
}

// generic is a key's path without element indices: plan.knob[].range.
func generic(path string) string { return regexp.MustCompile(`\[\d+\]`).ReplaceAllString(path, "[]") }

// keyValues are the values each key of [plan] is tried with; every key of
// the schema must have an entry, so a new key cannot go untried.
var keyValues = map[string][]any{
	"plan.objective":       {"min_cost", []any{"min_cost"}, "max_load"},
	"plan.attainment":      {0.99, 0.5, 0},
	"plan.window":          {"2m", "interval", "none"},
	"plan.window_requests": {200, 1, 1_000_000},
	"plan.replications":    {3, 1},
	"plan.confidence":      {0.99, 0.5},
	"plan.bound":           {"quantile"},
	"plan.recheck":         {6, 2},
	"plan.screen":          {0, 0.01, 100},
	"plan.max_failed":      {0.0001, 0},
	"plan.max_429":         {0.0001, 0},
	"plan.budget":          {0.001, 1e6},
	"plan.max_factor":      {1.5, 100},
	"plan.precision":       {0.01, 0.5},

	"plan.target[].workload":   {"side", ""},
	"plan.target[].metric":     {"ttft", "e2e", "tpot"},
	"plan.target[].percentile": {50, 99},
	"plan.target[].mean":       {true},
	"plan.target[].max":        {"1s", "30s"},

	"plan.knob[].name":     {"renamed"},
	"plan.knob[].key":      {"workload.side.client.max_concurrency", "provider.server.limits.rpm"},
	"plan.knob[].scale":    {[]any{"provider.server.limits.rpm", "provider.server.price.input"}, []any{"provider.server.price.input"}},
	"plan.knob[].range":    {"2..7", "1..3+1"},
	"plan.knob[].values":   {[]any{int64(1), int64(4)}, []any{0.5, 1}},
	"plan.knob[].prices":   {[]any{0, 0, 0, 0, 0, 0}, []any{6, 5, 4, 3, 2, 1}, []any{0, 100}},
	"plan.knob[].per":      {"hour", "horizon", "year"},
	"plan.knob[].monotone": {false, true},

	"plan.knob[].option[].name":  {"renamed"},
	"plan.knob[].option[].price": {0, 500},
	"plan.knob[].option[].per":   {"hour", "horizon"},
	"plan.knob[].option[].set":   {map[string]any{"provider.server.latency.ttft.base": "3s"}},
}

// keySources edit the plan, by key, where a key shows its effect only
// without another (mean needs a target without a percentile; min_cost
// alone takes no max_load keys); both the base and the key's values run
// on the edited plan.
var keySources = map[string][]string{
	"plan.target[].mean": {"percentile = 95\n"},
	"plan.objective":     {"max_factor = 8\n", "precision = 0.05\n"},
}

// decisionOf answers the plan with sets and returns the decision as JSON,
// without the settings (which only echo the keys) and the time it took.
func decisionOf(t *testing.T, sc *scenarios.Scenario, sets []scenarios.Override) ([]byte, error) {
	pr, err := Compile(sc, sets)
	if err != nil {
		return nil, err
	}
	d, err := Run(context.Background(), pr, Options{Workers: 1})
	if err != nil {
		t.Fatalf("%v: %v", sets, err)
	}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "settings")
	delete(m["search"].(map[string]any), "elapsed_s")
	b, _ = json.Marshal(m)
	return append(b, d.WinnerTOML...), nil
}

// TestEveryPlanKeyUsed: headroom plan uses every key of [plan] or refuses
// it. Each key is set to other valid values on a whole plan; one of them
// must change the decision (the candidates, their checks, the winner, the
// growth, the search), or every one of them must be refused with an error
// at the key. This is the key-effect test of the scenario format for the
// table only headroom plan reads.
func TestEveryPlanKeyUsed(t *testing.T) {
	if testing.Short() {
		t.Skip("answers a small plan a hundred times")
	}
	sc, err := scenarios.LoadBytes([]byte(keysScenario), "keys.toml")
	if err != nil {
		t.Fatal(err)
	}
	base, err := decisionOf(t, sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := planKeys(reflect.TypeFor[scenarios.PlanSpec](), reflect.ValueOf(*sc.Plan), "plan")
	byGeneric := map[string][]planKey{}
	for _, k := range keys {
		byGeneric[generic(k.path)] = append(byGeneric[generic(k.path)], k)
	}
	for _, g := range slices.Sorted(maps.Keys(byGeneric)) {
		if _, ok := keyValues[g]; !ok {
			t.Errorf("%s: no values to try; add it to keyValues", g)
		}
	}
	for g := range keyValues {
		if _, ok := byGeneric[g]; !ok {
			t.Errorf("keyValues has %s, which keys.toml does not reach", g)
		}
	}
	for _, g := range slices.Sorted(maps.Keys(byGeneric)) {
		t.Run(g, func(t *testing.T) {
			t.Parallel()
			ref, sc := base, sc
			if cut := keySources[g]; len(cut) > 0 {
				src := keysScenario
				for _, c := range cut {
					src = strings.Replace(src, c, "", 1)
				}
				var err error
				if sc, err = scenarios.LoadBytes([]byte(src), "keys.toml"); err != nil {
					t.Fatal(err)
				}
				if ref, err = decisionOf(t, sc, nil); err != nil {
					t.Fatal(err)
				}
			}
			var refusals []string
			for _, k := range byGeneric[g] {
				for _, v := range keyValues[g] {
					got, err := decisionOf(t, sc, []scenarios.Override{{Path: k.path, Value: v}})
					if err != nil {
						var e *scenarios.Error
						if !errors.As(err, &e) || e.Key == "" {
							t.Errorf("%s = %v: refused without a key: %v", k.path, v, err)
						}
						refusals = append(refusals, fmt.Sprintf("%v: %v", v, err))
						continue
					}
					if string(got) != string(ref) {
						return
					}
				}
			}
			if len(refusals) == len(keyValues[g])*len(byGeneric[g]) {
				t.Logf("every value refused: %s", strings.Join(refusals, " | "))
				return
			}
			t.Errorf("no value changed the decision (refused: %v)", refusals)
		})
	}
}

// TestEveryPlanNumberChecked: every number of [plan] set to NaN, ±Inf, a
// negative number, zero, a huge number and the top of its range is refused
// with an error at the key that says why, or compiles to finite settings,
// as TestEveryNumberChecked requires of the rest of the format.
func TestEveryPlanNumberChecked(t *testing.T) {
	sc, err := scenarios.LoadBytes([]byte(keysScenario), "keys.toml")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, k := range planKeys(reflect.TypeFor[scenarios.PlanSpec](), reflect.ValueOf(*sc.Plan), "plan") {
		et := k.t
		if et.Kind() == reflect.Slice {
			et = et.Elem()
		}
		switch et.Kind() {
		case reflect.Int, reflect.Int64, reflect.Float64:
		default:
			continue
		}
		n++
		values := []float64{math.NaN(), math.Inf(1), math.Inf(-1), -1, 0, 1e300}
		if r := k.field.Range; !r.IsZero() {
			if top := r.Parts[len(r.Parts)-1].Hi; !math.IsInf(top, 1) {
				values = append(values, top)
			}
		}
		for _, v := range values {
			var value any = v
			if k.t.Kind() == reflect.Slice { // a list: its first element
				list := []any{v}
				if n := len(sc.Plan.Knobs[knobIndex(k.path)].Prices); strings.HasSuffix(k.path, "prices") && n > 0 {
					list = []any{v, 1e9, 1e9, 1e9, 1e9, 1e9}[:n]
				}
				value = list
			}
			pr, err := Compile(sc, []scenarios.Override{{Path: k.path, Value: value}})
			if err != nil {
				var e *scenarios.Error
				if !errors.As(err, &e) || e.Key == "" {
					t.Errorf("%s = %v: error not located: %v", k.path, v, err)
				}
				if (math.IsNaN(v) || math.IsInf(v, 0)) && !strings.Contains(err.Error(), "finite") && !strings.Contains(err.Error(), "integer") {
					t.Errorf("%s = %v: refused, but the message does not say why: %v", k.path, v, err)
				}
				continue
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s = %v accepted", k.path, v)
				continue
			}
			st := pr.Settings
			for _, f := range []float64{st.Confidence, st.Screen, st.WindowS, st.Attainment, st.MaxFactor, st.Precision} {
				if math.IsNaN(f) || math.IsInf(f, 0) {
					t.Errorf("%s = %v: settings %+v", k.path, v, st)
				}
			}
			for _, kn := range pr.Knobs {
				for _, f := range kn.Fixed {
					if math.IsNaN(f) || math.IsInf(f, 0) {
						t.Errorf("%s = %v: knob %s prices %v", k.path, v, kn.Name, kn.Fixed)
					}
				}
			}
			for _, c := range pr.Cons {
				if math.IsNaN(c.Limit) || math.IsInf(c.Limit, 0) {
					t.Errorf("%s = %v: constraint %s limit %v", k.path, v, c.ID, c.Limit)
				}
			}
		}
	}
	if n < 15 {
		t.Errorf("only %d numeric keys of [plan] reached", n)
	}
}

// knobIndex is the knob a canonical path plan.knob[i]... names.
func knobIndex(path string) int {
	m := regexp.MustCompile(`^plan\.knob\[(\d+)\]`).FindStringSubmatch(path)
	if m == nil {
		return 0
	}
	i, _ := strconv.Atoi(m[1])
	return i
}

// TestEveryKeyPlanCompiles: the [plan] of testdata/good/every-key.toml,
// which the scenario format's tests walk, is a plan headroom plan takes.
func TestEveryKeyPlanCompiles(t *testing.T) {
	path := filepath.Join("..", "..", "testdata", "good", "every-key.toml")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.LoadBytes(src, path)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := Compile(sc, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(pr.Knobs) != 3 || len(pr.Cons) == 0 {
		t.Errorf("%d knobs, %d constraints", len(pr.Knobs), len(pr.Cons))
	}
}
