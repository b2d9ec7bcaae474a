package scenarios

import (
	"regexp"
	"slices"
	"strings"
)

// demandClear is the value that clears each demand mode an override can
// switch away from (a trace cannot be cleared: it is replaced by a new
// file only).
var demandClear = map[string]string{"rate": "0", "hourly": "[]", "curve": "[]", "users": "0", "count": "0"}

var demandGot = regexp.MustCompile(`\(got ([a-z, ]+)\)$`)

// demandSwitch places a demand's "cannot be combined" problem at the edit
// that set the new mode, and says how to switch: an override updates the
// demand table key by key, so --set workload.bot.demand.rate=5 on an
// hourly demand keeps the file's hourly, which must be cleared too. ok is
// false when no edit set a mode of that demand.
func (s *Scenario) demandSwitch(key, msg string, tree map[string]any, edits []edit) (*Error, bool) {
	at := strings.LastIndex(key, ".demand.")
	m := demandGot.FindStringSubmatch(msg)
	if at < 0 || m == nil || !strings.Contains(msg, "cannot be combined") {
		return nil, false
	}
	demand := key[:at+len(".demand")]
	got := strings.Split(m[1], ", ")
	for j := len(edits) - 1; j >= 0; j-- {
		e := edits[j]
		var sets []string
		switch {
		case e.canon == demand:
			if t, ok := normalize(e.value).(map[string]any); ok {
				for k := range t {
					sets = append(sets, k)
				}
			}
		case strings.HasPrefix(e.canon, demand+"."):
			sets = []string{strings.TrimPrefix(e.canon, demand+".")}
		}
		var clear []string
		for _, g := range got {
			if !slices.Contains(sets, g) {
				clear = append(clear, g)
			}
		}
		if len(clear) == len(got) {
			continue // this edit set no mode of the demand
		}
		user := e.path
		if e.canon != demand {
			user = e.path[:strings.LastIndex(e.path, ".")]
		}
		if key != e.canon {
			msg = displayKey(key, tree) + ": " + msg
		}
		var how []string
		for _, c := range clear {
			v, ok := demandClear[c]
			if !ok {
				return &Error{File: s.file, Line: e.line, Key: e.key, Msg: msg + "; an override updates the demand table, and a trace cannot be cleared: write the new demand in the file"}, true
			}
			switch {
			case e.canon == demand:
				how = append(how, c+" = "+v+" in the table")
			case e.line == 0:
				how = append(how, "--set "+user+"."+c+"="+v)
			default:
				how = append(how, `"`+user+"."+c+`" = `+v)
			}
		}
		msg += "; an override updates the demand table, so the file's " + strings.Join(clear, " and ") +
			" stays: to switch modes, clear it in the same place (" + strings.Join(how, ", ") + ")"
		return &Error{File: s.file, Line: e.line, Key: e.key, Msg: msg}, true
	}
	return nil, false
}
