package workloads

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// parseDatetime parses a trace timestamp "YYYY-MM-DD HH:MM:SS" (or with a
// "T"), with an optional fraction of up to nine digits and an optional zone
// ("Z", "+HH:MM", "+HHMM", "+HH"), into nanoseconds since the Unix epoch. A
// timestamp without a zone is UTC. It is written out rather than calling
// time.Parse because replaying a trace parses one per row and time.Parse
// with its layout matching costs several times as much; the tests check it
// against time.Parse.
func parseDatetime[S ~string | ~[]byte](s S) (int64, error) {
	bad := func(why string) (int64, error) {
		return 0, fmt.Errorf("timestamp %q: %s; want the form \"2024-05-10 00:00:00.009930\", optionally followed by a zone like \"+00:00\" or \"Z\"", s, why)
	}
	if len(s) < 19 {
		return bad("too short")
	}
	num := func(i, n int) (int, bool) {
		v := 0
		for k := i; k < i+n; k++ {
			c := s[k]
			if c < '0' || c > '9' {
				return 0, false
			}
			v = v*10 + int(c-'0')
		}
		return v, true
	}
	year, ok1 := num(0, 4)
	month, ok2 := num(5, 2)
	day, ok3 := num(8, 2)
	hour, ok4 := num(11, 2)
	minute, ok5 := num(14, 2)
	sec, ok6 := num(17, 2)
	if !(ok1 && ok2 && ok3 && ok4 && ok5 && ok6) || s[4] != '-' || s[7] != '-' || (s[10] != ' ' && s[10] != 'T') || s[13] != ':' || s[16] != ':' {
		return bad("not a date and time")
	}
	if month < 1 || month > 12 || day < 1 || day > daysIn(year, month) || hour > 23 || minute > 59 || sec > 60 {
		return bad("date or time out of range")
	}
	i := 19
	var frac int64
	if i < len(s) && s[i] == '.' {
		i++
		digits := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			if digits < 9 {
				frac = frac*10 + int64(s[i]-'0')
				digits++
			}
			i++
		}
		if digits == 0 {
			return bad("no digits after the decimal point")
		}
		for ; digits < 9; digits++ {
			frac *= 10
		}
	}
	offset := 0 // seconds east of UTC
	if i < len(s) {
		rest := string(s[i:]) // a few bytes; the compiler keeps it off the heap
		switch {
		case rest == "Z" || rest == "z" || rest == " UTC" || rest == "UTC":
		case rest[0] == '+' || rest[0] == '-':
			var h, m int
			var ok bool
			switch len(rest) {
			case 3: // +HH
				h, ok = num(i+1, 2)
			case 5: // +HHMM
				h, ok = num(i+1, 2)
				if ok {
					m, ok = num(i+3, 2)
				}
			case 6: // +HH:MM
				h, ok = num(i+1, 2)
				if ok && rest[3] == ':' {
					m, ok = num(i+4, 2)
				} else {
					ok = false
				}
			}
			if !ok || h > 23 || m > 59 {
				return bad("bad zone")
			}
			offset = h*3600 + m*60
			if rest[0] == '-' {
				offset = -offset
			}
		default:
			return bad("unexpected text after the time")
		}
	}
	days := daysFromCivil(year, month, day)
	secs := days*86400 + int64(hour*3600+minute*60+sec) - int64(offset)
	return secs*1e9 + frac, nil
}

// daysFromCivil is the number of days from 1970-01-01 to the given date of
// the proleptic Gregorian calendar (Howard Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400
	if y < 0 && y%400 != 0 {
		era--
	}
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// daysIn is the number of days of a month.
func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// Unix timestamps from 2000-01-01 to 2100-01-01 UTC, in seconds: a numeric
// trace time in this range is a clock time, not time since the trace began
// (which would have to span 30 years).
const (
	epochFrom = 946_684_800
	epochTo   = 4_102_444_800
)

// EpochTime reports whether ns, a trace's earliest time in nanoseconds,
// is a Unix timestamp (2000 to 2100) rather than a time from the start of
// the log, so that its clock time is known (UTC).
func EpochTime(ns int64) bool {
	return ns >= epochFrom*1e9 && ns < epochTo*1e9
}

