package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
)

// ResultsSchemaFile and PlanSchemaFile are where the schemas of results
// files and of plans are kept in the repository, beside the types they are
// written from (relative to this package).
const (
	ResultsSchemaFile = "results.schema.json"
	PlanSchemaFile    = "plan.schema.json"
)

//go:embed results.schema.json
var resultsSchema []byte

//go:embed plan.schema.json
var planSchema []byte

// ResultsSchema returns the JSON Schema (draft 2020-12) of the files that
// run, compare, sweep and merge write with --json (schema
// "headroom/results/v1"): the checked-in results.schema.json, which a test
// keeps equal to what GenerateResultsSchema writes from the Go types.
func ResultsSchema() []byte { return resultsSchema }

// PlanSchema returns the JSON Schema (draft 2020-12) of the decisions
// headroom plan writes with --json (schema "headroom/plan/v1"): the
// checked-in plan.schema.json, kept equal to GeneratePlanSchema's by a test.
func PlanSchema() []byte { return planSchema }

// resultsFile is the shape of every results file: a Document, plus the
// sweep section that sweeps add (SweepDocument). One schema covers both.
type resultsFile struct {
	Document
	// Sweep is present in the files of headroom sweep (and their merge):
	// the levels, the grid's parameters, points and curves, the knee and
	// the pick.
	Sweep *SweepInfo `json:"sweep,omitempty"`
}

// GenerateResultsSchema writes the results schema from the Go types that
// are marshalled into results files (Document, SweepInfo and the
// model.Results they hold). comments maps "import/path.Type" and
// "import/path.Type.Field" to their doc comments (jsonschema's
// Reflector.AddGoComments builds it from the source); they become the
// schema's descriptions. Every field not marked omitempty is required, and
// no object takes a key its type does not declare, so a file that
// validates has exactly this version's fields.
func GenerateResultsSchema(comments map[string]string) ([]byte, error) {
	return GenerateSchema(&resultsFile{}, "report.resultsFile", Schema,
		"A results file of Headroom ("+Schema+"), as headroom run, compare, sweep and merge write it with --json. "+
			"Generated from the Go types by report.GenerateResultsSchema; documented in report/RESULTS.md.", comments)
}

// GeneratePlanSchema writes the schema of the decisions headroom plan (and
// merge, for a sharded plan) writes with --json, from Decision and the
// types it holds (the winner's results among them), as
// GenerateResultsSchema does for results files.
func GeneratePlanSchema(comments map[string]string) ([]byte, error) {
	return GenerateSchema(&Decision{}, "report.Decision", DecisionSchema,
		"A plan of Headroom ("+DecisionSchema+"), as headroom plan and merge write it with --json. "+
			"Generated from the Go types by report.GeneratePlanSchema; documented in report/RESULTS.md.", comments)
}

// GenerateSchema reflects root, a pointer to the struct a file is
// marshalled from, into a JSON Schema (draft 2020-12) whose "schema" field
// is the constant name, as GenerateResultsSchema does for results files:
// rootDef names root's definition ("package.Type"), description heads the
// schema, and comments are the doc comments that become the descriptions.
// report/shard writes its part files' schema with it.
func GenerateSchema(root any, rootDef, name, description string, comments map[string]string) ([]byte, error) {
	r := &jsonschema.Reflector{
		Anonymous:  true,
		CommentMap: comments,
		// Type names are not unique across packages (report.Summary is
		// not model.Summary): name definitions by package and type.
		Namer: func(t reflect.Type) string {
			pkg := t.PkgPath()
			if i := strings.LastIndexByte(pkg, '/'); i >= 0 {
				pkg = pkg[i+1:]
			}
			if pkg == "" {
				return t.Name()
			}
			return pkg + "." + t.Name()
		},
	}
	s := r.Reflect(root)
	s.Title = name
	s.Description = description
	def, ok := s.Definitions[rootDef]
	if !ok {
		return nil, fmt.Errorf("%s schema: no definition of the root type", name)
	}
	def.Description = ""
	if p, ok := def.Properties.Get("schema"); ok {
		p.Const = name
	} else {
		return nil, fmt.Errorf("%s schema: the root type has no \"schema\" field", name)
	}
	if err := allowNulls(reflect.TypeOf(root).Elem(), r.Namer, s.Definitions, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("%s schema: %w", name, err)
	}
	return append(b, '\n'), nil
}

// allowNulls lets a field be null where encoding/json writes null: a nil
// slice, map or pointer in a field not marked omitempty. The reflector
// does not say so; the files do (an empty run's "variants": null).
func allowNulls(t reflect.Type, name func(reflect.Type) string, defs jsonschema.Definitions, seen map[reflect.Type]bool) error {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct || seen[t] {
		return nil
	}
	seen[t] = true
	def := defs[name(t)]
	var walk func(st reflect.Type) error
	walk = func(st reflect.Type) error {
		for i := range st.NumField() {
			f := st.Field(i)
			tag := f.Tag.Get("json")
			if tag == "-" || (!f.IsExported() && !f.Anonymous) {
				continue
			}
			key, opts, _ := strings.Cut(tag, ",")
			if f.Anonymous && key == "" && f.Type.Kind() == reflect.Struct {
				if err := walk(f.Type); err != nil { // inlined into this definition
					return err
				}
				continue
			}
			if key == "" {
				key = f.Name
			}
			if err := allowNulls(f.Type, name, defs, seen); err != nil {
				return err
			}
			switch f.Type.Kind() {
			case reflect.Slice, reflect.Map, reflect.Pointer:
			default:
				continue
			}
			if strings.Contains(","+opts+",", ",omitempty,") || strings.Contains(","+opts+",", ",omitzero,") {
				continue
			}
			if def == nil {
				return fmt.Errorf("results schema: no definition of %s", name(t))
			}
			p, ok := def.Properties.Get(key)
			if !ok {
				return fmt.Errorf("results schema: %s has no property %q", name(t), key)
			}
			def.Properties.Set(key, &jsonschema.Schema{
				AnyOf:       []*jsonschema.Schema{withoutDescription(p), {Type: "null"}},
				Description: p.Description,
			})
		}
		return nil
	}
	return walk(t)
}

// withoutDescription returns a copy of s whose description is left to the
// schema that wraps it.
func withoutDescription(s *jsonschema.Schema) *jsonschema.Schema {
	c := *s
	c.Description = ""
	return &c
}
