package report

import (
	"github.com/headroom-sim/headroom/model"
)

// Clock is the clock time s seconds after the start of run r: "09:03",
// "09:03:03" off the minute, "d2 09:00" from the second day.
func Clock(r *model.Results, s float64) string {
	return model.ClockString(r.StartClock.Seconds(), s)
}
