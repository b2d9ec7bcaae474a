package model

import (
	"bytes"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
)

// decodeTable decodes a TOML inline table (as handed to UnmarshalTOML) into
// v strictly: keys that v has no field for are an error listing the allowed
// keys. It re-encodes the table and decodes it with the toml package, so the
// same conversion rules apply as for the rest of the file.
func decodeTable(what string, m map[string]any, v any) error {
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(m); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	md, err := toml.NewDecoder(&buf).Decode(v)
	if err != nil {
		msg := err.Error()
		if pe, ok := err.(toml.ParseError); ok {
			msg = pe.Message
		}
		return fmt.Errorf("%s: %s", what, strings.TrimPrefix(msg, "toml: "))
	}
	if und := md.Undecoded(); len(und) > 0 {
		return fmt.Errorf("unknown key %q in %s; allowed: %s", und[0].String(), what, strings.Join(tomlKeys(v), ", "))
	}
	return nil
}

// tomlKeys lists the toml tag names of the struct v points to.
func tomlKeys(v any) []string {
	t := reflect.TypeOf(v)
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var keys []string
	if t.Kind() != reflect.Struct {
		return keys
	}
	for i := 0; i < t.NumField(); i++ {
		tag := strings.Split(t.Field(i).Tag.Get("toml"), ",")[0]
		if tag != "" && tag != "-" {
			keys = append(keys, tag)
		}
	}
	sort.Strings(keys)
	return keys
}
