package serve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
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
// Each session is checked three ways, from the server's request log
// (every attempt's arrival instant on the simulated clock, its status, its
// Retry-After and the SDK's retry count):
//
//   - the server: every attempt it received, replayed by `run` at the
//     instant it arrived, is admitted or refused as the server did (exact);
//   - the client: each request's attempts follow the preset, refusal by
//     refusal: a retry while the preset retries (never before the
//     Retry-After's instant), none where it gives up (exact);
//   - the loop: the counts equal those of `run` with the preset on the
//     same arrivals (exact, given the premise below).
//
// The wall clock's jitter is K times larger in simulated time: at 30x a
// client woken 30 ms late on a loaded machine is 0.9 s late. The counts of
// a saturated window depend on the order in which a herd of retries
// sharing one Retry-After reaches the server, which live is the
// scheduler's; measured on two busy cores, such a scenario's completions
// varied by ±5 from run to run with the same arrivals. So the scenarios are
// built for the counts to depend only on how many requests arrive in each
// window: every attempt n of a request must reach the server within window
// n (the error budget: at 30x a first attempt may be 0.67 s late, a retry
// 2 s), which the log shows. When it does not, the machine could not keep
// up: the session is measured once more, and the test says so.

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

// simulate runs a scenario as `run` does and returns its counts.
func simulate(t *testing.T, toml string) loopCounts {
	t.Helper()
	s, err := hmodel.Build(configOf(t, toml))
	if err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return simCounts(r)
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

// attempt is one HTTP request as the server's log has it.
type attempt struct {
	KeyHash    string  `json:"key_hash"` // the key itself is masked
	Status     int     `json:"status"`
	At         float64 `json:"arrived_sim_s"`
	Lag        float64 `json:"lag_ms"`
	Retry      int     `json:"client_retry"`
	RetryAfter float64 `json:"retry_after_sim_s"`
}

// session is a closed loop run live.
type session struct {
	counts loopCounts
	reqs   [][]attempt // request i's attempts (sent with API key r<i>), in order
	ok     []bool      // request i's call returned an answer
}

// syncBuffer is a request log the test can read.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *syncBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *syncBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// liveLoop sends every arrival of the scenario through send, with API key
// r<i> for arrival i, at its time on the server's clock, and returns what
// the clients and the server's log saw.
func liveLoop(t *testing.T, toml string, send func(url, key string) error) *session {
	t.Helper()
	cfg := configOf(t, toml)
	var log syncBuffer
	s := start(t, toml, Options{Speed: loopSpeed, Log: &log})
	arr := arrivalTimes(t, cfg)
	clock := s.Clock()
	ok := make([]bool, len(arr))
	var wg sync.WaitGroup
	for i, at := range arr {
		wg.Add(1)
		go func() {
			defer wg.Done()
			time.Sleep(time.Until(clock.Wall(at)))
			ok[i] = send(s.URL, "r"+strconv.Itoa(i)) == nil
		}()
	}
	wg.Wait()
	m := s.scrape(t)
	s.ts.Close() // every handler has returned, so every log line is written
	se := &session{reqs: make([][]attempt, len(arr)), ok: ok}
	se.counts.offered = float64(len(arr))
	for _, v := range ok {
		if v {
			se.counts.completed++
		} else {
			se.counts.failed++
		}
	}
	byHash := map[string]int{}
	for i := range arr {
		byHash[keyHash("r"+strconv.Itoa(i))] = i
	}
	sc := bufio.NewScanner(bytes.NewReader(log.b.Bytes()))
	for sc.Scan() {
		var a attempt
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("request log: %v: %s", err, sc.Bytes())
		}
		i, found := byHash[a.KeyHash]
		if !found {
			t.Fatalf("request log: a request with key hash %q, not one the test sent", a.KeyHash)
		}
		se.reqs[i] = append(se.reqs[i], a)
		if a.Status != 200 {
			se.counts.refused++
		}
		if a.Retry > 0 {
			se.counts.retries++
		}
	}
	for i := range se.reqs {
		sort.Slice(se.reqs[i], func(a, b int) bool { return se.reqs[i][a].At < se.reqs[i][b].At })
	}
	// The log and the metrics are two records of the same requests.
	if r := m["headroom_client_retries_total"].sum(); r != se.counts.retries {
		t.Fatalf("the metrics count %v retries, the request log %v", r, se.counts.retries)
	}
	return se
}

