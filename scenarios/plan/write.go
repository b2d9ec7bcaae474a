package plan

import (
	"bytes"
	"fmt"

	"github.com/headroom-sim/headroom/scenarios"
)

// WinnerTOML writes the scenario with a candidate's overrides applied, as
// TOML ready to run: the file's tables with the command-line overrides and
// the candidate's knob values set in them, without the [plan] table. The
// file's comments and layout are not kept (the document is re-encoded),
// so a header says what it is.
func (pr *Problem) WinnerTOML(sets []scenarios.Override, label string) ([]byte, error) {
	doc, err := pr.sc.TOML(append(append([]scenarios.Override(nil), pr.sets...), sets...), "plan")
	if err != nil {
		return nil, fmt.Errorf("write the winner: %w", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s: the cheapest candidate that holds, as found by headroom plan:\n#   %s\n", pr.base.Name, label)
	for _, o := range sets {
		fmt.Fprintf(&b, "#   %s = %s\n", o.Path, valueLabel(o.Value))
	}
	b.WriteString("# Written from the scenario's tables with these values set (comments are not kept).\n\n")
	b.Write(doc)
	if _, err := scenarios.LoadBytes(b.Bytes(), pr.sc.File()); err != nil {
		return nil, fmt.Errorf("write the winner: the written scenario does not load: %w", err)
	}
	return b.Bytes(), nil
}
