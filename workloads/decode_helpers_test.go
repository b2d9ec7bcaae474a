package workloads

import (
	"errors"

	"github.com/BurntSushi/toml"
	"github.com/headroom-sim/headroom/scenarios/schema"
)

// decodeTOML decodes a TOML document into dst the way scenario files are
// decoded: the toml library parses it into generic data, which the schema
// decodes strictly. Every problem is joined into the error.
func decodeTOML(src string, dst any) error {
	var tree map[string]any
	if _, err := toml.Decode(src, &tree); err != nil {
		return err
	}
	var errs []error
	for _, e := range schema.Decode(tree, dst) {
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}
