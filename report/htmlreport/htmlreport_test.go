package htmlreport

import (
	"bytes"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// stubRuntime stands in for ECharts in tests that only read the bytes.
var stubRuntime = []byte("/* stub */ window.echarts = undefined;")

func write(t *testing.T, d *report.Document, o Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := Write(&b, d, o); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestDeterministicBytes(t *testing.T) {
	o := Options{ECharts: stubRuntime, SLOs: []SLO{{Workload: "chat", TTFTS: 5}}}
	a, b := write(t, fixture(), o), write(t, fixture(), o)
	if a != b {
		t.Fatal("the same document gave different HTML")
	}
	// No random chart IDs: every container is one of ours.
	for _, m := range regexp.MustCompile(`<div class="chart" id="([^"]+)"`).FindAllStringSubmatch(a, -1) {
		if !strings.HasPrefix(m[1], "chart-") {
			t.Errorf("chart id %q is not a fixed one", m[1])
		}
	}
}

func TestEveryChartPresent(t *testing.T) {
	out := write(t, fixture(), Options{ECharts: stubRuntime, SLOs: []SLO{{Workload: "chat", TTFTS: 5, E2ES: 30}}})
	for _, id := range []string{"chart-demand", "chart-tokens", "chart-ttft", "chart-queue-wait", "chart-refusals", "chart-retries",
		"chart-in-flight", "chart-cluster-1-batch", "chart-cluster-1-kv", "chart-cost-rate", "chart-cost-cumulative",
		"chart-cdf-ttft", "chart-cdf-e2e"} {
		if !strings.Contains(out, `<div class="chart" id="`+id+`">`) || !strings.Contains(out, `hr.draw("`+id+`", {`) {
			t.Errorf("chart %s missing", id)
		}
	}
	for _, want := range []string{
		"requests/min", "tokens/min", "seconds", "attempts/min", "USD/hour", "% of requests", // axis units
		`"trigger":"axis"`,               // tooltips
		"api RPM 2,000", "api ITPM 800k", // limits drawn
		"tier 4: api ITPM 2M", // a variant's changed limit
		"SLO ttft ≤ 5.0s: chat", "max_num_seqs 64",
		"tier 4 · completed", // variants overlaid
	} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestVerdictAndTable(t *testing.T) {
	out := write(t, fixture(), Options{ECharts: stubRuntime})
	for _, want := range []string{
		"In the base, the first limit to bind is api ITPM (800k/min), at 09:01:05 (40 attempts refused).", // binds first, at what time
		"50 attempts were refused and clients retried 50 times",
		"Cheapest change that holds", "“tier 4”, at $1,300 (&#43;$65.50 against the base, which completed 10% fewer requests: $13,000 against $13,717 per 1,000 completed)",
		"api ITPM limit 800k binds.", // the variant's verdict lines
		"Key figures, variants side by side", "Δ &#43;10.0 pts", "Δ -8.0 pts",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestSummaryWithIntervals(t *testing.T) {
	d := fixture()
	d.Replications = 5
	d.Summary = []report.VariantSummary{
		{Variant: "base", Figures: []report.Figure{{Name: "ttft_p95_s", Label: "TTFT p95", Unit: "s", Estimate: report.Estimate{Mean: 3.4, Lo: 3.1, Hi: 3.7, N: 5}}}},
		{Variant: "tier 4", Figures: []report.Figure{{Name: "ttft_p95_s", Label: "TTFT p95", Unit: "s", Estimate: report.Estimate{Mean: 1.2, Lo: 1.1, Hi: 1.3, N: 5},
			DiffVsBase: &report.Estimate{Mean: -2.2, Lo: -2.5, Hi: -1.9, N: 5}}}},
	}
	out := write(t, d, Options{ECharts: stubRuntime})
	for _, want := range []string{"TTFT p95", "3.4s<small>[3.1s, 3.7s]</small>", `<small class="clear">Δ -2.2s</small><small>[-2.5s, -1.9s]</small>`,
		"Means over 5 replications with 95% confidence intervals"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// TestIntervalsClamped: displayed intervals of quantities that cannot be
// negative stop at 0, and percentages at 100; differences are not clamped.
func TestIntervalsClamped(t *testing.T) {
	out := clampedPage(t)
	for _, want := range []string{"<small>[0, 7]</small>", "<small>[97.0%, 100.0%]</small>", "<small>[-7, &#43;3]</small>"} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

// clampedPage has intervals below 0 and above 100% and a difference's
// interval across 0.
func clampedPage(t *testing.T) string {
	d := fixture()
	d.Replications = 3
	d.Summary = []report.VariantSummary{
		{Variant: "base", Figures: []report.Figure{
			{Name: "requests_failed", Label: "failed", Unit: "requests", Estimate: report.Estimate{Mean: 2, Lo: -3, Hi: 7, N: 3}},
			{Name: "slo_attainment_pct", Label: "goodput (SLO met)", Unit: "%", Estimate: report.Estimate{Mean: 99, Lo: 97, Hi: 101, N: 3}}}},
		{Variant: "tier 4", Figures: []report.Figure{
			{Name: "requests_failed", Label: "failed", Unit: "requests", Estimate: report.Estimate{Mean: 0, N: 3},
				DiffVsBase: &report.Estimate{Mean: -2, Lo: -7, Hi: 3, N: 3}},
			{Name: "slo_attainment_pct", Label: "goodput (SLO met)", Unit: "%", Estimate: report.Estimate{Mean: 100, Lo: 100, Hi: 100, N: 3}}}},
	}
	return write(t, d, Options{ECharts: stubRuntime})
}

func TestUserStringsAreEscaped(t *testing.T) {
	d := fixture()
	d.Scenario.Name = "<script>alert(1)</script>"
	d.Scenario.Description = `</script><script>alert(2)</script><img src=x onerror="alert(3)">`
	d.Scenario.Overrides = []string{"workload.<b>x</b>=1"}
	d.Variants[1].Variant = "</script><script>alert(4)</script>"
	d.Variants[0].Workloads[0].Name = `__f__alert(5)__f__`
	d.Variants[0].Verdict = []string{"<i>verdict</i>"}
	out := write(t, d, Options{ECharts: stubRuntime, SLOs: []SLO{{Workload: "</script><b>", TTFTS: 1}}})
	for _, bad := range []string{"<script>alert", "<img src=x", "<b>", "<i>", "__f__alert(5)__f__\"" + "}", `"__f__`} {
		if strings.Contains(out, bad) {
			t.Errorf("page contains %q unescaped", bad)
		}
	}
	// Only our own scripts: runtime, helper, one per chart.
	charts := strings.Count(out, `<div class="chart"`)
	if got := strings.Count(out, "<script"); got != charts+2 {
		t.Errorf("%d <script> tags, want %d (runtime, helper, %d charts)", got, charts+2, charts)
	}
	for _, want := range []string{
		"&lt;script&gt;alert(1)&lt;/script&gt;",         // as text in the HTML
		`\u003c/script\u003e\u003cscript\u003ealert(4)`, // inside chart JSON
		"__f__alert(5)__f__",                            // left as a string, not turned into code
	} {
		if !strings.Contains(out, want) {
			t.Errorf("page lacks %q", want)
		}
	}
}

func TestNoRuntimeFallsBackToCDN(t *testing.T) {
	out := write(t, fixture(), Options{})
	if !strings.Contains(out, `<div class="banner" id="needs-network">This report needs the network`) {
		t.Error("no visible needs-the-network banner")
	}
	if !strings.Contains(out, `<script src="`+EChartsCDN+`"></script>`) {
		t.Error("no CDN script")
	}
	inlined := write(t, fixture(), Options{ECharts: stubRuntime})
	if strings.Contains(inlined, "needs-network") || strings.Contains(inlined, "<script src=") {
		t.Error("an inlined page still mentions the network or loads a script")
	}
	var b bytes.Buffer
	if err := Write(&b, fixture(), Options{ECharts: []byte("x='</SCRIPT>'")}); err == nil {
		t.Error("a runtime containing </script was inlined")
	}
}

func TestSweepPage(t *testing.T) {
	rows := []report.SweepRow{
		{Level: 1, RequestsPerS: 1, OutputTokensPerS: 100, TTFTP50: 0.1, TTFTP95: 0.2},
		{Level: 2, RequestsPerS: 2, OutputTokensPerS: 200, TTFTP50: 0.1, TTFTP95: 0.2},
		{Level: 4, RequestsPerS: 2.1, OutputTokensPerS: 205, TTFTP50: 0.5, TTFTP95: 1, Rejected: 3},
	}
	report.MarkKnee("concurrency", rows)
	d := report.NewSweepDocument("headroom test", report.ScenarioInfo{Name: "<script>x</script>"}, "concurrency", "chat", []float64{1, 2, 4}, nil, rows)
	var b bytes.Buffer
	if err := WriteSweep(&b, d, Options{ECharts: stubRuntime}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`id="chart-sweep-throughput"`, `id="chart-sweep-latency"`, `"name":"knee: 2"`, `<tr class="knee"><td>2 concurrent requests</td>`, `<td>1 concurrent request</td>`, `id="chart-sweep-refusals"`,
		"Throughput flattens after 2 concurrent requests: pick 2 for interactive traffic.", "&lt;script&gt;x&lt;/script&gt; · concurrency sweep"} {
		if !strings.Contains(out, want) {
			t.Errorf("sweep page lacks %q", want)
		}
	}
}

func TestMakefilePinsTheSameECharts(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Skip("no Makefile:", err)
	}
	if !regexp.MustCompile(`(?m)^ECHARTS_VERSION\s*:?=\s*` + regexp.QuoteMeta(EChartsVersion) + `\s*$`).Match(mk) {
		t.Errorf("Makefile's ECHARTS_VERSION is not %s, the version the reports are written for", EChartsVersion)
	}
}

func TestLongSeriesAreMerged(t *testing.T) {
	d := fixture()
	for _, r := range d.Variants {
		s := &r.Series
		n := 3001
		r.DurationS = float64(n) * 60
		*s = model.Series{IntervalS: 60, Rejected: map[string][]int64{"rpm": make([]int64, n)}}
		for i := 0; i < n; i++ {
			s.StartS = append(s.StartS, float64(i)*60)
			s.Clock = append(s.Clock, fmt.Sprintf("c%d", i))
			s.Offered = append(s.Offered, 1)
			s.InFlight = append(s.InFlight, float64(i%3))
			s.TTFTP95 = append(s.TTFTP95, float64(i%5))
		}
	}
	out := write(t, d, Options{ECharts: stubRuntime})
	if !strings.Contains(out, "each point of the time series merges 3 of them") {
		t.Error("no note on merged intervals")
	}
	m := regexp.MustCompile(`hr.draw\("chart-demand", \{.*?"xAxis":\[\{[^\]]*"data":\[([^\]]*)\]`).FindStringSubmatch(out)
	if m == nil || strings.Count(m[1], ",")+1 != 1001 {
		t.Fatalf("demand chart's axis is not 1001 merged points")
	}
	// 3 requests a merged interval of 3 minutes: still 1 a minute.
	if !strings.Contains(out, `{"value":1}`) {
		t.Error("merged rates are not per minute")
	}
	r, k := coarsen(d.Variants[0])
	if k != 3 || r.Series.TTFTP95[0] != 2 || r.Series.InFlight[0] != 1 || r.Series.Offered[1000] != 1 {
		t.Errorf("coarsen: k %d, ttft p95 %v, in flight %v, last offered %v", k, r.Series.TTFTP95[0], r.Series.InFlight[0], r.Series.Offered[1000])
	}
}

// TestFigureUnits: the units of report's key figures (report/figures.go)
// format as the terminal summary does.
func TestFigureUnits(t *testing.T) {
	for _, c := range []struct {
		v    float64
		unit string
		want string
	}{
		{2.5, "s", "2.5s"},
		{0.35, "s", "350ms"},
		{12.5, "USD", "$12.50"},
		{99.5, "%", "99.5%"},
		{0.995, "ratio", "99.5%"},
		{1234.4, "requests", "1,234"},
		{3.21, "req/s", "3.21 req/s"},
		{1500, "tok/s", "1,500 tok/s"},
	} {
		if got := formatFigure(c.v, c.unit); got != c.want {
			t.Errorf("formatFigure(%v, %q) = %q, want %q", c.v, c.unit, got, c.want)
		}
	}
	if got := signed(-2.25, "%"); got != "-2.2 pts" && got != "-2.3 pts" {
		t.Errorf("signed percent difference = %q, want points", got)
	}
	// Every key figure's unit is one formatFigure handles by name.
	known := map[string]bool{"s": true, "USD": true, "%": true, "requests": true, "req/s": true, "tok/s": true}
	for _, f := range report.SummarizeVariant("x", nil, nil).Figures {
		if !known[f.Unit] {
			t.Errorf("figure %s has unit %q, which the HTML table does not know", f.Name, f.Unit)
		}
	}
}

// TestGatewayTable: a run through a gateway gets a per-tenant table whose
// tenant names are escaped; a run without one gets none.
func TestGatewayTable(t *testing.T) {
	r := &model.Results{Scenario: "gw", DurationS: 60, IntervalS: 60, StartClock: "00:00",
		Gateway: &model.GatewayResult{Tenants: []model.GatewayScopeResult{{Name: "<b>acme</b>", Attempts: 10, Admitted: 8,
			Rejected: map[string]int64{"gw_units": 2}, ReservationToActual: 3.88, QuotaUnits: 100, UsedOfQuota: 0.5}},
			Cache: &model.GatewayCacheResult{HitRate: 0.25}}}
	var b bytes.Buffer
	if err := Write(&b, report.NewDocument("test", report.ScenarioInfo{Name: "gw"}, []*model.Results{r}), Options{}); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{`id="gateway"`, "&lt;b&gt;acme&lt;/b&gt;: admitted", "8 of 10", "2 (most: gw_units)", "3.88×", "50.0%", "25.0%"} {
		if !strings.Contains(out, want) {
			t.Errorf("gateway table lacks %q", want)
		}
	}
	if strings.Contains(out, "<b>acme</b>") {
		t.Error("tenant name not escaped")
	}
	b.Reset()
	r.Gateway = nil
	if err := Write(&b, report.NewDocument("test", report.ScenarioInfo{Name: "gw"}, []*model.Results{r}), Options{}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), `id="gateway"`) {
		t.Error("gateway table without a gateway")
	}
}
