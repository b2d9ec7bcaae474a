package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/invopop/jsonschema"
	validator "github.com/santhosh-tekuri/jsonschema/v6"
)

var update = flag.Bool("update", false, "rewrite results.schema.json from the Go types")

// modulePath is the import path the source's doc comments are keyed by.
const modulePath = "github.com/headroom-sim/headroom"

// generatedSchema writes a schema from the types, with the doc comments of
// the packages whose types the files hold.
func generatedSchema(t *testing.T, gen func(map[string]string) ([]byte, error)) []byte {
	t.Helper()
	r := new(jsonschema.Reflector)
	t.Chdir("..") // the comments are keyed by import path: walk from the module root
	for _, dir := range []string{"./model", "./report"} {
		if err := r.AddGoComments(modulePath, dir); err != nil {
			t.Fatal(err)
		}
	}
	b, err := gen(r.CommentMap)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestResultsSchemaInStep: results.schema.json and plan.schema.json are what
// GenerateResultsSchema and GeneratePlanSchema write from the Go types and
// their doc comments, so the schemas and the code cannot disagree. After
// changing a results or plan type, run
//
//	go test ./report -run TestResultsSchemaInStep -update
func TestResultsSchemaInStep(t *testing.T) {
	for _, c := range []struct {
		file     string
		gen      func(map[string]string) ([]byte, error)
		embedded []byte
	}{
		{ResultsSchemaFile, GenerateResultsSchema, ResultsSchema()},
		{PlanSchemaFile, GeneratePlanSchema, PlanSchema()},
	} {
		t.Run(c.file, func(t *testing.T) {
			wd, err := os.Getwd()
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(wd, c.file)
			got := generatedSchema(t, c.gen)
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			have, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(have, got) {
				t.Errorf("%s is out of step with the Go types; run: go test ./report -run TestResultsSchemaInStep -update", c.file)
			}
			if !bytes.Equal(c.embedded, have) && !*update {
				t.Errorf("the embedded schema is not %s: rebuild", c.file)
			}
		})
	}
}

// CompileResultsSchema compiles the checked-in schema with a validator
// that did not write it (santhosh-tekuri/jsonschema, draft 2020-12).
func compileResultsSchema(t *testing.T) *validator.Schema {
	t.Helper()
	doc, err := validator.UnmarshalJSON(bytes.NewReader(ResultsSchema()))
	if err != nil {
		t.Fatal(err)
	}
	c := validator.NewCompiler()
	if err := c.AddResource("results.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("results.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestResultsSchemaRefuses: the schema is not vacuous. A document written
// by WriteJSON validates; one with an unknown key, a missing required
// field, a wrong type or another schema name does not.
func TestResultsSchemaRefuses(t *testing.T) {
	s := compileResultsSchema(t)
	var buf bytes.Buffer
	if err := WriteJSON(&buf, NewDocument("headroom test", ScenarioInfo{Name: "x", File: "x.toml"}, nil)); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	check := func(name, text string, valid bool) {
		t.Helper()
		v, err := validator.UnmarshalJSON(strings.NewReader(text))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		err = s.Validate(v)
		if valid && err != nil {
			t.Errorf("%s: refused: %v", name, err)
		}
		if !valid && err == nil {
			t.Errorf("%s: accepted:\n%s", name, text)
		}
	}
	check("empty document", good, true)
	check("unknown key", strings.Replace(good, `"schema":`, `"bogus": 1, "schema":`, 1), false)
	check("no generator", strings.Replace(good, `"generator": "headroom test",`, ``, 1), false)
	check("wrong type", strings.Replace(good, `"name": "x"`, `"name": 3`, 1), false)
	check("other schema", strings.Replace(good, Schema, "headroom/results/v0", 1), false)
	var m map[string]any
	if err := json.Unmarshal([]byte(good), &m); err != nil {
		t.Fatal(err)
	}
	if m["schema"] != Schema {
		t.Fatalf("document schema %v", m["schema"])
	}
}
