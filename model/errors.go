package model

import (
	"fmt"

	"github.com/headroom-sim/headroom/workloads"
)

func fieldErr(key, msg string) error { return &workloads.FieldError{Key: key, Msg: msg} }

// errSeconds formats a duration inside an error message as a planner
// writes it in a scenario: 90ms, 1.5s (reports format theirs with
// report.Seconds).
func errSeconds(s float64) string {
	if s < 1 {
		return fmt.Sprintf("%.4gms", s*1e3)
	}
	return fmt.Sprintf("%.4gs", s)
}
