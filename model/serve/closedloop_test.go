package serve

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	hmodel "github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/sim"
	"github.com/headroom-sim/headroom/workloads"
)

// The closed loop: the arrivals `run` simulates, sent by a real SDK to the
// server at --speed K, must give the counts `run` gives with the retry
// preset of that SDK. At speed K the SDK's own backoff (0.5 s x 2^n, capped
// at 8 s) and its Retry-After cap (2 minutes for openai-go) are wall time,
// K times longer in simulated time, so the matching preset is the SDK's
// with base, max and retry_after_cap multiplied by K. Retry-After values
// are divided by K on the wire, so honouring one waits the same simulated
// time.
//
// The tolerance: for each count (completed, failed, refused attempts,
// retries), the live count must be within max(3 sd, 2% of offered, 2) of
// the simulation of the same arrivals, where sd is the count's standard
// deviation over 12 replications with other arrivals. What is left
// between them is the wall clock's jitter (a millisecond of it is K
// milliseconds simulated).

const loopSpeed = 30

// loopCounts are what the closed loop compares.
type loopCounts struct {
	offered, completed, failed, refused, retries float64
}

func (c loopCounts) String() string {
	return fmt.Sprintf("offered %v, completed %v, failed %v, refused %v, retries %v", c.offered, c.completed, c.failed, c.refused, c.retries)
}

func simCounts(r *hmodel.Results) loopCounts {
	s := r.Summary
	refused := int64(0)
	for _, n := range s.Attempts.Rejected {
		refused += n
	}
	return loopCounts{float64(s.Requests.Offered), float64(s.Requests.Completed), float64(s.Requests.Failed), float64(refused), float64(s.Attempts.Retries)}
}

// simulate runs the scenario for replication 0 and returns its counts
// and each count's standard deviation over other replications.
func simulate(t *testing.T, cfg hmodel.Config) (loopCounts, loopCounts) {
	t.Helper()
	run := func(rep int) loopCounts {
		c := cfg
		c.Replication = rep
		s, err := hmodel.Build(c)
		if err != nil {
			t.Fatal(err)
		}
		r, err := s.Run(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return simCounts(r)
	}
	base := run(0)
	var xs []loopCounts
	for rep := 1; rep <= 12; rep++ {
		xs = append(xs, run(rep))
	}
	sd := func(f func(loopCounts) float64) float64 {
		m, v := 0.0, 0.0
		for _, x := range xs {
			m += f(x)
		}
		m /= float64(len(xs))
		for _, x := range xs {
			v += (f(x) - m) * (f(x) - m)
		}
		return math.Sqrt(v / float64(len(xs)-1))
	}
	return base, loopCounts{0, sd(func(c loopCounts) float64 { return c.completed }), sd(func(c loopCounts) float64 { return c.failed }),
		sd(func(c loopCounts) float64 { return c.refused }), sd(func(c loopCounts) float64 { return c.retries })}
}

// arrivalTimes regenerates the workload's arrivals of replication 0, as
// the simulation draws them.
func arrivalTimes(t *testing.T, cfg hmodel.Config) []float64 {
	w := cfg.Workloads[0]
	curve, err := w.Demand.BuildCurve(cfg.StartClock)
	if err != nil {
		t.Fatal(err)
	}
	a := workloads.NewArrivals(curve, w.Demand.Arrivals, sim.Stream(cfg.Seed, "workload/"+w.Name+"/arrivals", 0))
	var out []float64
	for at := a.Next(); at < cfg.Duration; at = a.Next() {
		out = append(out, at)
	}
	return out
}

// liveLoop sends every arrival through send at its time on the server's
// clock and returns the counts the server and the clients saw.
func liveLoop(t *testing.T, toml string, send func(url string) error) loopCounts {
	t.Helper()
	cfg := configOf(t, toml)
	s := start(t, toml, Options{Speed: loopSpeed})
	arr := arrivalTimes(t, cfg)
	clock := s.Clock()
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	for _, at := range arr {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Until(clock.Wall(at)))
			if err := send(s.URL); err != nil {
				failed.Add(1)
				return
			}
			ok.Add(1)
		}()
	}
	wg.Wait()
	m := s.scrape(t)
	refused := 0.0
	for _, smp := range m["headroom_requests_total"].samples {
		if smp.labels["code"] != "200" {
			refused += smp.v
		}
	}
	return loopCounts{float64(len(arr)), float64(ok.Load()), float64(failed.Load()), refused, m["headroom_client_retries_total"].sum()}
}

