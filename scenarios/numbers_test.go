package scenarios

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/sim"
)

// everyKey loads testdata/good/every-key.toml, which has every table of
// the format.
func everyKey(t testing.TB) *Scenario {
	t.Helper()
	path := filepath.Join("..", "testdata", "good", "every-key.toml")
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadBytes(src, path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// schemaKey is one key of the format reached in a tree: its canonical path
// and definition.
type schemaKey struct {
	path  string
	field schema.Field
	t     reflect.Type // the key's type, pointers removed
}

// keysOf lists every key of the format below type t that tree reaches:
// every field of every table (present or not), in the first element of
// each array of tables the tree has (in every element with all), the
// parameters of distributions.
func keysOf(t reflect.Type, tree any, at string) []schemaKey { return walkKeys(t, tree, at, false) }

func walkKeys(t reflect.Type, tree any, at string, all bool) []schemaKey {
	var out []schemaKey
	fields, err := schema.Fields(t)
	if err != nil {
		panic(err)
	}
	for _, f := range fields {
		path := schema.JoinPath(at, schema.FormatKey(f.Key))
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		var sub any
		if m, ok := tree.(map[string]any); ok {
			sub = m[f.Key]
		}
		switch {
		case ft.Kind() == reflect.Map:
		case ft.Kind() == reflect.Struct:
			out = append(out, schemaKey{path, f, ft})
			out = append(out, walkKeys(ft, sub, path, all)...)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			out = append(out, schemaKey{path, f, ft})
			elems, _ := arrayOf(sub)
			for i, e := range elems {
				if i > 0 && !all {
					break
				}
				out = append(out, walkKeys(ft.Elem(), e, path+"["+strconv.Itoa(i)+"]", all)...)
			}
		default:
			out = append(out, schemaKey{path, f, ft})
		}
	}
	return out
}

// isNumber reports whether values of t are numbers (or arrays of them).
func isNumber(t reflect.Type) bool {
	if t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		return true
	}
	return false
}

// runShort simulates a configuration for at most a few seconds of wall
// time and returns its results as JSON, or ok false when it did not finish
// (work that large is refused by the work estimate, not by the schema).
func runShort(t *testing.T, c model.Config) (out []byte, ok bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	res, err := model.RunAll(ctx, []model.Config{c}, 1, nil)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, sim.ErrInterrupted) {
			return nil, false
		}
		t.Fatalf("run: %v", err)
	}
	if res[0].Interrupted {
		return nil, false
	}
	b, err := json.Marshal(res[0])
	if err != nil {
		t.Fatalf("results cannot be written: %v", err)
	}
	return b, true
}

// TestEveryNumberChecked walks every numeric key of the schema and sets it
// to NaN, ±Inf, a negative number, zero, a huge number and the top of its
// range. Each must be refused with a located error naming the override, or
// run to results in which every figure is finite.
func TestEveryNumberChecked(t *testing.T) {
	if testing.Short() {
		t.Skip("runs hundreds of short simulations")
	}
	s := everyKey(t)
	keys := keysOf(reflect.TypeFor[Scenario](), s.tree, "")
	n, ran := 0, 0
	for _, k := range keys {
		if !isNumber(k.t) || strings.HasPrefix(k.path, "variant") {
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
			if k.t.Kind() == reflect.Slice {
				value = []any{v}
			}
			sets := []Override{{Path: "duration", Value: "1m"}, {Path: k.path, Value: value}}
			if k.path == "duration" {
				sets = sets[1:]
			}
			cfgs, err := s.Configs(sets)
			if err != nil {
				var e *Error
				if !errors.As(err, &e) || e.Key == "" {
					t.Errorf("%s = %v: error not located: %v", k.path, v, err)
				}
				if math.IsNaN(v) || math.IsInf(v, 0) {
					if !strings.Contains(err.Error(), "finite") && !strings.Contains(err.Error(), "integer") {
						t.Errorf("%s = %v: refused, but the message does not say why: %v", k.path, v, err)
					}
				}
				continue
			}
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%s = %v accepted", k.path, v)
				continue
			}
			if _, ok := runShort(t, cfgs[0]); ok {
				ran++
			} else {
				t.Logf("%s = %v: accepted; the run did not finish in 3 s (too much work, which the work estimate refuses)", k.path, v)
			}
		}
	}
	if n < 150 {
		t.Errorf("only %d numeric keys reached; every-key.toml should have every table", n)
	}
	t.Logf("%d numeric keys, %d accepted values simulated", n, ran)
}
