package serve

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	hmodel "github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/scenarios"
)

// configOf loads a scenario written in TOML.
func configOf(t testing.TB, toml string) hmodel.Config {
	t.Helper()
	sc, err := scenarios.Load(strings.NewReader(toml), "test.toml")
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	cfg, err := sc.Config(nil)
	if err != nil {
		t.Fatalf("scenario: %v", err)
	}
	return cfg
}

// testServer is a server on a loopback listener.
type testServer struct {
	*Server
	URL string
	ts  *httptest.Server
}

// start serves a scenario on loopback; it is stopped when the test ends.
func start(t testing.TB, toml string, o Options) *testServer {
	t.Helper()
	srv, err := New(configOf(t, toml), o)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	srv.Start()
	t.Cleanup(func() {
		ts.CloseClientConnections()
		ts.Close()
		srv.Stop()
	})
	return &testServer{Server: srv, URL: ts.URL, ts: ts}
}

// scrape reads the server's /metrics.
func (s *testServer) scrape(t testing.TB) map[string]*dto {
	t.Helper()
	resp, err := http.Get(s.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bufio.NewReader(resp.Body))
	if err != nil {
		t.Fatalf("metrics are not valid Prometheus text: %v", err)
	}
	out := map[string]*dto{}
	for name, f := range fams {
		d := &dto{}
		for _, m := range f.Metric {
			labels := map[string]string{}
			for _, l := range m.Label {
				labels[l.GetName()] = l.GetValue()
			}
			v := 0.0
			switch {
			case m.Counter != nil:
				v = m.Counter.GetValue()
			case m.Gauge != nil:
				v = m.Gauge.GetValue()
			case m.Histogram != nil:
				v = float64(m.Histogram.GetSampleCount())
			}
			d.samples = append(d.samples, sample{labels, v})
		}
		out[name] = d
	}
	return out
}

type sample struct {
	labels map[string]string
	v      float64
}

type dto struct{ samples []sample }

// sum adds the samples whose labels include all of want.
func (d *dto) sum(want ...string) float64 {
	if d == nil {
		return 0
	}
	t := 0.0
	for _, s := range d.samples {
		ok := true
		for i := 0; i+1 < len(want); i += 2 {
			ok = ok && s.labels[want[i]] == want[i+1]
		}
		if ok {
			t += s.v
		}
	}
	return t
}

// post sends a JSON body and returns the response with its body read.
func post(t testing.TB, url, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// waitFor polls cond for up to d.
func waitFor(d time.Duration, cond func() bool) bool {
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		if cond() {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return cond()
}

// hosted is a provider with fixed latency and room to spare.
const hosted = `
name = "live test"
duration = "1h"
[[workload]]
name = "chat"
route = "sonnet"
tokens = { input = 1000, output = { dist = "fixed", value = 40 } }
demand = { rate = 1 }

[[provider]]
name = "sonnet"
model = "claude-sonnet-4"
limits = { rpm = 1000, itpm = 1000000, otpm = 200000 }
latency = { ttft = { base = "0.2s" }, tpot = { base = "5ms" } }
cache = { min_tokens = 100 }
`
