package scenarios

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios/schema"
	"github.com/headroom-sim/headroom/workloads"
)

// Warning is a default the scenario left in place that changes the answer
// (a provider without a latency model answers at once, one without prices
// costs nothing, a workload without max_tokens reserves the provider's
// max_output, an unpriced prompt cache bills its tokens at $0), or a value
// that is valid but probably a slip (a bare number for a duration is
// seconds, a rate curve that stops before the horizon). It is not an error
// (--strict makes it one), but a planner should know.
type Warning struct {
	File    string
	Line    int
	Key     string // the key path it concerns, as in errors
	Message string

	located bool // placed at the override that explains it, not in the file
}

// String formats the warning as "FILE:LINE: KEY: MESSAGE".
func (w Warning) String() string {
	return (&Error{File: w.File, Line: w.Line, Key: w.Key, Msg: w.Message}).Error()
}

// Warnings lists the defaults that change the answer in the configurations
// Configs(overrides) builds: the base's, then those only a variant has
// (their key prefixed with the variant); and the bare numbers the
// overrides, the variants' sets and the sweep parameters params give for
// durations, at the override.
func (s *Scenario) Warnings(overrides []Override, params ...Param) ([]Warning, error) {
	if len(overrides) == 0 {
		return append(slices.Clone(s.warnings), s.paramDurations(params)...), nil
	}
	sets := setEdits(overrides)
	bare, skip := s.editDurations(sets)
	c, d, err := s.derive("", sets)
	if err != nil {
		return nil, err
	}
	out := append(s.warningsOf(d, c), s.bareDurations(skip)...)
	out = append(out, bare...)
	out = append(out, s.knobDurations(d.Plan)...)
	for i := range s.Variants {
		c, d, err := s.derive(s.variantName(i), append(slices.Clip(sets), s.variantEdits(i)...))
		if err != nil {
			return nil, err
		}
		out = s.addVariant(out, i, s.warningsOf(d, c))
		vb, _ := s.editDurations(s.variantEdits(i))
		out = append(out, vb...)
	}
	return append(out, s.paramDurations(params)...), nil
}

// addVariant adds variant i's warnings that the list lacks.
func (s *Scenario) addVariant(list []Warning, i int, ws []Warning) []Warning {
	for _, w := range ws {
		if !slices.ContainsFunc(list, func(x Warning) bool { return x.Key == w.Key && x.Message == w.Message }) {
			if !w.located {
				at := fmt.Sprintf("variant[%d]", i)
				w.Key, w.Line = displayKey(at, s.tree)+": "+w.Key, s.ix.Line(at+".set")
			}
			list = append(list, w)
		}
	}
	return list
}

// warningsOf finds the defaults that change the answer in configuration c,
// decoded from d's tree.
func (s *Scenario) warningsOf(d *Scenario, c model.Config) []Warning {
	var out []Warning
	add := func(path, msg string) {
		out = append(out, Warning{File: s.file, Line: s.ix.Line(path), Key: displayKey(path, d.tree), Message: msg})
	}
	for i, p := range c.Providers {
		at := "provider[" + strconv.Itoa(i) + "]"
		if l := p.Latency; l.TTFT.Base == 0 && l.TTFT.PerInputToken == 0 && l.TPOT.Mean == 0 {
			add(at+".latency", "no latency model: the provider answers at once, so TTFT and E2E show only waiting; give [provider.latency] ttft and tpot")
		}
		if pr := p.Price; pr.Input == 0 && pr.Output == 0 && pr.CacheWrite == 0 && pr.CacheWrite1h == 0 && pr.CacheRead == 0 && pr.Commitment == 0 {
			add(at+".price", "no prices: its tokens cost nothing, so the cost leaves it out; give [provider.price] input and output (USD per million tokens)")
		}
	}
	for i, cl := range c.Clusters {
		if cl.Price.PerGPUHour == 0 && cl.Replicas+maxScheduled(cl) > 0 {
			add("cluster["+strconv.Itoa(i)+"].price", "no price: its GPUs cost nothing, so the cost leaves them out; give [cluster.price] per_gpu_hour")
		}
	}
	provs := map[string]*model.ProviderSpec{}
	for i := range c.Providers {
		provs[c.Providers[i].Name] = &c.Providers[i]
	}
	routes := map[string][]string{}
	for _, r := range c.Routes {
		routes[r.Name] = r.Targets
	}
	for i, w := range c.Workloads {
		if w.Tokens.MaxTokens > 0 {
			continue
		}
		at := "workload[" + strconv.Itoa(i) + "].tokens"
		targets := []string{w.Route}
		if t, ok := routes[w.Route]; ok {
			targets = t
		}
		for _, full := range targets {
			p := provs[splitName(full)]
			if p == nil || w.Lane == model.LaneBatch || !reserves(p) {
				continue
			}
			add(at, fmt.Sprintf("no max_tokens: each request reserves provider %q's max_output (%d tokens) against its output limits at admission; give tokens.max_tokens, what the client sends", p.Name, p.MaxOutput))
			break
		}
		if c.Gateway != nil {
			add(at, "no max_tokens: the gateway reserves each request's max_output (4096 tokens unless the provider says otherwise) in weighted units at admission; give tokens.max_tokens, what the client sends")
		}
	}
	out = append(out, s.demandWarnings(d)...)
	out = append(out, s.cacheWarnings(d, c)...)
	out = append(out, s.inputWarnings(d, c)...)
	return out
}

