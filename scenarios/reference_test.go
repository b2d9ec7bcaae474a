package scenarios

import (
	"bytes"
	"flag"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios/schema"
)

var update = flag.Bool("update", false, "rewrite REFERENCE.md from REFERENCE.md.tmpl and the schema")

// TestReferenceInStep: REFERENCE.md is REFERENCE.md.tmpl with every table
// of the schema written from its definitions, so the document and the code
// cannot disagree. After changing a key, run
//
//	go test ./scenarios -run TestReferenceInStep -update
func TestReferenceInStep(t *testing.T) {
	tmpl, err := os.ReadFile("REFERENCE.md.tmpl")
	if err != nil {
		t.Fatal(err)
	}
	got, err := RenderReference(tmpl)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("REFERENCE.md", got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	have, err := os.ReadFile("REFERENCE.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, got) {
		t.Errorf("REFERENCE.md is out of step with the schema or its template; run: go test ./scenarios -run TestReferenceInStep -update")
	}
}

// TestDefinitionsComplete: every key says what it means; every number has
// a range; the retry presets' list is the presets'; and a default written
// as a value is the value the key takes when absent.
func TestDefinitionsComplete(t *testing.T) {
	for _, tb := range Tables() {
		for _, k := range tb.Keys {
			if k.Meaning == "" {
				t.Errorf("%s: no doc tag", k.Path)
			}
			numeric := strings.Contains(k.Type, "number") || strings.Contains(k.Type, "integer") || strings.Contains(k.Type, "duration") || k.Type == "distribution"
			if numeric && k.Allowed == "" && k.Path != "variant.set" {
				t.Errorf("%s: a %s without a range tag", k.Path, k.Type)
			}
		}
	}
	if retry, ok := lookupTable(Tables(), "workload.client.retry"); ok {
		if got, want := retry.Keys[0].Allowed, "`"+strings.Join(model.RetryPresetNames(), "`, `"); !strings.HasPrefix(got, want[:strings.LastIndex(want, ",")]) {
			t.Errorf("retry preset tag %q is not the presets %v", got, model.RetryPresetNames())
		}
	}
	s := everyKey(t)
	_, d, err := s.derive("", nil)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, k := range walkKeys(reflect.TypeFor[Scenario](), s.tree, "", true) {
		def := strings.SplitN(k.field.Default, ":", 2)[0]
		if def == "" || treeValue(s.tree, k.path) != nil || !strings.Contains(k.path, ".") || strings.HasPrefix(k.path, "gateway") {
			continue // written in the file, or defaults applied later (top level, gateway)
		}
		if _, ok := treeValue(s.tree, k.path[:strings.LastIndex(k.path, ".")]).(map[string]any); !ok {
			continue // inside a value written in its short form
		}
		var want any
		if f, err := strconv.ParseFloat(def, 64); err == nil {
			want = f
		} else if f, err := schema.ParseSeconds(def); err == nil {
			want = f
		} else if def == "true" || def == "false" {
			want = def == "true"
		} else if slices.Contains(k.field.Enum, def) {
			want = def
		} else {
			continue // words, not a value
		}
		if v := valueAt(d, k.path); !v.IsValid() || v.IsZero() {
			continue // absent stands for the default; the code reads it so
		}
		if !sameValue(k.t, want, valueAt(d, k.path)) {
			t.Errorf("%s: tag default %q, but the key takes %v when absent", k.path, k.field.Default, valueAt(d, k.path))
		}
		checked++
	}
	if checked < 15 {
		t.Errorf("only %d defaults checked", checked)
	}
}
