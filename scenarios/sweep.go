package scenarios

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/workloads"
)

// Sweep kinds: what a step-load sweep varies.
const (
	// SweepConcurrency turns the workload into a closed loop of Level users
	// with zero think time: Level requests are always in flight.
	SweepConcurrency = "concurrency"
	// SweepRate turns the workload's demand into a constant open-loop rate
	// of Level requests per second.
	SweepRate = "rate"
)

// MaxSweepLevels bounds how many levels one sweep may have, so that a typo
// in a range ("1..1e9+1") is an error rather than a billion simulations.
const MaxSweepLevels = 1000

// SweepLevel is one step of a step-load sweep.
type SweepLevel struct {
	Kind  string  // SweepConcurrency or SweepRate
	Value float64 // users, or requests per second
}

// Label names the level as a variant: "concurrency 8", "rate 12 req/s".
func (l SweepLevel) Label() string {
	if l.Kind == SweepRate {
		return "rate " + FormatLevel(l.Value) + " req/s"
	}
	return l.Kind + " " + FormatLevel(l.Value)
}

// FormatLevel prints a level compactly, as the summary prints numbers: 8,
// 12.5, 0.25, 1.5k, 2M.
func FormatLevel(v float64) string { return schema.FormatNumber(v) }

// ParseLevels parses a list of sweep levels. The spec is a comma-separated
// list of items, each a number or a range:
//
//	1,2,4,8       the levels as given
//	1..512x2      geometric: start..end x factor (1, 2, 4, ..., 512)
//	10..100+10    linear:    start..end + step  (10, 20, ..., 100)
//
// A number may carry a magnitude suffix: 1k..8kx2, 2M (see schema.ParseNumber).
// A range includes end when a step lands on it (to 1e-9 relative) and
// stops before it otherwise. Levels must be finite, > 0 and strictly
// increasing across the whole spec, and there may be at most
// MaxSweepLevels of them.
func ParseLevels(spec string) ([]float64, error) {
	if strings.TrimSpace(spec) == "" {
		return nil, errors.New(`no levels given; write a list such as "1,2,4,8", a geometric range "1..512x2" or a linear one "10..100+10"`)
	}
	var out []float64
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			return nil, fmt.Errorf("empty level in %q", spec)
		}
		var vals []float64
		var err error
		if strings.Contains(item, "..") {
			vals, err = parseRange(item)
		} else {
			var v float64
			if v, err = parseLevel(item); err != nil {
				err = fmt.Errorf("invalid level: %w", err)
			}
			vals = []float64{v}
		}
		if err != nil {
			return nil, err
		}
		for _, v := range vals {
			if n := len(out); n > 0 && v <= out[n-1] {
				return nil, fmt.Errorf("levels must increase: %s comes after %s in %q", FormatLevel(v), FormatLevel(out[n-1]), spec)
			}
			out = append(out, v)
			if len(out) > MaxSweepLevels {
				return nil, fmt.Errorf("%q gives more than %d levels; use a coarser step", spec, MaxSweepLevels)
			}
		}
	}
	return out, nil
}

// parseLevel parses one level, which must be a finite number > 0.
func parseLevel(s string) (float64, error) {
	s = strings.TrimSpace(s)
	n, ok := schema.ParseNumber(s)
	if !ok {
		if f, err := strconv.ParseFloat(s, 64); err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
			return 0, fmt.Errorf("%q must be a finite number > 0", s)
		}
		return 0, fmt.Errorf("%q is not a number", s)
	}
	v := toFloat(n)
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return 0, fmt.Errorf("%q must be a finite number > 0", s)
	}
	return v, nil
}

// parseRange parses "start..end x factor" or "start..end + step".
func parseRange(item string) ([]float64, error) {
	lo, rest, _ := strings.Cut(item, "..")
	geometric := true
	at := strings.IndexAny(rest, "x×*")
	if at < 0 {
		geometric = false
		// The last '+' that is not an exponent sign ("1e+3").
		at = -1
		for i := len(rest) - 1; i > 0; i-- {
			if rest[i] == '+' && rest[i-1] != 'e' && rest[i-1] != 'E' {
				at = i
				break
			}
		}
	}
	if at < 0 {
		return nil, fmt.Errorf(`invalid range %q: give a factor ("1..512x2", geometric) or a step ("10..100+10", linear)`, item)
	}
	sep := rest[at:]
	_, size := firstRune(sep)
	hi, by := rest[:at], rest[at+size:]
	start, err := parseLevel(lo)
	if err != nil {
		return nil, fmt.Errorf("invalid range %q: start %w", item, err)
	}
	end, err := parseLevel(hi)
	if err != nil {
		return nil, fmt.Errorf("invalid range %q: end %w", item, err)
	}
	if end < start {
		return nil, fmt.Errorf("invalid range %q: end %s is below start %s", item, FormatLevel(end), FormatLevel(start))
	}
	n, ok := schema.ParseNumber(by)
	step := toFloat(n)
	if !ok {
		return nil, fmt.Errorf("invalid range %q: %q is not a number", item, by)
	}
	if geometric && step <= 1 {
		return nil, fmt.Errorf("invalid range %q: the factor must be > 1, got %s", item, FormatLevel(step))
	}
	if !geometric && step <= 0 {
		return nil, fmt.Errorf("invalid range %q: the step must be > 0, got %s", item, FormatLevel(step))
	}
	var out []float64
	limit := end * (1 + 1e-9)
	for k := 0; ; k++ {
		var v float64
		if geometric {
			v = start * math.Pow(step, float64(k))
		} else {
			v = start + float64(k)*step
		}
		v = tidy(v)
		if v > limit {
			break
		}
		if len(out) >= MaxSweepLevels {
			return nil, fmt.Errorf("%q gives more than %d levels; use a coarser step", item, MaxSweepLevels)
		}
		out = append(out, v)
	}
	return out, nil
}

