package htmlreport

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"
	"sync"

	"github.com/headroom-sim/headroom/model"
	"github.com/headroom-sim/headroom/report"
)

// Options control how a report page is written.
type Options struct {
	// ECharts is the ECharts runtime inlined into the page (Runtime() for
	// the embedded one). When empty the page loads EChartsCDN instead and
	// says at its top that it needs the network.
	ECharts []byte
	// EChartsLicense is the runtime's licence text, shown at the foot of
	// the page when the runtime is inlined.
	EChartsLicense []byte
	// SLOs are the workloads' latency objectives, drawn as lines on the
	// latency charts; Results do not carry them.
	SLOs []SLO
}

// DefaultOptions inlines the embedded runtime, when the binary has it.
func DefaultOptions() Options {
	return Options{ECharts: Runtime(), EChartsLicense: RuntimeLicense()}
}

// SLO is one workload's latency objectives, in seconds (0: none).
type SLO = report.SLO

// SLOsOf returns the latency objectives of a configuration's workloads
// (those that set any), for Options.SLOs.
func SLOsOf(c model.Config) []SLO { return report.SLOsOf(c) }

//go:embed page.tmpl
var pageTemplate string

// pageTmpl parses the page template the first time a report is written,
// not when the program starts: most runs of the CLI write no HTML, and
// parsing it took a third of a millisecond of every start. It is never
// modified after.
var pageTmpl = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("page").Parse(pageTemplate))
})

// helperJS draws a chart into its container, with units in the tooltip,
// or says why it cannot.
const helperJS = `"use strict";
var hr = {
  charts: [],
  fmt: function (v) {
    if (typeof v !== "number") { return String(v); }
    var a = Math.abs(v);
    if (a >= 1000) { return Math.round(v).toLocaleString("en-US"); }
    if (a >= 10) { return String(Math.round(v * 10) / 10); }
    return String(Math.round(v * 1000) / 1000);
  },
  // shown[i] says whether variant i is drawn (the variant selector).
  shown: null,
  visible: function (owners, name) {
    var o = owners[name];
    if (!hr.shown || !o) { return true; }
    return o.some(function (i) { return hr.shown[i]; });
  },
  draw: function (id, option, unit, owners, height) {
    var el = document.getElementById(id);
    if (height) { el.style.height = height + "px"; }
    if (typeof echarts === "undefined") {
      el.className += " missing";
      el.textContent = "This chart cannot be drawn: ECharts did not load (this report loads it from the network).";
      return;
    }
    if (unit) {
      option.tooltip = option.tooltip || {};
      option.tooltip.valueFormatter = function (v) { return (v == null || v === "-") ? "–" : hr.fmt(v) + " " + unit; };
    }
    owners = owners || {};
    if (hr.shown && option.legend) {
      var sel = {};
      Object.keys(owners).forEach(function (n) { sel[n] = hr.visible(owners, n); });
      (Array.isArray(option.legend) ? option.legend : [option.legend]).forEach(function (l) { l.selected = sel; });
    }
    var c = echarts.init(el, null, { renderer: "canvas" });
    c.setOption(option);
    hr.charts.push({ chart: c, owners: owners });
  },
  // select shows or hides variant i in every chart.
  select: function (i, on) {
    hr.shown[i] = on;
    hr.charts.forEach(function (x) {
      Object.keys(x.owners).forEach(function (n) {
        x.chart.dispatchAction({ type: hr.visible(x.owners, n) ? "legendSelect" : "legendUnSelect", name: n });
      });
    });
  }
};
window.addEventListener("resize", function () { hr.charts.forEach(function (x) { x.chart.resize(); }); });
`

// page is what the template renders.
type page struct {
	Title, Description, Meta string
	Overrides                []string
	Generator, Schema        string
	Runtime                  template.JS
	Helper                   template.JS
	CDN, EChartsVersion      string
	License                  string
	ChartHeight              int
	Headline                 []string
	Verdicts                 []variantVerdict
	OpenVerdicts             bool
	TableTitle               string
	Table                    *table
	Gateway                  *table // per tenant, when the run had a gateway
	Limits                   *table // every rate limit at its peak
	Traces                   *table // what each replayed trace read and issued
	// Extra are further tables after the main one (a plan's winner's
	// key figures).
	Extra    []titledTable
	Sections []section
	// Warnings are the document's defaults that change the answer.
	Warnings []string
	// Selector chooses the variants the charts draw, when there are many;
	// Shown is its initial state as JSON.
	Selector []selectorItem
	Shown    template.JS
}

// titledTable is a table with its own heading.
type titledTable struct {
	Title string
	Table table
}

// selectorItem is one variant of the selector.
type selectorItem struct {
	Index   int
	Name    string
	Checked bool
}