// lateness is how much later than its Retry-After allowed each retry
// reached the server, in wall seconds.
func (se *session) lateness() []float64 {
	var out []float64
	for _, as := range se.reqs {
		for j := 1; j < len(as); j++ {
			out = append(out, (as[j].At-as[j-1].At-as[j-1].RetryAfter)/loopSpeed)
		}
	}
	sort.Float64s(out)
	return out
}

// lags are the server's own lateness: how long after arriving each request
// entered the simulation, in ms.
func (se *session) lags() []float64 {
	var out []float64
	for _, as := range se.reqs {
		for _, a := range as {
			out = append(out, a.Lag)
		}
	}
	sort.Float64s(out)
	return out
}

func quantile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[int(math.Ceil(p*float64(len(sorted))))-1]
}

// logTiming writes how late the clients and the server were.
func logTiming(t *testing.T, se *session) {
	l, g := se.lateness(), se.lags()
	t.Logf("retries after their Retry-After, wall ms: p50 %.1f, p99 %.1f, max %.1f; the server's lag, ms: p50 %.2f, p99 %.2f, max %.2f",
		1000*quantile(l, 0.5), 1000*quantile(l, 0.99), 1000*quantile(l, 1), quantile(g, 0.5), quantile(g, 0.99), quantile(g, 1))
}

// inWindows is the scenarios' premise: attempt n of every request reached
// the server within window n (the first within the first minute, and so
// on). It returns what broke it, or "".
func (se *session) inWindows(window float64) string {
	for i, as := range se.reqs {
		for j, a := range as {
			if w := math.Floor(a.At / window); w != float64(j) {
				return fmt.Sprintf("attempt %d of request r%d reached the server at %.3f s simulated, in window %v, not %d", j+1, i, a.At, w, j)
			}
		}
	}
	return ""
}

