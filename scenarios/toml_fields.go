package scenarios

import (
	"reflect"
	"sort"
	"strings"
)

// tomlField is a struct field as the toml library sees it.
type tomlField struct {
	name   string       // TOML key: the tag name, or the Go field name
	tagged bool         // the name comes from a toml tag
	index  []int        // field index sequence (through embedded structs)
	typ    reflect.Type // the field's type
}

// structFields lists the fields the toml library decodes for struct type t,
// in declaration order. It follows the library's rules: `toml:"-"` and
// unexported fields are skipped, fields of embedded structs without a tag
// name are promoted, and Go's embedding rules (with tagged fields winning)
// settle name conflicts.
func structFields(t reflect.Type) []tomlField {
	type queued struct {
		typ   reflect.Type
		index []int
	}
	var fields []tomlField
	visited := map[reflect.Type]bool{}
	next := []queued{{typ: t}}
	var count, nextCount map[reflect.Type]int
	for len(next) > 0 {
		current := next
		next = nil
		count, nextCount = nextCount, map[reflect.Type]int{}
		for _, q := range current {
			if visited[q.typ] {
				continue
			}
			visited[q.typ] = true
			for i := 0; i < q.typ.NumField(); i++ {
				sf := q.typ.Field(i)
				if sf.PkgPath != "" && !sf.Anonymous { // unexported
					continue
				}
				tag := sf.Tag.Get("toml")
				if tag == "-" {
					continue
				}
				name, _, _ := strings.Cut(tag, ",")
				index := make([]int, len(q.index)+1)
				copy(index, q.index)
				index[len(q.index)] = i
				ft := sf.Type
				if ft.Name() == "" && ft.Kind() == reflect.Pointer {
					ft = ft.Elem()
				}
				if name != "" || !sf.Anonymous || ft.Kind() != reflect.Struct {
					tagged := name != ""
					if name == "" {
						name = sf.Name
					}
					f := tomlField{name: name, tagged: tagged, index: index, typ: sf.Type}
					fields = append(fields, f)
					if count[q.typ] > 1 {
						fields = append(fields, f) // duplicate: annihilated below
					}
					continue
				}
				nextCount[ft]++
				if nextCount[ft] == 1 {
					next = append(next, queued{typ: ft, index: index})
				}
			}
		}
	}

	sort.SliceStable(fields, func(i, j int) bool {
		a, b := fields[i], fields[j]
		if a.name != b.name {
			return a.name < b.name
		}
		if len(a.index) != len(b.index) {
			return len(a.index) < len(b.index)
		}
		if a.tagged != b.tagged {
			return a.tagged
		}
		return indexLess(a.index, b.index)
	})
	out := fields[:0]
	for i := 0; i < len(fields); {
		j := i + 1
		for j < len(fields) && fields[j].name == fields[i].name {
			j++
		}
		if f, ok := dominantField(fields[i:j]); ok {
			out = append(out, f)
		}
		i = j
	}
	sort.SliceStable(out, func(i, j int) bool { return indexLess(out[i].index, out[j].index) })
	return out
}

func indexLess(a, b []int) bool {
	for k := range a {
		if k >= len(b) {
			return false
		}
		if a[k] != b[k] {
			return a[k] < b[k]
		}
	}
	return len(a) < len(b)
}

// dominantField picks the field that wins among fields with the same name
// (sorted by depth, tagged first); ok is false on an unresolved conflict.
func dominantField(fields []tomlField) (tomlField, bool) {
	if len(fields) == 1 {
		return fields[0], true
	}
	depth := len(fields[0].index)
	tagged := -1
	for i, f := range fields {
		if len(f.index) > depth {
			fields = fields[:i]
			break
		}
		if f.tagged {
			if tagged >= 0 {
				return tomlField{}, false
			}
			tagged = i
		}
	}
	if tagged >= 0 {
		return fields[tagged], true
	}
	if len(fields) > 1 {
		return tomlField{}, false
	}
	return fields[0], true
}

// findField finds the field for a TOML key like the toml library does: an
// exact match first, else the first case-insensitive match.
func findField(fields []tomlField, key string) (tomlField, bool) {
	var fold *tomlField
	for i := range fields {
		if fields[i].name == key {
			return fields[i], true
		}
		if fold == nil && strings.EqualFold(fields[i].name, key) {
			fold = &fields[i]
		}
	}
	if fold != nil {
		return *fold, true
	}
	return tomlField{}, false
}

// fieldNames lists the TOML keys of fields, in declaration order.
func fieldNames(fields []tomlField) []string {
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.name
	}
	return names
}

// fieldValue returns the field at index in struct value v. Nil embedded
// pointers on the way are allocated when alloc is true (and v is settable);
// otherwise a detached zero value is used, and ok reports false.
func fieldValue(v reflect.Value, index []int, alloc bool) (fv reflect.Value, attached bool) {
	attached = true
	for n, i := range index {
		if n > 0 {
			for v.Kind() == reflect.Pointer {
				if v.IsNil() {
					if alloc && v.CanSet() {
						v.Set(reflect.New(v.Type().Elem()))
					} else {
						v = reflect.New(v.Type().Elem()).Elem()
						attached = false
						continue
					}
				}
				v = v.Elem()
			}
		}
		v = v.Field(i)
	}
	return v, attached
}
