package report_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/invopop/jsonschema"

	"github.com/headroom-sim/headroom/report/shard"
)

// TestResultsSchemaInStepPart: report/shard/part.schema.json and
// plan-part.schema.json are what shard.GeneratePartSchema and
// GenerateDecisionPartSchema write from the Go types and their doc
// comments (parts hold a report.Plan and model.Results, or a
// report.Decision, so they are kept in step here, with the results' and
// plans' schemas: the same -update rewrites them). It lives in package
// report_test because shard imports report.
func TestResultsSchemaInStepPart(t *testing.T) {
	update := flag.Lookup("update").Value.String() == "true"
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	r := new(jsonschema.Reflector)
	t.Chdir("..")
	for _, dir := range []string{"./model", "./report", "./report/shard"} {
		if err := r.AddGoComments("github.com/headroom-sim/headroom", dir); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		file     string
		gen      func(map[string]string) ([]byte, error)
		embedded []byte
	}{
		{shard.PartSchemaFile, shard.GeneratePartSchema, shard.PartSchemaJSON()},
		{shard.DecisionPartSchemaFile, shard.GenerateDecisionPartSchema, shard.DecisionPartSchemaJSON()},
	} {
		path := filepath.Join(wd, "shard", c.file)
		got, err := c.gen(r.CommentMap)
		if err != nil {
			t.Fatal(err)
		}
		if update {
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		have, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, got) {
			t.Errorf("%s is out of step with the Go types; run: go test ./report -run TestResultsSchemaInStep -update", path)
		}
		if !bytes.Equal(c.embedded, have) && !update {
			t.Errorf("the embedded schema is not %s: rebuild", path)
		}
	}
}
