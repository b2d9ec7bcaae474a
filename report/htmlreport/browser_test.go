package htmlreport_test

import (
	"bytes"
	"context"
	"encoding/json"
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
		ID      string `json:"id"`
		Canvas  bool   `json:"canvas"`
		SVG     bool   `json:"svg"`
		Painted int    `json:"painted"`
		Text    string `json:"text"`
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

// load runs testdata/browsercheck.js on a page and returns its report.
func load(t *testing.T, page []byte) browserResult {
	t.Helper()
	chromium, node := browserTools(t)
	dir := t.ArtifactDir()
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
}
