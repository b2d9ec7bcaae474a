package htmlreport

import (
	"strconv"
	"strings"
)

// clockSteps are the spacings, in seconds, that time-axis labels may take:
// each a whole part of an hour or a day, so labels fall on the hour (or on
// :15, :30) and not at 01:05, 02:10.
var clockSteps = []int{60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400}

// clockLabelPx is the room one clock label ("09:00") takes on an axis,
// with its gap.
const clockLabelPx = 64

// clockTicks gives every category x axis of clock times ("09:00",
// "09:05:00") one tick rule: a label and a tick every step of
// clockSteps, the smallest that keeps the labels apart in widthPx,
// instead of ECharts' own choice, which counts categories and lands on
// odd times.
func clockTicks(o option, widthPx int) {
	var axes []map[string]any
	switch x := o["xAxis"].(type) {
	case map[string]any:
		axes = append(axes, x)
	case []any:
		for _, a := range x {
			if m, ok := a.(map[string]any); ok {
				axes = append(axes, m)
			}
		}
	}
	for _, ax := range axes {
		if t, _ := ax["type"].(string); t != "" && t != "category" {
			continue
		}
		data, _ := ax["data"].([]any)
		k := clockInterval(data, widthPx)
		if k < 1 {
			continue
		}
		label, _ := ax["axisLabel"].(map[string]any)
		if label == nil {
			label = map[string]any{}
			ax["axisLabel"] = label
		}
		label["interval"] = k - 1
		tick, _ := ax["axisTick"].(map[string]any)
		if tick == nil {
			tick = map[string]any{}
			ax["axisTick"] = tick
		}
		tick["interval"] = k - 1
		tick["alignWithLabel"] = true
	}
}

// clockInterval is how many categories apart the labels of a clock axis
// go (0 when the data are not evenly spaced clock times): the first step
// of clockSteps that is a whole number of the data's spacing and leaves
// at most widthPx/clockLabelPx labels.
func clockInterval(data []any, widthPx int) int {
	if len(data) < 2 {
		return 0
	}
	secs := make([]int, 0, 3)
	for _, d := range data[:min(3, len(data))] {
		s, ok := d.(string)
		if !ok {
			return 0
		}
		t, ok := clockSeconds(s)
		if !ok {
			return 0
		}
		secs = append(secs, t)
	}
	dt := (secs[1] - secs[0] + 86400) % 86400
	if dt <= 0 || (len(secs) == 3 && (secs[2]-secs[1]+86400)%86400 != dt) {
		return 0
	}
	most := max(2, widthPx/clockLabelPx)
	for _, step := range clockSteps {
		if step < dt || step%dt != 0 {
			continue
		}
		k := step / dt
		if (len(data)+k-1)/k <= most {
			return k
		}
	}
	return 0
}

// clockSeconds reads "HH:MM" or "HH:MM:SS" as seconds after midnight.
func clockSeconds(s string) (int, bool) {
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	t := 0
	for i, p := range parts {
		if len(p) != 2 {
			return 0, false
		}
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || (i == 0 && n > 23) || (i > 0 && n > 59) {
			return 0, false
		}
		t = t*60 + n
	}
	if len(parts) == 2 {
		t *= 60
	}
	return t, true
}