// within checks every count against the tolerance.
func within(t *testing.T, what string, live, simulated, sd loopCounts) {
	t.Helper()
	t.Logf("%s\n  live      %v\n  simulated %v\n  sd        %v", what, live, simulated, sd)
	if live.offered != simulated.offered {
		t.Fatalf("%s: live offered %v, simulated %v: not the same arrivals", what, live.offered, simulated.offered)
	}
	check := func(name string, l, s, sd float64) {
		tol := math.Max(math.Max(3*sd, 0.02*simulated.offered), 2)
		if math.Abs(l-s) > tol {
			t.Errorf("%s: %s live %v, simulated %v: differ by more than %.1f", what, name, l, s, tol)
		}
	}
	check("completed", live.completed, simulated.completed, sd.completed)
	check("failed", live.failed, simulated.failed, sd.failed)
	check("refused attempts", live.refused, simulated.refused, sd.refused)
	check("retries", live.retries, simulated.retries, sd.retries)
}

// loopScenario is a fixed-window limit that refuses with long Retry-After
// values, under 5 minutes of arrivals at 1 a second.
func loopScenario(limits, retry string, minutes int) string {
	return fmt.Sprintf(`
name = "closed loop"
duration = "1h"
seed = 3
[[workload]]
name = "chat"
route = "api"
tokens = { input = 100, output = 5 }
demand = { unit = "requests/min", curve = [60, 0], every = "%dm" }
client = { retry = %s }

[[provider]]
name = "api"
limits = %s
latency = { ttft = { base = "0.5s" }, tpot = { base = "10ms" } }
`, minutes, retry, limits)
}

func sendOpenAI(url string) error {
	c := openaiClient(url)
	_, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "api", MaxTokens: openai.Int(5),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hello")}}, option.WithHeader("X-Headroom-Output-Tokens", "5"))
	return err
}

func sendAnthropic(url string) error {
	c := anthropicClient(url)
	_, err := c.Messages.New(context.Background(), anthropic.MessageNewParams{Model: "api", MaxTokens: 5,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hello"))}}, aoption.WithHeader("X-Headroom-Output-Tokens", "5"))
	return err
}

// scaled is an SDK preset with its wall-clock times multiplied by the speed.
func scaled(preset string, raCap float64) string {
	s := fmt.Sprintf(`{ preset = %q, base = "%gs", max = "%gs"`, preset, 0.5*loopSpeed, 8.0*loopSpeed)
	if raCap > 0 {
		s += fmt.Sprintf(`, retry_after_cap = "%gs"`, raCap*loopSpeed)
	}
	return s + " }"
}

// TestClosedLoopRetryAfterHonoured: a fixed-window RPM limit; refused
// requests wait out the window as Retry-After says and get through.
func TestClosedLoopRetryAfterHonoured(t *testing.T) {
	if testing.Short() {
		t.Skip("closed loop: about 25 s of wall time")
	}
	const limits = `{ rpm = 30, window = "fixed" }`
	for _, c := range []struct {
		sdk, preset string
		raCap       float64
		send        func(string) error
	}{{"openai-go", "openai-go", 120, sendOpenAI}, {"anthropic-sdk-go", "anthropic-go", 0, sendAnthropic}} {
		t.Run(c.sdk, func(t *testing.T) {
			toml := loopScenario(limits, scaled(c.preset, c.raCap), 5)
			simulated, sd := simulate(t, configOf(t, toml))
			if simulated.retries < 50 || simulated.completed < 0.6*simulated.offered {
				t.Fatalf("the scenario should make clients retry and get through: %v", simulated)
			}
			within(t, c.sdk+" against a fixed-window RPM limit", liveLoop(t, toml, c.send), simulated, sd)
		})
	}
}

// TestClosedLoopRetryAfterTooLong: a daily limit is used up; the
// Retry-After points to the next day, past openai-go's 2-minute cap, and
// the SDK gives up at once, as the preset says. The preset the SDK was
// first believed to follow (clamp the wait to 8 s and retry) would count
// two retries for every refused request: the test tells them apart.
func TestClosedLoopRetryAfterTooLong(t *testing.T) {
	if testing.Short() {
		t.Skip("closed loop")
	}
	const limits = `{ rpd = 20, window = "fixed" }`
	toml := loopScenario(limits, scaled("openai-go", 120), 1)
	simulated, sd := simulate(t, configOf(t, toml))
	live := liveLoop(t, toml, sendOpenAI)
	within(t, "openai-go against a used-up daily limit", live, simulated, sd)
	old := loopScenario(limits, strings.TrimSuffix(scaled("openai-go", 8), " }")+`, over_cap = "clamp" }`, 1)
	wrong, _ := simulate(t, configOf(t, old))
	if math.Abs(wrong.retries-live.retries) < math.Max(3*sd.retries, 0.02*live.offered)+2 {
		t.Fatalf("the clamp-at-8s preset gives %v retries, the SDK %v: the test cannot tell them apart", wrong.retries, live.retries)
	}
}
