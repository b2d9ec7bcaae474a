package scenarios

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"text/template"

	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/workloads"
)

// The scenario reference, `headroom explain` and the JSON Schema are all
// written from the struct tags of the spec types (package schema): the
// definitions that decoding and validation check.

// KeyDoc is one key of the format as the reference shows it.
type KeyDoc struct {
	Key     string // the key in its table, e.g. "rpm"
	Path    string // its path without element names: "provider.limits.rpm"
	Type    string // "number", "duration", "distribution", "table"...
	Unit    string
	Default string
	Allowed string
	Meaning string
	Table   string // the path of the table it opens, if it is one
}

// Table is one table of the format: the top level, [workload.demand],
// [[provider]]...
type Table struct {
	Path   string // "" for the top level, "provider.limits"
	Header string // "top level", "[provider.limits]", "[[provider]]"
	Doc    string // what the key holding it means
	Keys   []KeyDoc
	// Same is the path of the table with the same keys documented first
	// ([[provider.key]] limits are [provider.limits]).
	Same string
	t    reflect.Type
}

// distributionPath names the one section that documents every
// distribution's table.
const distributionPath = "distribution"

// Tables lists the tables of the format in the order of the schema, each
// once; a table whose type another path already documents says so in
// Same. The distribution's table comes last, at "distribution".
func Tables() []Table {
	var out []Table
	seen := map[reflect.Type]string{}
	var walk func(t reflect.Type, path, header, doc string)
	walk = func(t reflect.Type, path, header, doc string) {
		tb := Table{Path: path, Header: header, Doc: doc, t: t}
		if first, ok := seen[t]; ok {
			tb.Same = first
			out = append(out, tb)
			return
		}
		seen[t] = path
		fields, err := schema.Fields(t)
		if err != nil {
			panic(err) // the schema tests parse every tag
		}
		tb.Keys = make([]KeyDoc, 0, len(fields))
		type child struct {
			t              reflect.Type
			path, hdr, doc string
		}
		var children []child
		for i := range fields {
			f := &fields[i]
			k := KeyDoc{Key: f.Key, Path: schema.JoinPath(path, schema.FormatKey(f.Key)), Type: keyType(f.Type), Unit: f.Unit,
				Default: f.Default, Allowed: f.Allowed(), Meaning: f.Doc}
			if k.Default == "" && deref(f.Type).Kind() == reflect.Bool {
				k.Default = "false"
			}
			ft := deref(f.Type)
			array := ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct
			if array {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct && !schema.IsRanged(ft) {
				k.Table = k.Path
				hdr := "[" + k.Path + "]"
				if array {
					hdr = "[" + hdr + "]"
				}
				children = append(children, child{ft, k.Path, hdr, f.Doc})
			}
			tb.Keys = append(tb.Keys, k)
		}
		out = append(out, tb)
		for _, c := range children {
			walk(c.t, c.path, c.hdr, c.doc)
		}
	}
	walk(reflect.TypeFor[Scenario](), "", "top level", "the scenario")
	walk(reflect.TypeFor[workloads.Dist](), distributionPath, "distribution table", "a distribution of a non-negative quantity, in the unit of the key that holds it")
	return out
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

var describedType = reflect.TypeFor[schema.Described]()

// keyType names a key's type for people.
func keyType(t reflect.Type) string {
	t = deref(t)
	if t.Implements(describedType) {
		return reflect.Zero(t).Interface().(schema.Described).KeyType()
	}
	switch t.Kind() {
	case reflect.Slice:
		if t.Elem().Kind() == reflect.Struct && !t.Elem().Implements(describedType) {
			return "array of tables"
		}
		e := keyType(t.Elem())
		switch {
		case strings.HasSuffix(e, "y"):
			e = strings.TrimSuffix(e, "y") + "ies"
		case !strings.HasSuffix(e, "s"):
			e += "s"
		}
		return "array of " + e
	case reflect.Struct, reflect.Map:
		return "table"
	case reflect.Int, reflect.Int64, reflect.Uint64:
		return "integer"
	case reflect.Float64:
		return "number"
	case reflect.Bool:
		return "boolean"
	}
	return "string"
}

// lookupTable finds a table by its path.
func lookupTable(tables []Table, path string) (Table, bool) {
	i := slices.IndexFunc(tables, func(t Table) bool { return t.Path == path })
	if i < 0 {
		return Table{}, false
	}
	return tables[i], true
}

// KeyTable writes the markdown table of a table's keys for the reference.
func (t Table) KeyTable() string {
	if t.Same != "" {
		return fmt.Sprintf("The same keys as `%s`.", t.Same)
	}
	var b strings.Builder
	b.WriteString("| Key | Type | Unit | Default | Allowed | Meaning |\n|---|---|---|---|---|---|\n")
	cell := func(s string) string { return strings.ReplaceAll(s, "|", "\\|") }
	for _, k := range t.Keys {
		key := "`" + k.Key + "`"
		if k.Table != "" {
			key = "`" + k.Key + "` (§ `" + k.Table + "`)"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", key, cell(k.Type), cell(k.Unit), cell(k.Default), cell(k.Allowed), cell(k.Meaning))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// RenderReference fills the reference template: {{keys "PATH"}} becomes
// the key table of the table at PATH ("" for the top level,
// "distribution" for distributions), {{header "PATH"}} its header and
// meaning. Every table of the format must be written exactly once.
func RenderReference(tmpl []byte) ([]byte, error) {
	tables := Tables()
	used := map[string]int{}
	t, err := template.New("reference").Funcs(template.FuncMap{
		"keys": func(path string) (string, error) {
			tb, ok := lookupTable(tables, path)
			if !ok {
				return "", fmt.Errorf("no table %q in the schema", path)
			}
			used[path]++
			return tb.KeyTable(), nil
		},
		"header": func(path string) (string, error) {
			tb, ok := lookupTable(tables, path)
			if !ok {
				return "", fmt.Errorf("no table %q in the schema", path)
			}
			return "**`" + tb.Header + "`**: " + tb.Doc + ".", nil
		},
	}).Parse(string(tmpl))
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, nil); err != nil {
		return nil, err
	}
	var missing, twice []string
	for _, tb := range tables {
		switch used[tb.Path] {
		case 0:
			missing = append(missing, tb.Header)
		case 1:
		default:
			twice = append(twice, tb.Header)
		}
	}
	if len(missing) > 0 || len(twice) > 0 {
		return nil, fmt.Errorf("the reference must document every table once: missing %v, more than once %v", missing, twice)
	}
	return b.Bytes(), nil
}
