package workloads

import (
	"fmt"
	"math"
	"strconv"
)

// parseDatetime parses a trace timestamp "YYYY-MM-DD HH:MM:SS" (or with a
// "T"), with an optional fraction of up to nine digits and an optional zone
// ("Z", "+HH:MM", "+HHMM", "+HH"), into nanoseconds since the Unix epoch. A
// timestamp without a zone is UTC. It is written out rather than calling
// time.Parse because replaying a trace parses one per row and time.Parse
// with its layout matching costs several times as much; the tests check it
// against time.Parse.
func parseDatetime(s string) (int64, error) {
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
		rest := s[i:]
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

// parseNumericTime parses a number of units into nanoseconds. Integers are
// converted exactly; a number beyond ±292 years in nanoseconds is an error.
func parseNumericTime(s string, unitNs float64) (int64, error) {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if unitNs == 1 {
			return n, nil
		}
		u := int64(unitNs)
		if n > math.MaxInt64/u || n < math.MinInt64/u {
			return 0, fmt.Errorf("time %q is out of range", s)
		}
		return n * u, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("time %q is not a number", s)
	}
	ns := f * unitNs
	if math.IsNaN(ns) || math.IsInf(ns, 0) || math.Abs(ns) >= 9.2e18 {
		return 0, fmt.Errorf("time %q is out of range", s)
	}
	return int64(math.Round(ns)), nil
}

// parseCount parses a non-negative token count. A number written with a
// fraction is accepted only when it is integral ("120.0").
func parseCount(s string) (int, error) {
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
		f, err := strconv.ParseFloat(s, 64)
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
