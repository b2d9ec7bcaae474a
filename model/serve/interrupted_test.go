package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"strings"
	"sync"
	"testing"

	hmodel "github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/htmlreport"
)

// TestInterruptedSessionFigures: a session stopped a few seconds into its
// hour has results over the simulated time it served, not the hour: the
// cluster's GPU time and cost are that time's, its batch figures come from
// the live requests (the mean batch times the time served is the time the
// requests spent in the batch, Little's law), and the summary says the
// session ended early and how much it covered.
func TestInterruptedSessionFigures(t *testing.T) {
	var log syncBuffer
	toml := strings.Replace(gpus, "  [cluster.kv]", "  [cluster.price]\n  per_gpu_hour = 3600\n  [cluster.kv]", 1)
	s := start(t, toml, Options{Speed: 1, Log: &log})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); streamDeltas(t, s.URL, 20, s.Clock().Start) }()
	}
	wg.Wait()
	s.ts.Close()
	res := s.Stop()
	if !res.Interrupted || !(res.SimulatedS > 0.3 && res.SimulatedS < 60) || res.DurationS != 3600 {
		t.Fatalf("interrupted %v after %v s of %v s", res.Interrupted, res.SimulatedS, res.DurationS)
	}
	var inBatch float64
	sc := bufio.NewScanner(bytes.NewReader(log.b.Bytes()))
	for sc.Scan() {
		var l struct {
			E2E float64 `json:"e2e_sim_s"`
		}
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		inBatch += l.E2E
	}
	var c *struct{ b, cost float64 }
	for _, b := range res.Backends {
		if b.Name != "pool" || b.Cluster == nil {
			continue
		}
		cr := b.Cluster
		c = &struct{ b, cost float64 }{cr.MeanBatch, b.Cost.Total}
		if math.Abs(cr.GPUHours*3600-res.SimulatedS) > 1e-6 {
			t.Errorf("GPU time %v s, want the %v s served", cr.GPUHours*3600, res.SimulatedS)
		}
		if math.Abs(b.Cost.Total-res.SimulatedS) > 1e-6 { // $3600 per GPU-hour: a dollar a second
			t.Errorf("cost $%v, want $%v for the %v s served", b.Cost.Total, res.SimulatedS, res.SimulatedS)
		}
		// Each request is in the batch from its prefill to its last token:
		// its simulated e2e less the wait for the iteration it joins.
		if got := cr.MeanBatch * res.SimulatedS; math.Abs(got-inBatch) > 0.1*inBatch {
			t.Errorf("mean batch %v over %v s is %v s in the batch; the requests spent %v s", cr.MeanBatch, res.SimulatedS, got, inBatch)
		}
		if cr.PeakBatch < 1 || cr.Utilization <= 0 || cr.Steps < 20 {
			t.Errorf("peak batch %v, utilisation %v, %d iterations", cr.PeakBatch, cr.Utilization, cr.Steps)
		}
	}
	if c == nil {
		t.Fatal("no cluster result for pool")
	}
	out, err := report.Assemble(&report.Plan{Command: "serve", Variants: []string{"base"}, Replications: 1}, []*hmodel.Results{res})
	if err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	if err := report.WriteTerminal(&w, out.Document); err != nil {
		t.Fatal(err)
	}
	text := w.String()
	served := report.Seconds(res.SimulatedS)
	for _, want := range []string{"Simulated " + served + " of 1h", "ended early, after " + served + " of the scenario's 1h", "over " + served + " ("} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary does not say %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "over 1h") || strings.Contains(text, "mean batch 0.0") {
		t.Errorf("the summary speaks of the whole hour, or of an empty batch:\n%s", text)
	}
	// The JSON keeps the hour's 60 intervals; the HTML charts draw the one
	// the session began.
	if n := len(res.Series.Offered); n != 60 {
		t.Errorf("%d intervals in the series, want the hour's 60", n)
	}
	var page bytes.Buffer
	if err := htmlreport.Write(&page, out.Document, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	axis := regexp.MustCompile(`hr.draw\("chart-demand", \{.*?"xAxis":\[\{[^\]]*"data":\[([^\]]*)\]`).FindStringSubmatch(page.String())
	if axis == nil || strings.Count(axis[1], ",") != 0 {
		t.Errorf("the HTML demand chart's axis is %v, want the one interval served", axis)
	}
}
