package workloads

import (
	"strings"
	"testing"
	"time"
)

func TestParseZone(t *testing.T) {
	at := time.Date(2025, time.December, 1, 8, 0, 0, 0, time.UTC)
	summer := time.Date(2025, time.July, 1, 8, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		in       string
		name     string
		dec, jul int // offsets in seconds east of UTC
	}{
		{"UTC", "UTC", 0, 0},
		{"America/New_York", "America/New_York", -5 * 3600, -4 * 3600},
		{"Asia/Kolkata", "Asia/Kolkata", 19800, 19800},
		{"UTC+05:30", "UTC+05:30", 19800, 19800},
		{"+0530", "UTC+05:30", 19800, 19800},
		{"-8", "UTC-08:00", -8 * 3600, -8 * 3600},
		{"GMT-03:00", "UTC-03:00", -3 * 3600, -3 * 3600},
		{"UTC+0", "UTC", 0, 0},
		{"+14:00", "UTC+14:00", 14 * 3600, 14 * 3600},
	} {
		loc, err := ParseZone(c.in)
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		_, dec := at.In(loc).Zone()
		_, jul := summer.In(loc).Zone()
		if loc.String() != c.name || dec != c.dec || jul != c.jul {
			t.Errorf("%q: %s with offsets %d and %d, want %s, %d and %d", c.in, loc, dec, jul, c.name, c.dec, c.jul)
		}
	}
	for _, c := range []struct{ in, want string }{
		{"Mars/Olympus", "not a zone name"},
		{"Local", "name one"},
		{"", "name one"},
		{"+15:00", "at most 14:00"},
		{"+05:75", "minutes below 60"},
	} {
		if _, err := ParseZone(c.in); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.in, err, c.want)
		}
	}
}