// variantVerdict is one variant's verdict lines.
type variantVerdict struct {
	Name        string
	Interrupted string // how far an interrupted run got, "" if it ran to its end
	Lines       []string
}

// section is a titled group of charts.
type section struct {
	Title, Intro string
	Charts       []chartView
	// Multiples lays the charts out two to a row (small multiples).
	Multiples bool
}

// newPage fills what every page shares: title, runtime, footer.
func newPage(d *report.Document, o Options) (*page, error) {
	p := &page{Title: d.Scenario.Name, Description: d.Scenario.Description, Overrides: d.Scenario.Overrides,
		Generator: d.Generator, Schema: d.Schema, Helper: template.JS(helperJS),
		CDN: EChartsCDN, EChartsVersion: EChartsVersion, ChartHeight: chartHeight}
	if p.Generator == "" {
		p.Generator = "headroom"
	}
	if p.Schema == "" {
		p.Schema = report.Schema
	}
	if len(o.ECharts) > 0 {
		low := strings.ToLower(string(o.ECharts))
		if strings.Contains(low, "</script") || strings.Contains(low, "<!--") {
			return nil, errors.New("html report: the ECharts runtime contains </script or <!-- and cannot be inlined")
		}
		p.Runtime = template.JS(o.ECharts)
		p.License = string(o.EChartsLicense)
	}
	return p, nil
}

// render executes the template into w.
func render(w io.Writer, p *page) error {
	var b bytes.Buffer
	if err := pageTmpl().Execute(&b, p); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	if _, err := w.Write(b.Bytes()); err != nil {
		return fmt.Errorf("html report: %w", err)
	}
	return nil
}

// Write writes a run's document as one HTML page: the verdict, the key
// figures of every variant and the charts. The bytes are a pure function
// of the document and the options.
func Write(w io.Writer, d *report.Document, o Options) error {
	p, err := newPage(d, o)
	if err != nil {
		return err
	}
	p.Meta = runMeta(d)
	p.Headline = headline(d.Variants)
	p.OpenVerdicts = len(d.Variants) <= 3
	for _, r := range d.Variants {
		v := variantVerdict{Name: report.VariantName(r), Lines: r.Verdict}
		if r.Interrupted {
			v.Interrupted = report.InterruptedLine(r)
		}
		p.Verdicts = append(p.Verdicts, v)
	}
	p.TableTitle = "Key figures"
	if len(d.Variants) > 1 || len(d.Summary) > 0 {
		p.TableTitle = "Key figures, variants side by side"
	}
	tb := keyTable(d)
	p.Table = &tb
	p.Gateway = gatewayTable(d.Variants)
	p.Limits = limitsTable(d.Variants)
	p.Traces = traceTable(d.Variants)
	for _, x := range d.Warnings {
		p.Warnings = append(p.Warnings, x.Text())
	}
	t := newTimeline(d.Variants)
	if p.Sections, err = runSections(t, d.Variants, o.SLOs); err != nil {
		return err
	}
	p.Selector, p.Shown = variantSelector(t)
	return render(w, p)
}

// selectorMin is the number of drawn variants from which the page offers
// a variant selector (and draws only a few of them at first).
const selectorMin = 3

// selectorDefault is how many variants the charts draw at first when
// there are more: the base, the cheapest that holds and the one with the
// best goodput, then the next in file order.
const selectorDefault = 3

// variantSelector lists the drawn variants for the selector, those drawn
// at first checked, with that state as JSON; nothing below selectorMin.
func variantSelector(t timeline) ([]selectorItem, template.JS) {
	n := len(t.variants)
	if n < selectorMin {
		return nil, ""
	}
	on := make([]bool, n)
	on[0] = true
	cheapest, best := -1, 0
	for i, r := range t.variants {
		if report.Holds(r) && (cheapest < 0 || r.Summary.Cost.Total < t.variants[cheapest].Summary.Cost.Total) {
			cheapest = i
		}
		if r.Summary.Goodput.SLOAttainment > t.variants[best].Summary.Goodput.SLOAttainment {
			best = i
		}
	}
	if cheapest >= 0 {
		on[cheapest] = true
	}
	on[best] = true
	count := 0
	for _, b := range on {
		if b {
			count++
		}
	}
	for i := 1; i < n && count < selectorDefault; i++ {
		if !on[i] {
			on[i], count = true, count+1
		}
	}
	items := make([]selectorItem, n)
	for i, r := range t.variants {
		items[i] = selectorItem{Index: i, Name: report.VariantName(r), Checked: on[i]}
	}
	b, _ := json.Marshal(on)
	return items, template.JS(b)
}

