package report

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/invopop/jsonschema"
)

// ResultsSchemaFile is where the results schema is kept in the repository,
// beside the types it is written from (relative to this package).
const ResultsSchemaFile = "results.schema.json"

//go:embed results.schema.json
var resultsSchema []byte

// ResultsSchema returns the JSON Schema (draft 2020-12) of the files that
// run, compare, sweep and merge write with --json (schema
// "headroom/results/v1"): the checked-in results.schema.json, which a test
// keeps equal to what GenerateResultsSchema writes from the Go types.
func ResultsSchema() []byte { return resultsSchema }

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
	s := r.Reflect(&resultsFile{})
	s.Title = Schema
	s.Description = "A results file of Headroom (" + Schema + "), as headroom run, compare, sweep and merge write it with --json. " +
		"Generated from the Go types by report.GenerateResultsSchema; documented in report/RESULTS.md."
	root, ok := s.Definitions["report.resultsFile"]
	if !ok {
		return nil, fmt.Errorf("results schema: no definition of the root type")
	}
	root.Description = ""
	if err := allowNulls(reflect.TypeOf(resultsFile{}), r.Namer, s.Definitions, map[reflect.Type]bool{}); err != nil {
		return nil, err
	}
	if p, ok := root.Properties.Get("schema"); ok {
		p.Const = Schema
	} else {
		return nil, fmt.Errorf("results schema: the root type has no \"schema\" field")
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("results schema: %w", err)
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
