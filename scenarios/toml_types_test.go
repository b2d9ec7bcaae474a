package scenarios

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Test structs shaped like a scenario. They exercise every kind of field the
// generic TOML code handles.

// tDur is a Duration-like TextUnmarshaler ("400ms").
type tDur time.Duration

func (d *tDur) UnmarshalText(b []byte) error {
	x, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q", string(b))
	}
	if x < 0 {
		return fmt.Errorf("duration %q must not be negative", string(b))
	}
	*d = tDur(x)
	return nil
}

func (d tDur) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// tDist is a distribution decoded by UnmarshalTOML from either a string
// ("400ms", a fixed value) or an inline table { base = "400ms", dist = "lognormal", sigma = 0.5 }.
type tDist struct {
	Dist  string
	Base  time.Duration
	Sigma float64
}

func (d *tDist) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		b, err := time.ParseDuration(x)
		if err != nil {
			return fmt.Errorf("invalid duration %q", x)
		}
		*d = tDist{Dist: "fixed", Base: b}
		return nil
	case map[string]any:
		out := tDist{Dist: "fixed"}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch k {
			case "base":
				s, ok := x[k].(string)
				if !ok {
					return fmt.Errorf("base: expected a duration string")
				}
				b, err := time.ParseDuration(s)
				if err != nil {
					return fmt.Errorf("base: invalid duration %q", s)
				}
				out.Base = b
			case "dist":
				s, _ := x[k].(string)
				switch s {
				case "fixed", "lognormal", "exponential":
					out.Dist = s
				default:
					return fmt.Errorf("unknown distribution %q; allowed: fixed, lognormal, exponential", s)
				}
			case "sigma":
				f, ok := x[k].(float64)
				if !ok {
					return fmt.Errorf("sigma: expected a number")
				}
				out.Sigma = f
			default:
				return fmt.Errorf("unknown key %q in distribution", k)
			}
		}
		*d = out
		return nil
	}
	return fmt.Errorf("expected a duration or a table, got %T", v)
}

type tLimits struct {
	RPM    int     `toml:"rpm"`
	ITPM   int64   `toml:"itpm"`
	OTPM   *int    `toml:"otpm"`
	TPM    float64 `toml:"tpm"`
	RPD    uint32  `toml:"rpd"`
	TPD    int8    `toml:"tpd"`
	Window tDur    `toml:"window"`
	Burst  float32 `toml:"burst"`
	TTFT   tDist   `toml:"ttft"`
}

type tProvider struct {
	Name    string            `toml:"name"`
	Model   string            `toml:"model"`
	Enabled bool              `toml:"enabled"`
	Limits  tLimits           `toml:"limits"`
	Tags    map[string]string `toml:"tags"`
	Weights []float64         `toml:"weights"`
}

type tStage struct {
	Name    string        `toml:"name"`
	Share   float64       `toml:"share"`
	Timeout time.Duration `toml:"timeout"`
}

type tDemand struct {
	Rate  float64  `toml:"rate"`
	Shape string   `toml:"shape"`
	Peak  *float64 `toml:"peak"`
}

type tOpt struct {
	Retries int  `toml:"retries"`
	Cache   bool `toml:"cache"`
}

type tWorkload struct {
	Name   string   `toml:"name"`
	Demand tDemand  `toml:"demand"`
	Stages []tStage `toml:"stage"`
	Opt    *tOpt    `toml:"opt"`
	Mix    [2]int   `toml:"mix"`
}

type tPool struct {
	Size   int  `toml:"size"`
	Warmup tDur `toml:"warmup"`
}

// tCommon is embedded to check promoted fields.
type tCommon struct {
	Description string `toml:"description"`
}

type tScenario struct {
	tCommon
	Name      string           `toml:"name"`
	Seed      uint64           `toml:"seed"`
	Horizon   tDur             `toml:"horizon"`
	Start     time.Time        `toml:"start"`
	Providers []tProvider      `toml:"provider"`
	Workloads []tWorkload      `toml:"workload"`
	Pools     map[string]tPool `toml:"pool"`
	Extra     map[string]any   `toml:"extra"`
	Anything  any              `toml:"anything"`
	Ignored   string           `toml:"-"`
	internal  int
}

// sampleTOML is a realistic document for tScenario; the line numbers of its
// keys are relied upon by the tests.
const sampleTOML = `# A scenario.
name = "email"                                   # line 2
seed = 7
horizon = "24h"
description = "morning peak"

[[provider]]                                     # line 7
name = "sonnet"
model = "claude-sonnet"
enabled = true
tags = { team = "mail", tier = "gold" }          # line 11
weights = [
  1.0,
  2.5,  # comment [x] = 3
]
  [provider.limits]                              # line 16
  rpm = 4000
  itpm = 400000
  window = "1m"
  ttft = { base = "400ms", dist = "lognormal" }  # line 20

[[provider]]                                     # line 22
name = "gpt-4.1"
limits.rpm = 500                                 # line 24
limits.ttft = "250ms"

[[workload]]                                     # line 27
name = "summarize"
demand = { rate = 2.5, shape = "diurnal" }
  [[workload.stage]]                             # line 30
  name = "draft"
  share = 0.7
  [[workload.stage]]                             # line 33
  name = "review"
  timeout = "30s"

[[workload]]                                     # line 37
name = "classify"
demand.rate = 10
mix = [1, 2]
  [[workload.stage]]                             # line 41
  name = "only"
  [workload.opt]                                 # line 43
  retries = 3

[pool.gpu]                                       # line 46
size = 8
warmup = "90s"

[extra]                                          # line 50
whatever = { nested = { deep = 1 } }
`

// lineOf returns the 1-based line of the first line containing substr.
func lineOf(src, substr string) int {
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, substr) {
			return i + 1
		}
	}
	return 0
}