// runMeta is the line under the title: horizon, interval, seed, variants.
func runMeta(d *report.Document) string {
	if len(d.Variants) == 0 {
		return "No results."
	}
	r := d.Variants[0]
	s := fmt.Sprintf("Simulated %s from %s · %s intervals · seed %d", report.SimulatedSpan(r), r.StartClock, report.Seconds(r.IntervalS), r.Seed)
	if len(d.Variants) > 1 {
		s += fmt.Sprintf(" · %d variants", len(d.Variants))
	}
	if d.Replications > 1 {
		s += fmt.Sprintf(" · %d replications", d.Replications)
	}
	if d.Scenario.File != "" {
		s += " · " + d.Scenario.File
	}
	return s
}

// runSections builds the chart sections of a run. A chart with nothing
// to draw (no refusal, no cost) is left out, and its section says so.
func runSections(t timeline, vs []*model.Results, slos []SLO) ([]section, error) {
	if len(t.variants) == 0 || len(t.clock) == 0 {
		return nil, nil
	}
	var out []section
	var err error
	add := func(title, intro string, multiples bool, builders ...func() (chartView, error)) {
		if err != nil {
			return
		}
		s := section{Title: title, Intro: intro, Multiples: multiples}
		var empty []string
		for _, b := range builders {
			var v chartView
			if v, err = b(); err != nil {
				return
			}
			if v.Empty {
				empty = append(empty, v.Title)
				continue
			}
			s.Charts = append(s.Charts, v)
		}
		if len(empty) > 0 {
			s.Intro = strings.TrimSpace(s.Intro + " Not drawn, with nothing to show: " + strings.Join(empty, "; ") + ".")
		}
		out = append(out, s)
	}
	intro := ""
	if len(t.skipped) > 0 {
		intro = "Not drawn here, because their intervals differ from the base's: " + strings.Join(t.skipped, ", ") + ". "
	}
	if t.merged > 1 {
		intro += fmt.Sprintf("The run has more than %d intervals, so each point of the time series merges %d of them: counts and costs are summed, gauges averaged, and latency percentiles are the largest of the merged intervals'.", maxPoints, t.merged)
	}
	add("Demand and throughput", intro, false,
		func() (chartView, error) { return demandChart(t) },
		func() (chartView, error) { return tokensChart(t) })
	if hasLimits(t.variants) {
		add("Limits at the peak", "Offered demand counts every request once, at its first attempt, in the interval it arrived in, whether the limit let it through or not; peak use counts what the limit admitted, which a token bucket caps near (interval + burst)/interval of the limit.", false,
			func() (chartView, error) { return demandLimitChart(t) })
	}
	if t.multi() {
		add("Time to first token, variant by variant", ttftNote+" Each variant has its own chart, all on the same scale.", true, ttftMultiples(t, slos)...)
		add("Queue wait", "", false, func() (chartView, error) { return queueWaitChart(t) })
	} else {
		add("Latency over the run", "", false,
			func() (chartView, error) { return ttftChart(t, slos) },
			func() (chartView, error) { return queueWaitChart(t) })
	}
	refusals := ""
	if !anyRefused(t) {
		refusals = "No attempt was refused in any variant."
	}
	add("Refusals, retries and failures", refusals, false,
		func() (chartView, error) { return refusalsChart(t) },
		func() (chartView, error) { return retriesChart(t) })
	add("Concurrency and queues", "", false,
		func() (chartView, error) { return inFlightChart(t) })
	for k, name := range clusterNames(t) {
		k, name := k, name
		title := "GPU cluster " + name
		for _, r := range t.variants {
			if c := clusterOf(r, name); c != nil {
				title += " (" + report.GPUs(c) + " in " + report.VariantRef(r) + ")"
				break
			}
		}
		builders := []func() (chartView, error){
			func() (chartView, error) { return batchChart(t, name, k) },
			func() (chartView, error) { return kvChart(t, name, k) },
		}
		if hasRouting(t, name) {
			builders = append(builders, func() (chartView, error) { return routedChart(t, name, k) })
		}
		if hasPrefixCache(t, name) {
			builders = append(builders, func() (chartView, error) { return prefixChart(t, name, k) })
		}
		if hasPools(t, name) {
			builders = append(builders, poolsCharts(t, name, k)...)
		}
		add(title, "", false, builders...)
	}
	if len(scaledClusters(t)) > 0 || hasSpill(t) {
		add("Fleet: replicas, scaling and hosted spill", "", false,
			func() (chartView, error) { return replicasChart(t) },
			func() (chartView, error) { return spillChart(t) })
	}
	add("Cost", "", false,
		func() (chartView, error) { return costRateChart(t) },
		func() (chartView, error) { return costCumulativeChart(t) })
	add("Latency distributions", "", false,
		func() (chartView, error) { return cdfChart(t, vs, slos, "ttft") },
		func() (chartView, error) { return cdfChart(t, vs, slos, "e2e") })
	return out, err
}
