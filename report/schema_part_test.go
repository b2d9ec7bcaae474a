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

// TestResultsSchemaInStepPart: report/shard/part.schema.json is what
// shard.GeneratePartSchema writes from the Go types and their doc comments
// (a part holds a report.Plan and model.Results, so it is kept in step
// here, with the results' and plans' schemas: the same -update rewrites
// it). It lives in package report_test because shard imports report.
func TestResultsSchemaInStepPart(t *testing.T) {
	update := flag.Lookup("update").Value.String() == "true"
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(wd, "shard", shard.PartSchemaFile)
	r := new(jsonschema.Reflector)
	t.Chdir("..")
	for _, dir := range []string{"./model", "./report", "./report/shard"} {
		if err := r.AddGoComments("github.com/headroom-sim/headroom", dir); err != nil {
			t.Fatal(err)
		}
	}
	got, err := shard.GeneratePartSchema(r.CommentMap)
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
	if !bytes.Equal(shard.PartSchemaJSON(), have) && !update {
		t.Errorf("the embedded schema is not %s: rebuild", path)
	}
}