// traceOf writes a trace of the given arrival instants, sorted, in whole
// nanoseconds, and returns the demand that replays it. A first record, of another
// workload and filtered out, pins trace time 0 to simulated time 0.
func traceOf(t *testing.T, at []float64) string {
	var b strings.Builder
	b.WriteString("time,input,output,workload\n0,1,1,anchor\n")
	for _, a := range at {
		fmt.Fprintf(&b, "%d,100,5,chat\n", int64(math.Round(a*1e9)))
	}
	p := filepath.Join(t.TempDir(), "attempts.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf(`{ trace = { file = %q, format = "csv", time_unit = "ns", columns = { time = "time", input = "input", output = "output", workload = "workload" }, where = { workload = ["chat"] } } }`, p)
}

// checkServer replays every attempt the server received, at the instant
// it arrived, through `run` without retries: run must admit and refuse
// exactly as the server did.
func checkServer(t *testing.T, se *session, limits string) {
	t.Helper()
	var at []float64
	admitted := 0.0
	for _, as := range se.reqs {
		for _, a := range as {
			at = append(at, a.At)
			if a.Status == 200 {
				admitted++
			}
		}
	}
	sort.Float64s(at)
	r := simulate(t, loopScenario(limits, `"none"`, traceOf(t, at)))
	if r.offered != float64(len(at)) || r.completed != admitted || r.refused != float64(len(at))-admitted {
		t.Errorf("the server's %d attempts replayed by run: %v; the server admitted %v and refused %v", len(at), r, admitted, float64(len(at))-admitted)
	}
}

// sdkPolicy is what the SDKs do on a refusal, in the test's terms.
type sdkPolicy struct {
	attempts int     // the most attempts of one call
	raCap    float64 // the longest Retry-After honoured, wall seconds; 0: any
	giveUp   bool    // past the cap, no retry (else the backoff)
}

// checkClient checks each request's attempts against the SDK's policy,
// refusal by refusal.
func checkClient(t *testing.T, se *session, p sdkPolicy) {
	t.Helper()
	bad := 0
	fail := func(format string, a ...any) {
		if bad++; bad <= 5 {
			t.Errorf(format, a...)
		}
	}
	overCap := func(a attempt) bool { return p.raCap > 0 && a.RetryAfter/loopSpeed > p.raCap }
	for i, as := range se.reqs {
		if len(as) == 0 {
			fail("request r%d never reached the server", i)
			continue
		}
		if len(as) > p.attempts {
			fail("request r%d made %d attempts; the SDK makes at most %d", i, len(as), p.attempts)
		}
		for j, a := range as {
			if a.Retry != j {
				fail("attempt %d of request r%d says it is retry %d", j+1, i, a.Retry)
			}
			if j == len(as)-1 {
				break
			}
			next := as[j+1]
			switch {
			case a.Status == 200:
				fail("request r%d was sent again after an answer", i)
			case a.RetryAfter <= 0:
				fail("request r%d was refused (%d) without a Retry-After", i, a.Status)
			case overCap(a) && p.giveUp:
				fail("request r%d was retried after a Retry-After of %.1f s, past the SDK's cap of %v s", i, a.RetryAfter/loopSpeed, p.raCap)
			case !overCap(a) && next.At < a.At+a.RetryAfter-1e-6:
				fail("request r%d came back %.3f s (simulated) before its Retry-After allowed", i, a.At+a.RetryAfter-next.At)
			}
		}
		last := as[len(as)-1]
		if (last.Status == 200) != se.ok[i] {
			fail("request r%d: the server answered its last attempt %d, but the call returned ok=%v", i, last.Status, se.ok[i])
		}
		if last.Status != 200 && len(as) < p.attempts && !(overCap(last) && p.giveUp) {
			fail("request r%d gave up after %d attempts, the last refused with a Retry-After of %.1f s; the SDK retries", i, len(as), last.RetryAfter/loopSpeed)
		}
	}
	if bad > 5 {
		t.Errorf("... and %d more", bad-5)
	}
}

// loopScenario is a limit under the given demand (of 100 tokens in and 5
// out), with the given retry policy.
func loopScenario(limits, retry, demand string) string {
	tokens := "tokens = { input = 100, output = 5 }"
	if strings.HasPrefix(demand, "{ trace") {
		tokens = "" // the trace's records have them
	}
	return fmt.Sprintf(`
name = "closed loop"
duration = "1h"
seed = 3
[[workload]]
name = "chat"
route = "api"
%s
demand = %s
client = { retry = %s }

[[provider]]
name = "api"
limits = %s
latency = { ttft = { base = "0.5s" }, tpot = { base = "10ms" } }
`, tokens, demand, retry, limits)
}

func sendOpenAI(url, key string) error {
	c := openaiClient(url, option.WithAPIKey(key))
	_, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "api", MaxTokens: openai.Int(5),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hello")}}, option.WithHeader("X-Headroom-Output-Tokens", "5"))
	return err
}

func sendAnthropic(url, key string) error {
	c := anthropicClient(url, aoption.WithAPIKey(key))
	_, err := c.Messages.New(context.Background(), anthropic.MessageNewParams{Model: "api", MaxTokens: 5,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hello"))}}, aoption.WithHeader("X-Headroom-Output-Tokens", "5"))
	return err
}

// scaled is an SDK preset with its wall-clock times multiplied by the
// speed, with extra keys.
func scaled(preset string, raCap float64, extra ...string) string {
	s := fmt.Sprintf(`{ preset = %q, base = "%gs", max = "%gs"`, preset, 0.5*loopSpeed, 8.0*loopSpeed)
	if raCap > 0 {
		s += fmt.Sprintf(`, retry_after_cap = "%gs"`, raCap*loopSpeed)
	}
	for _, e := range extra {
		s += ", " + e
	}
	return s + " }"
}

// measure runs a live session until the premise holds, at most twice.
func measure(t *testing.T, toml string, send func(url, key string) error, window float64) *session {
	t.Helper()
	se := liveLoop(t, toml, send)
	if why := se.inWindows(window); why != "" {
		t.Logf("the machine could not keep up (%s); measuring again", why)
		logTiming(t, se)
		se = liveLoop(t, toml, send)
		if why := se.inWindows(window); why != "" {
			logTiming(t, se)
			t.Fatalf("the machine could not keep up twice (%s): the counts would depend on the scheduler, not on the SDK", why)
		}
	}
	return se
}

var loopSDKs = []struct {
	sdk, preset string
	policy      sdkPolicy
	raCap       float64
	send        func(url, key string) error
}{
	{"openai-go", "openai-go", sdkPolicy{attempts: 3, raCap: 120, giveUp: true}, 120, sendOpenAI},
	{"anthropic-sdk-go", "anthropic-go", sdkPolicy{attempts: 3}, 0, sendAnthropic},
}

// burst is about 120 requests in the first 40 s against 30 a minute in
// fixed windows: 30 get through in each of the first three minutes, the
// rest are refused with a Retry-After to the next minute, and those
// refused a third time fail. Each window's herd of retries is all at the
// same attempt and no new request competes with it, so the counts do not
// depend on the order in which the herd reaches the server.
const (
	burstLimits = `{ rpm = 30, window = "fixed" }`
	burstDemand = `{ unit = "requests/min", curve = [180, 0], every = "40s" }`
)

// TestClosedLoopRetryAfterHonoured: refused requests wait out the window
// as Retry-After says, retry twice and give up; `run` with the SDK's preset
// gives the same counts.
func TestClosedLoopRetryAfterHonoured(t *testing.T) {
	if testing.Short() {
		t.Skip("closed loop: about 5 s of wall time")
	}
	for _, c := range loopSDKs {
		t.Run(c.sdk, func(t *testing.T) {
			t.Parallel()
			toml := loopScenario(burstLimits, scaled(c.preset, c.raCap), burstDemand)
			simulated := simulate(t, toml)
			if simulated.failed < 10 || simulated.retries < 2*simulated.completed/3 {
				t.Fatalf("the scenario should make clients retry twice and some fail: %v", simulated)
			}
			se := measure(t, toml, c.send, 60)
			t.Logf("%s against a fixed-window RPM limit\n  live      %v\n  simulated %v", c.sdk, se.counts, simulated)
			logTiming(t, se)
			checkServer(t, se, burstLimits)
			checkClient(t, se, c.policy)
			if se.counts != simulated {
				t.Errorf("the live counts differ from run's with the %s preset", c.preset)
			}
			// A client that ignored Retry-After (its backoff alone) would
			// give other counts: the test can tell.
			if ign := simulate(t, loopScenario(burstLimits, scaled(c.preset, c.raCap, `retry_after = "ignore"`), burstDemand)); ign == se.counts {
				t.Errorf("a preset that ignores Retry-After gives the same counts (%v): the test cannot tell them apart", ign)
			}
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
	t.Parallel()
	const limits = `{ rpd = 20, window = "fixed" }`
	const demand = `{ unit = "requests/min", curve = [60, 0], every = "1m" }`
	toml := loopScenario(limits, scaled("openai-go", 120), demand)
	simulated := simulate(t, toml)
	// One attempt each: the counts depend on no order, and the day is
	// longer than any lateness.
	se := liveLoop(t, toml, sendOpenAI)
	t.Logf("openai-go against a used-up daily limit\n  live      %v\n  simulated %v", se.counts, simulated)
	logTiming(t, se)
	checkServer(t, se, limits)
	checkClient(t, se, loopSDKs[0].policy)
	if se.counts != simulated {
		t.Errorf("the live counts differ from run's with the openai-go preset")
	}
	old := loopScenario(limits, scaled("openai-go", 8, `over_cap = "clamp"`), demand)
	if wrong := simulate(t, old); wrong.retries < 2*se.counts.failed || se.counts.retries != 0 {
		t.Fatalf("the clamp-at-8s preset gives %v retries, the SDK %v: the test cannot tell them apart", wrong.retries, se.counts.retries)
	}
}
