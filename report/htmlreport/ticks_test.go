package htmlreport

import (
	"fmt"
	"testing"
)

// clocks is n clock labels every stepS seconds from start (seconds after
// midnight).
func clocks(start, stepS, n int) []any {
	out := make([]any, n)
	for i := range out {
		t := (start + i*stepS) % 86400
		out[i] = fmt.Sprintf("%02d:%02d", t/3600, t%3600/60)
	}
	return out
}

// Time-axis labels fall on whole parts of the hour whatever the number
// of points: a day of 5-minute points is labelled every 2 hours on a
// full-width chart (never 01:05, 02:10), and narrower charts step further.
func TestClockInterval(t *testing.T) {
	for _, c := range []struct {
		data  []any
		width int
		want  int
	}{
		{clocks(0, 300, 288), 1090, 24},             // 5 min points: every 2 h
		{clocks(0, 300, 288), 530, 36},              // half width: every 3 h
		{clocks(0, 60, 720), 1090, 60},              // 1 min points over 12 h: every hour
		{clocks(7*3600, 60, 60), 1090, 5},           // one hour of minutes: every 5 min
		{clocks(0, 3600, 24), 1090, 2},              // hourly: every 2 h
		{[]any{"a", "b"}, 1090, 0},                  // not clock times
		{[]any{"09:00", "09:05", "09:20"}, 1090, 0}, // not evenly spaced
	} {
		got := clockInterval(c.data, c.width)
		if got != c.want {
			t.Errorf("clockInterval(%v…, %d) = %d, want %d", c.data[:2], c.width, got, c.want)
		}
		if got > 0 {
			for i := 0; i < len(c.data); i += got {
				s, _ := clockSeconds(c.data[i].(string))
				if s%300 != 0 {
					t.Errorf("label %s is not on a 5-minute mark", c.data[i])
				}
			}
		}
	}
	o := option{"xAxis": []any{map[string]any{"type": "category", "data": clocks(0, 300, 288)}}}
	clockTicks(o, 1090)
	ax := o["xAxis"].([]any)[0].(map[string]any)
	if ax["axisLabel"].(map[string]any)["interval"] != 23 || ax["axisTick"].(map[string]any)["interval"] != 23 {
		t.Errorf("axis %v", ax)
	}
}

// Several variants keep their own colour in the refusals chart, as in
// every other chart of the page; their reasons are shades of it, the
// same reason the same shade.
func TestReasonShades(t *testing.T) {
	if got := lighten("#1f77b4", 0); got != "#1f77b4" {
		t.Errorf("lighten by 0 = %s", got)
	}
	if got := lighten("#000000", 0.5); got != "#808080" {
		t.Errorf("lighten black by half = %s, want #808080", got)
	}
	if reasonShade("base · itpm") != reasonShade("tier 4 · itpm") || reasonShade("base · itpm") == reasonShade("base · otpm") {
		t.Error("a reason's shade depends on its variant, or two reasons share one")
	}
	o := option{"series": []any{
		map[string]any{"name": "base · itpm"}, map[string]any{"name": "tier 4 · otpm"}}}
	colorByVariant(o, map[string][]int{"base · itpm": {0}, "tier 4 · otpm": {1}}, reasonShade)
	ss := o.series()
	if c := ss[0]["itemStyle"].(map[string]any)["color"]; c != lighten(palette[0], reasonShades["itpm"]) {
		t.Errorf("base · itpm is %v, want a shade of the base's colour", c)
	}
	if c := ss[1]["itemStyle"].(map[string]any)["color"]; c != lighten(palette[1], reasonShades["otpm"]) {
		t.Errorf("tier 4 · otpm is %v, want a shade of tier 4's colour", c)
	}
}