// demandWarnings names the defaults of each workload's tree that a planner
// may not know: an open-loop rate without unit is per minute, and a client
// without retry behaves as the Anthropic Python SDK.
func (s *Scenario) demandWarnings(d *Scenario) []Warning {
	var out []Warning
	add := func(path, msg string) {
		out = append(out, Warning{File: s.file, Line: s.ix.Line(path), Key: displayKey(path, d.tree), Message: msg})
	}
	ws, _ := d.tree["workload"].([]map[string]any)
	for i, w := range ws {
		at := "workload[" + strconv.Itoa(i) + "]"
		if dm, ok := w["demand"].(map[string]any); ok {
			if _, ok := dm["unit"]; !ok {
				for _, k := range []string{"rate", "hourly", "curve"} {
					if _, ok := dm[k]; ok {
						add(at+".demand."+k, fmt.Sprintf("no unit: %s is read in requests/min (the default unit); give demand.unit = \"requests/min\", \"requests/s\" or \"requests/hour\"", k))
						break
					}
				}
			}
		}
		cl, _ := w["client"].(map[string]any)
		if _, ok := cl["retry"]; !ok {
			add(at+".client", "no retry: the client retries as the Anthropic Python SDK does (retry = \"anthropic-python\": 3 attempts, Retry-After honoured up to 60s); for another SDK give client.retry = \"openai-python\", \"openai-node\", \"openai-go\", \"google-genai\" or \"none\"")
		}
	}
	return out
}

// bareDurations names the durations the file writes as bare numbers, which
// are seconds: ttft = 5000 is an 83-minute threshold, not 5 seconds. A key
// an override replaces (skip holds their canonical paths) is the
// override's words, not the file's, and is left to editDurations, as are
// a variant's set tables.
func (s *Scenario) bareDurations(skip []string) []Warning {
	var out []Warning
	walkDurations(map[string]any(s.tree), reflect.TypeFor[Scenario](), "", func(path string, n float64) {
		for _, c := range skip {
			if path == c || strings.HasPrefix(path, c+".") || strings.HasPrefix(path, c+"[") {
				return
			}
		}
		out = append(out, Warning{File: s.file, Line: s.ix.Line(path), Key: displayKey(path, s.tree), Message: bareMessage(n)})
	})
	return out
}

// bareMessage says how a bare number n given for a duration is read.
func bareMessage(n float64) string {
	num := strconv.FormatFloat(n, 'g', -1, 64)
	return fmt.Sprintf("a bare number is read as seconds: %s is %s; write \"%sms\" or \"%ss\" to say which", num, workloads.Duration(n), num, num)
}

// walkDurations calls bare for every nonzero number that v, the value of
// a key of schema type t at canonical path path, gives for a duration.
func walkDurations(v any, t reflect.Type, path string, bare func(path string, n float64)) {
	t = deref(t)
	switch {
	case t == durationType:
		var n float64
		switch x := v.(type) {
		case int64:
			n = float64(x)
		case float64:
			n = x
		default:
			return
		}
		if n != 0 {
			bare(path, n)
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		switch xs := v.(type) {
		case []map[string]any:
			for i, x := range xs {
				walkDurations(x, t.Elem(), path+"["+strconv.Itoa(i)+"]", bare)
			}
		case []any:
			for i, x := range xs {
				walkDurations(x, t.Elem(), path+"["+strconv.Itoa(i)+"]", bare)
			}
		}
	case t.Kind() == reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		fields, err := schema.Fields(t)
		if err != nil {
			return
		}
		for _, f := range fields {
			if x, ok := m[f.Key]; ok {
				walkDurations(x, f.Type, schema.JoinPath(path, f.Key), bare)
			}
		}
	}
}

var durationType = reflect.TypeFor[workloads.Duration]()

// reserves reports whether a provider charges max_tokens against an output
// limit at admission.
func reserves(p *model.ProviderSpec) bool {
	lims := []model.LimitsSpec{p.Limits}
	for _, k := range p.Keys {
		lims = append(lims, k.Limits)
	}
	for _, l := range lims {
		if l.Reserve != model.ReserveNone && (l.OTPM > 0 || l.TPM > 0 || l.TPD > 0) {
			return true
		}
	}
	return false
}

func maxScheduled(c model.ClusterSpec) int {
	n := 0
	for _, e := range c.Schedule {
		n = max(n, e.Replicas)
	}
	return n
}

// splitName is a route target's backend: "sonnet" of "sonnet:team-a".
func splitName(t string) string {
	for i := len(t) - 1; i >= 0; i-- {
		if t[i] == ':' {
			return t[:i]
		}
	}
	return t
}