// tidy rounds away floating-point dust (0.30000000000000004 → 0.3).
func tidy(v float64) float64 {
	t, err := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 12, 64), 64)
	if err != nil {
		return v
	}
	return t
}

func firstRune(s string) (rune, int) {
	for _, r := range s {
		return r, len(string(r))
	}
	return 0, 0
}

// SweepConfigs returns one configuration per level of a step-load sweep of
// the named workload (the first workload when name is ""):
//
//   - kind "concurrency": the workload becomes a closed loop of users =
//     level with zero think time (think = 0), so exactly level requests
//     are in flight (less if its client's max_concurrency is lower). The
//     model requires that the backend take time to answer, which every
//     real backend does;
//   - kind "rate": its demand becomes a constant rate = level requests/s,
//     keeping its arrival process (poisson unless set).
//
// Every other workload, and everything else in the scenario, is
// unchanged; [[variant]] blocks are ignored. overrides (--set) are applied
// after the level, so `workload.NAME.demand.think=2s` gives a concurrency
// sweep think time. Each configuration's Variant is the level's label,
// "concurrency 8" or "rate 12 req/s".
func (s *Scenario) SweepConfigs(workload string, kind string, levels []float64, overrides []Override) ([]model.Config, error) {
	if kind != SweepConcurrency && kind != SweepRate {
		return nil, &Error{Key: "sweep", Msg: fmt.Sprintf("unknown sweep kind %q; allowed: %s, %s", kind, SweepConcurrency, SweepRate)}
	}
	if len(levels) == 0 {
		return nil, &Error{Key: "--" + kind, Msg: "a sweep needs at least one level"}
	}
	idx, err := s.sweepWorkload(workload)
	if err != nil {
		return nil, err
	}
	out := make([]model.Config, 0, len(levels))
	sets := setEdits(overrides)
	for _, v := range levels {
		lv := SweepLevel{Kind: kind, Value: v}
		if err := lv.check(); err != nil {
			return nil, err
		}
		c, _, err := s.derive(lv.Label(), append([]edit{s.levelEdit(idx, lv)}, sets...))
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// levelEdit replaces workload wl's demand by a sweep level: a closed loop
// of users with zero think time, or a constant rate per second keeping the
// workload's arrival process. Problems no override explains are reported
// at the level ("sweep concurrency 8: workload "chat".demand.think: ..."),
// since the line of the demand it replaced would mislead.
func (s *Scenario) levelEdit(wl int, lv SweepLevel) edit {
	demand := map[string]any{"users": int64(lv.Value), "think": int64(0)}
	if lv.Kind == SweepRate {
		demand = map[string]any{"unit": workloads.UnitPerSecond, "rate": lv.Value}
		if d, ok := child(child(child(s.tree, keyStep("workload")), idxStep(wl)), keyStep("demand")).(map[string]any); ok && d["arrivals"] != nil {
			demand["arrivals"] = d["arrivals"]
		}
	}
	return edit{path: fmt.Sprintf("workload[%d].demand", wl), value: demand, replace: true, key: "sweep " + lv.Label(), catch: true}
}

// SweepWorkload returns the name of the workload a sweep of name varies:
// name itself when the scenario has it, the first workload when name is "".
func (s *Scenario) SweepWorkload(name string) (string, error) {
	i, err := s.sweepWorkload(name)
	if err != nil {
		return "", err
	}
	return s.Workloads[i].Name, nil
}

func (s *Scenario) sweepWorkload(name string) (int, error) {
	var names []string
	for i, w := range s.Workloads {
		if w.Name == name || name == "" {
			return i, nil
		}
		names = append(names, w.Name)
	}
	if len(names) == 0 {
		return 0, &Error{File: s.file, Key: "workload", Msg: "no workloads to sweep"}
	}
	return 0, &Error{File: s.file, Key: "--workload", Msg: fmt.Sprintf("no workload named %q; have: %s", name, strings.Join(names, ", "))}
}

// check reports a level the demand cannot take, keyed by the flag
// ("--concurrency") that gives the levels.
func (l SweepLevel) check() error {
	v := l.Value
	if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
		return &Error{Key: "--" + l.Kind, Msg: fmt.Sprintf("levels must be finite numbers > 0, got %v", v)}
	}
	if l.Kind == SweepConcurrency && (v != math.Trunc(v) || v > 10_000_000) {
		return &Error{Key: "--" + l.Kind, Msg: fmt.Sprintf("levels are numbers of users, whole numbers from 1 to 10000000; got %s", FormatLevel(v))}
	}
	return nil
}

// toFloat is a number from schema.ParseNumber as a float64.
func toFloat(v any) float64 {
	switch x := v.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	}
	return math.NaN()
}
