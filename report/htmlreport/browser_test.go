package htmlreport_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/htmlreport"
	"github.com/headroom-sim/headroom/scenarios"
)

// browserResult is what testdata/browsercheck.js reports about a page.
type browserResult struct {
	Errors        []string `json:"errors"`
	ConsoleErrors []string `json:"console_errors"`
	Dialogs       []string `json:"dialogs"`
	Requests      []string `json:"requests"`
	Charts        []struct {
		ID      string  `json:"id"`
		Canvas  bool    `json:"canvas"`
		SVG     bool    `json:"svg"`
		Painted int     `json:"painted"`
		Text    string  `json:"text"`
		Height  float64 `json:"height"`
		Legends []struct {
			Type string `json:"type"`
			Show bool   `json:"show"`
		} `json:"legends"`
		Axes []struct {
			Dim  string `json:"dim"`
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"axes"`
		HasData bool `json:"has_data"`
		Series  int  `json:"series"`
	} `json:"charts"`
	Text  string `json:"text"`
	Pwned bool   `json:"pwned"`
	Fatal string `json:"fatal"`
}

// browserTools finds headless Chromium and node, or skips the test.
func browserTools(t *testing.T) (chromium, node string) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser test skipped with -short")
	}
	for _, c := range []string{os.Getenv("HEADROOM_CHROMIUM"), "/usr/bin/chromium", "chromium", "chromium-browser"} {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			chromium = p
			break
		}
	}
	if chromium == "" {
		t.Skip("chromium not found: `make browser` installs Debian's chromium")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found: it drives chromium over the DevTools protocol")
	}
	return chromium, node
}

// runExample simulates an embedded example, base and variants.
func runExample(t *testing.T, name string, overrides ...scenarios.Override) (*report.Document, []model.Config) {
	t.Helper()
	sc, err := scenarios.LoadExample(name)
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := sc.Configs(overrides)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.RunAll(context.Background(), cfgs, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	return report.NewDocument("headroom test", report.ScenarioInfo{Name: cfgs[0].Name, Description: sc.Description, File: sc.File()}, res), cfgs
}

// needRuntime skips a test when the binary has no ECharts runtime to
// inline.
func needRuntime(t *testing.T) {
	t.Helper()
	if htmlreport.Runtime() == nil {
		t.Skip("no embedded ECharts runtime: run `make assets` (npm) so that reports open offline")
	}
}

// inBrowser loads a page in headless Chromium with the network blocked,
// keeps a screenshot in the test's artifact directory, and checks that
// every chart drew, no JavaScript error was logged, no dialog opened and
// no request left the machine.
func inBrowser(t *testing.T, page []byte) browserResult {
	t.Helper()
	res := load(t, page)
	want := strings.Count(string(page), `<div class="chart" id=`)
	if len(res.Charts) != want || want == 0 {
		t.Errorf("%d chart containers in the DOM, %d in the page", len(res.Charts), want)
	}
	for _, c := range res.Charts {
		if !(c.Canvas || c.SVG) || c.Painted < 100 {
			t.Errorf("chart %s not drawn: canvas %v, svg %v, %d painted pixels sampled, text %q", c.ID, c.Canvas, c.SVG, c.Painted, c.Text)
		}
		// No empty chart: every chart drawn has a value to show.
		if !c.HasData {
			t.Errorf("chart %s is drawn with nothing to show (%d series, all empty or zero)", c.ID, c.Series)
		}
		// No paginated legend: a "scroll" legend shows "1/3" arrows and
		// hides names on a printed or static page.
		for _, l := range c.Legends {
			if l.Type == "scroll" {
				t.Errorf("chart %s has a paginated (scroll) legend", c.ID)
			}
		}
		// Log axes where stated: an axis named "(log scale)" is one.
		for _, a := range c.Axes {
			if strings.Contains(a.Name, "log scale") && a.Type != "log" {
				t.Errorf("chart %s: %s axis %q says log scale but is %q", c.ID, a.Dim, a.Name, a.Type)
			}
		}
	}
	for _, e := range append(res.Errors, res.ConsoleErrors...) {
		t.Errorf("JavaScript error: %s", e)
	}
	for _, d := range res.Dialogs {
		t.Errorf("a dialog opened: %s", d)
	}
	for _, r := range res.Requests {
		t.Errorf("the page requested %s", r)
	}
	if res.Pwned {
		t.Error("injected markup ran")
	}
	return res
}

// screenshotDir is where a test leaves its page and screenshot:
// $HEADROOM_SCREENSHOTS when set (make test and make test-browser set it
// to out/screenshots), else the test's artifact directory (kept with go
// test -artifacts, removed otherwise).
func screenshotDir(t *testing.T) string {
	t.Helper()
	if dir := os.Getenv("HEADROOM_SCREENSHOTS"); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		return dir
	}
	return t.ArtifactDir()
}

// axisType returns the type of a chart's axis (dim "xAxis" or "yAxis",
// i-th of them) as the browser drew it, and whether the chart exists.
func axisType(res browserResult, id, dim string, i int) (string, bool) {
	for _, c := range res.Charts {
		if c.ID != id {
			continue
		}
		n := 0
		for _, a := range c.Axes {
			if a.Dim == dim {
				if n == i {
					return a.Type, true
				}
				n++
			}
		}
	}
	return "", false
}

// wantLog checks that a chart's axis is logarithmic.
func wantLog(t *testing.T, res browserResult, id, dim string, i int) {
	t.Helper()
	if typ, ok := axisType(res, id, dim, i); !ok || typ != "log" {
		t.Errorf("chart %s: %s %d is %q (found %v), want a log axis", id, dim, i, typ, ok)
	}
}

// load runs testdata/browsercheck.js on a page and returns its report.
func load(t *testing.T, page []byte) browserResult {
	t.Helper()
	chromium, node := browserTools(t)
	dir := screenshotDir(t)
	name := strings.ReplaceAll(t.Name(), "/", "_")
	file := filepath.Join(dir, name+".html")
	if err := os.WriteFile(file, page, 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, name+".png")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script, err := filepath.Abs(filepath.Join("testdata", "browsercheck.js"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(ctx, node, "--experimental-websocket", script, chromium, file, shot)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	runErr := cmd.Run()
	var res browserResult
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("browser check: %v (%v)\nstdout: %s\nstderr: %s", err, runErr, stdout.String(), stderr.String())
	}
	if res.Fatal != "" || runErr != nil {
		t.Fatalf("browser check failed: %s (%v)\nstderr: %s", res.Fatal, runErr, stderr.String())
	}
	t.Logf("screenshot: %s", shot)
	return res
}

func TestBrowserRunReports(t *testing.T) {
	browserTools(t)
	needRuntime(t)
	cases := []struct {
		name, example string
		overrides     []scenarios.Override
		inject        bool
	}{
		{name: "morning-peak-variants-escaped", example: "morning-peak", inject: true},
		{name: "llama-h100-cluster", example: "llama-h100"},
		{name: "hybrid-routes", example: "hybrid", overrides: []scenarios.Override{{Path: "duration", Value: "12h"}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d, cfgs := runExample(t, c.example, c.overrides...)
			if c.inject {
				d.Scenario.Name = "<script>alert(1)</script>"
				d.Scenario.Description = `<img src=x onerror="document.body.setAttribute('data-pwned','1')"> and </script><script>document.title='pwned'</script>`
				d.Variants[1].Variant = `</script><script>alert(2)</script>`
			}
			o := htmlreport.DefaultOptions()
			o.SLOs = htmlreport.SLOsOf(cfgs[0])
			var b bytes.Buffer
			if err := htmlreport.Write(&b, d, o); err != nil {
				t.Fatal(err)
			}
			res := inBrowser(t, b.Bytes())
			if c.inject {
				for _, lit := range []string{"<script>alert(1)</script>", "</script><script>alert(2)</script>", `<img src=x onerror=`} {
					if !strings.Contains(res.Text, lit) {
						t.Errorf("the page's text lacks the literal %q", lit)
					}
				}
			}
			if !strings.Contains(res.Text, "Verdict") || strings.Contains(res.Text, "needs the network") {
				t.Errorf("page text:\n%.600s", res.Text)
			}
			// The latency distributions are on log latency axes.
			wantLog(t, res, "chart-cdf-ttft", "xAxis", 0)
			wantLog(t, res, "chart-cdf-e2e", "xAxis", 0)
			// Several variants: TTFT in small multiples, one per variant,
			// not one tangle.
			if n := len(d.Variants); n > 1 {
				for k := 2; k <= n; k++ {
					if _, ok := axisType(res, fmt.Sprintf("chart-ttft-%d", k), "xAxis", 0); !ok {
						t.Errorf("no small multiple chart-ttft-%d for %d variants", k, n)
					}
				}
			}
			if len(d.Variants) >= 3 && !strings.Contains(res.Text, "Variants in the charts") {
				t.Errorf("%d variants and no variant selector", len(d.Variants))
			}
		})
	}
}

func TestBrowserSweepReport(t *testing.T) {
	browserTools(t)
	needRuntime(t)
	sc, err := scenarios.LoadExample("llama-h100")
	if err != nil {
		t.Fatal(err)
	}
	workload, err := sc.SweepWorkload("")
	if err != nil {
		t.Fatal(err)
	}
	levels := []float64{1, 8, 64, 256}
	cfgs, err := sc.SweepConfigs(workload, scenarios.SweepConcurrency, levels,
		[]scenarios.Override{{Path: "duration", Value: "2m"}, {Path: "cluster.h100.replicas", Value: int64(1)}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.RunAll(context.Background(), cfgs, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := report.SweepRows(levels, res)
	report.MarkKnee(scenarios.SweepConcurrency, rows)
	d := report.NewSweepDocument("headroom test", report.ScenarioInfo{Name: cfgs[0].Name}, scenarios.SweepConcurrency, workload, levels, res, rows)
	var b bytes.Buffer
	if err := htmlreport.WriteSweep(&b, d, htmlreport.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	out := inBrowser(t, b.Bytes())
	if !strings.Contains(out.Text, "concurrency sweep") {
		t.Errorf("page text:\n%.600s", out.Text)
	}
	// One log axis for the three latencies, all in seconds.
	wantLog(t, out, "chart-sweep-latency", "yAxis", 0)
	if typ, ok := axisType(out, "chart-sweep-latency", "yAxis", 1); ok {
		t.Errorf("chart-sweep-latency has a second y axis (%q): the three latencies share one", typ)
	}
}

// TestBrowserWithoutRuntime: a report written without the runtime says at
// its top that it needs the network; offline, its one request (the CDN)
// fails and each chart says why it is empty, without a script error.
func TestBrowserWithoutRuntime(t *testing.T) {
	browserTools(t)
	d, _ := runExample(t, "morning-peak", scenarios.Override{Path: "duration", Value: "10h"})
	var b bytes.Buffer
	if err := htmlreport.Write(&b, d, htmlreport.Options{}); err != nil {
		t.Fatal(err)
	}
	res := load(t, b.Bytes())
	if !strings.HasPrefix(strings.TrimSpace(res.Text), "This report needs the network") {
		t.Errorf("the page does not open with the network notice:\n%.300s", res.Text)
	}
	if len(res.Requests) != 1 || res.Requests[0] != htmlreport.EChartsCDN {
		t.Errorf("requests %q, want only the CDN", res.Requests)
	}
	for _, e := range res.Errors {
		t.Errorf("JavaScript error: %s", e)
	}
	for _, c := range res.Charts {
		if c.Canvas || !strings.Contains(c.Text, "ECharts did not load") {
			t.Errorf("chart %s: canvas %v, text %q", c.ID, c.Canvas, c.Text)
		}
	}
}

// TestBrowserGridSweepReport: a grid sweep (concurrency × replicas) is
// drawn against its first parameter, one line per replica count.
func TestBrowserGridSweepReport(t *testing.T) {
	browserTools(t)
	needRuntime(t)
	sc, err := scenarios.LoadExample("llama-h100")
	if err != nil {
		t.Fatal(err)
	}
	workload, err := sc.SweepWorkload("")
	if err != nil {
		t.Fatal(err)
	}
	replicas, err := scenarios.ParseParam("cluster.h100.replicas=1,2")
	if err != nil {
		t.Fatal(err)
	}
	grid, err := scenarios.NewGrid([]scenarios.Param{scenarios.LoadParam(scenarios.SweepConcurrency, []float64{1, 16, 64}), replicas})
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := sc.GridConfigs(grid, workload, false, []scenarios.Override{{Path: "duration", Value: "2m"}})
	if err != nil {
		t.Fatal(err)
	}
	gp := &report.GridPlan{Kind: "grid", Workload: workload}
	for _, p := range grid.Params {
		sp := report.SweepParam{Key: p.Key, Values: p.Raw}
		if n, ok := p.Numbers(); ok {
			sp.Numbers = n
		}
		gp.Params = append(gp.Params, sp)
	}
	var list []model.Config
	for i := 0; i < grid.Size(); i++ {
		gp.Points = append(gp.Points, report.GridPoint{Label: grid.Label(i), Values: grid.Values(i)})
		list = append(list, cfgs[i]...)
	}
	res, err := model.RunAll(context.Background(), list, 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	plan := &report.Plan{Command: "sweep", Generator: "headroom test", Scenario: report.ScenarioInfo{Name: list[0].Name},
		Variants: sc.VariantNames(false), Replications: 1, Summarize: true, Grid: gp}
	out, err := report.Assemble(plan, res)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := htmlreport.WriteSweep(&b, out.Sweep, htmlreport.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	got := inBrowser(t, b.Bytes())
	if !strings.Contains(got.Text, "Key figures against concurrency") || !strings.Contains(got.Text, "Per point") {
		t.Errorf("page text:\n%.600s", got.Text)
	}
	wantLog(t, got, "chart-sweep-latency", "yAxis", 0)
	// A grid of two parameters: goodput and cost against the first, and
	// heat maps of both over the two.
	for _, id := range []string{"chart-sweep-goodput", "chart-sweep-cost", "chart-heat-1-slo", "chart-heat-1-cost"} {
		if _, ok := axisType(got, id, "xAxis", 0); !ok {
			t.Errorf("grid sweep lacks %s", id)
		}
	}
}

// TestBrowserTraceReport: a scenario replaying a trace (a small Mooncake
// file, scaled and looped) shows what was read and issued in its own
// table, and every chart draws.
func TestBrowserTraceReport(t *testing.T) {
	browserTools(t)
	needRuntime(t)
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join("..", "..", "workloads", "testdata", "made_up_mooncake.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "m.jsonl"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	scen := `name = "replay"
duration = "10m"
interval = "1m"
[[workload]]
name = "chat"
route = "api"
[workload.demand]
trace = { file = "m.jsonl", scale = 2, loop = true }
[[provider]]
name = "api"
latency = { ttft = { base = "100ms" }, tpot = { base = "10ms" } }
cache = { ttl = "5m", min_tokens = 512 }
`
	file := filepath.Join(dir, "replay.toml")
	sc, err := scenarios.LoadBytes([]byte(scen), file)
	if err != nil {
		t.Fatal(err)
	}
	cfgs, err := sc.Configs(nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := model.RunAll(context.Background(), cfgs, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	d := report.NewDocument("headroom test", report.ScenarioInfo{Name: cfgs[0].Name, File: file}, res)
	var b bytes.Buffer
	if err := htmlreport.Write(&b, d, htmlreport.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	got := inBrowser(t, b.Bytes())
	for _, want := range []string{"Traces replayed: what was read and issued", "chat: read", "rows read", "m.jsonl (mooncake)",
		"chat: input tokens", "scale 2× (2 shifted copies)", "looped"} {
		if !strings.Contains(got.Text, want) {
			t.Errorf("page text lacks %q:\n%.2000s", want, got.Text)
		}
	}
}

// TestBrowserFleetReports: the fleet examples draw their fleet: replicas
// over time with the scale events and the hosted spill (autoscale-day),
// prefix-cache hits by tier and the load spread over replicas
// (prefix-routing), and the pools and KV transfers (disaggregated).
func TestBrowserFleetReports(t *testing.T) {
	browserTools(t)
	needRuntime(t)
	cases := []struct {
		example string
		charts  []string
		logs    []string // charts whose y axis is logarithmic
	}{
		{"autoscale-day", []string{"chart-fleet-replicas", "chart-fleet-spill", "chart-cluster-1-routed"}, nil},
		{"prefix-routing", []string{"chart-cluster-1-prefix", "chart-cluster-1-routed"}, nil},
		{"disaggregated", []string{"chart-cluster-1-pools", "chart-cluster-1-pool-queues", "chart-cluster-1-transfer"}, []string{"chart-cluster-1-transfer"}},
	}
	for _, c := range cases {
		t.Run(c.example, func(t *testing.T) {
			d, cfgs := runExample(t, c.example)
			o := htmlreport.DefaultOptions()
			o.SLOs = htmlreport.SLOsOf(cfgs[0])
			var b bytes.Buffer
			if err := htmlreport.Write(&b, d, o); err != nil {
				t.Fatal(err)
			}
			res := inBrowser(t, b.Bytes())
			for _, id := range c.charts {
				if _, ok := axisType(res, id, "xAxis", 0); !ok {
					t.Errorf("no %s", id)
				}
			}
			for _, id := range c.logs {
				wantLog(t, res, id, "yAxis", 0)
			}
		})
	}
}