// epochUnitHint says, for a numeric time f that does not fit in unitNs,
// which smaller unit would make it a Unix timestamp from 2000 to 2100:
// `; as milliseconds since 1970 it is 2025-12-01 08:00:01 UTC: time_unit
// = "ms"?`, or "" when none does.
func epochUnitHint(f, unitNs float64) string {
	for _, u := range []struct {
		name, word string
		ns         float64
	}{{TimeMillis, "milliseconds", 1e6}, {TimeMicros, "microseconds", 1e3}, {TimeNanos, "nanoseconds", 1}} {
		if u.ns >= unitNs {
			continue
		}
		if s := f * u.ns / 1e9; s >= epochFrom && s < epochTo {
			t := time.Unix(int64(s), 0).UTC()
			return fmt.Sprintf("; as %s since 1970 it is %s UTC: time_unit = %q?", u.word, t.Format("2006-01-02 15:04:05"), u.name)
		}
	}
	return ""
}

// unitNanos is the length of a numeric time unit in nanoseconds.
func unitNanos(unit string) float64 {
	switch unit {
	case TimeMillis:
		return 1e6
	case TimeMicros:
		return 1e3
	case TimeNanos:
		return 1
	}
	return 1e9
}

// parseNumericTime parses a number of units into nanoseconds. Decimals
// with at most nine digits after the point are converted exactly; other
// forms (exponents) through strconv. A number beyond ±292 years in
// nanoseconds is an error.
func parseNumericTime[S ~string | ~[]byte](s S, unitNs float64) (int64, error) {
	if ns, ok := decimalNanos(s, int64(unitNs)); ok {
		return ns, nil
	}
	f, err := strconv.ParseFloat(string(s), 64)
	if err != nil {
		return 0, fmt.Errorf("time %q is not a number", s)
	}
	ns := f * unitNs
	if math.IsNaN(ns) || math.IsInf(ns, 0) || math.Abs(ns) >= 9.2e18 {
		return 0, fmt.Errorf("time %q is out of range%s", s, epochUnitHint(f, unitNs))
	}
	return int64(math.Round(ns)), nil
}

// decimalNanos converts "[-]digits[.digits]" times unit to nanoseconds
// exactly, reporting whether s had that form and fitted.
func decimalNanos[S ~string | ~[]byte](s S, unit int64) (int64, bool) {
	i, neg := 0, false
	if len(s) > 0 && s[0] == '-' {
		neg, i = true, 1
	}
	var whole int64
	digits := 0
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		if whole > (math.MaxInt64-9)/10 {
			return 0, false
		}
		whole = whole*10 + int64(s[i]-'0')
		digits++
	}
	var frac, scale int64 = 0, 1
	if i < len(s) && s[i] == '.' {
		i++
		for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
			if scale >= 1e9 {
				return 0, false
			}
			frac = frac*10 + int64(s[i]-'0')
			scale *= 10
			digits++
		}
	}
	if i != len(s) || digits == 0 || whole > math.MaxInt64/unit-1 {
		return 0, false
	}
	ns := whole*unit + frac*unit/scale
	if neg {
		ns = -ns
	}
	return ns, true
}

// parseCount parses a non-negative token count. A number written with a
// fraction is accepted only when it is integral ("120.0").
func parseCount[S ~string | ~[]byte](s S) (int, error) {
	n := 0
	ok := len(s) > 0 && len(s) <= 10
	for i := 0; ok && i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			ok = false
			break
		}
		n = n*10 + int(c-'0')
	}
	if !ok {
		f, err := strconv.ParseFloat(string(s), 64)
		switch {
		case err != nil:
			return 0, fmt.Errorf("%q is not a whole number", s)
		case math.IsNaN(f) || math.IsInf(f, 0) || f != math.Trunc(f):
			return 0, fmt.Errorf("%q is not a whole number", s)
		case f < 0 || f > maxTokens:
			return 0, fmt.Errorf("%s is out of range 0..%d", s, maxTokens)
		}
		return int(f), nil
	}
	if n > maxTokens {
		return 0, fmt.Errorf("%s is out of range 0..%d", s, maxTokens)
	}
	return n, nil
}

// trimSpace trims ASCII spaces and tabs.
func trimSpace[S ~string | ~[]byte](s S) S {
	i, j := 0, len(s)
	for i < j && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
		i++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\r') {
		j--
	}
	return s[i:j]
}
