package report

import (
	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/workloads"
)

// Clock is the clock time s seconds after the start of run r: "09:03",
// "09:03:03" off the minute, "d2 09:00" from the second day.
func Clock(r *model.Results, s float64) string {
	start, err := workloads.ParseClock(r.StartClock)
	if err != nil {
		start = 0
	}
	return model.ClockString(start, s)
}
