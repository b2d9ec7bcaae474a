package workloads

import (
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// fixedOffset matches a fixed offset from UTC: "UTC+05:30", "UTC-5",
// "+05:30", "-0800".
var fixedOffset = regexp.MustCompile(`^(?:UTC|GMT)?([+-])(\d{1,2})(?::?(\d{2}))?$`)

// ParseZone reads a time zone: an IANA name ("America/New_York",
// "Europe/Berlin"), "UTC", or a fixed offset from UTC ("UTC-05:00",
// "+05:30", "-8"). IANA names come from the system's zoneinfo or, without
// one, the copy the program embeds.
func ParseZone(name string) (*time.Location, error) {
	if m := fixedOffset.FindStringSubmatch(name); m != nil {
		h, _ := strconv.Atoi(m[2])
		min := 0
		if m[3] != "" {
			min, _ = strconv.Atoi(m[3])
		}
		if h > 14 || min > 59 || h == 14 && min > 0 {
			return nil, fmt.Errorf("time zone %q: an offset from UTC is at most 14:00 either way, with minutes below 60", name)
		}
		off := h*3600 + min*60
		if m[1] == "-" {
			off = -off
		}
		label := fmt.Sprintf("UTC%s%02d:%02d", m[1], h, min)
		if off == 0 {
			label = "UTC"
		}
		return time.FixedZone(label, off), nil
	}
	if name == "" || name == "Local" {
		return nil, fmt.Errorf("time zone %q: name one, such as UTC, America/New_York, Europe/Berlin or UTC+05:30 (the machine's own zone would make the output depend on where it runs)", name)
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, fmt.Errorf("time zone %q: not a zone name (IANA names such as America/New_York, Europe/Berlin, Asia/Tokyo; or an offset such as UTC+05:30)", name)
	}
	return loc, nil
}
