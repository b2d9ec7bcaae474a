package htmlreport

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strings"

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

// tmpl is parsed once; it is never modified after.
var tmpl = template.Must(template.New("page").Parse(pageTemplate))

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
  draw: function (id, option, unit) {
    var el = document.getElementById(id);
    if (typeof echarts === "undefined") {
      el.className += " missing";
      el.textContent = "This chart cannot be drawn: ECharts did not load (this report loads it from the network).";
      return;
    }
    if (unit) {
      option.tooltip = option.tooltip || {};
      option.tooltip.valueFormatter = function (v) { return (v == null || v === "-") ? "–" : hr.fmt(v) + " " + unit; };
    }
    var c = echarts.init(el, null, { renderer: "canvas" });
    c.setOption(option);
    hr.charts.push(c);
  }
};
window.addEventListener("resize", function () { hr.charts.forEach(function (c) { c.resize(); }); });
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
	// Extra are further tables after the main one (a plan's winner's
	// key figures).
	Extra    []titledTable
	Sections []section
}

// titledTable is a table with its own heading.
type titledTable struct {
	Title string
	Table table
}

// variantVerdict is one variant's verdict lines.
type variantVerdict struct {
	Name        string
	Interrupted bool
	Lines       []string
}

// section is a titled group of charts.
type section struct {
	Title, Intro string
	Charts       []chartView
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
	if err := tmpl.Execute(&b, p); err != nil {
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
		p.Verdicts = append(p.Verdicts, variantVerdict{Name: report.VariantName(r), Interrupted: r.Interrupted, Lines: r.Verdict})
	}
	p.TableTitle = "Key figures"
	if len(d.Variants) > 1 || len(d.Summary) > 0 {
		p.TableTitle = "Key figures, variants side by side"
	}
	tb := keyTable(d)
	p.Table = &tb
	p.Gateway = gatewayTable(d.Variants)
	if p.Sections, err = runSections(d.Variants, o.SLOs); err != nil {
		return err
	}
	return render(w, p)
}

// runMeta is the line under the title: horizon, interval, seed, variants.
func runMeta(d *report.Document) string {
	if len(d.Variants) == 0 {
		return "No results."
	}
	r := d.Variants[0]
	s := fmt.Sprintf("Simulated %s from %s · %s intervals · seed %d", report.Seconds(r.DurationS), r.StartClock, report.Seconds(r.IntervalS), r.Seed)
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

// runSections builds the chart sections of a run.
func runSections(vs []*model.Results, slos []SLO) ([]section, error) {
	t := newTimeline(vs)
	if len(t.variants) == 0 || len(t.clock) == 0 {
		return nil, nil
	}
	var out []section
	var err error
	add := func(title, intro string, builders ...func() (chartView, error)) {
		if err != nil {
			return
		}
		s := section{Title: title, Intro: intro}
		for _, b := range builders {
			var v chartView
			if v, err = b(); err != nil {
				return
			}
			s.Charts = append(s.Charts, v)
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
	add("Demand and throughput", intro,
		func() (chartView, error) { return demandChart(t) },
		func() (chartView, error) { return tokensChart(t) })
	add("Latency over the run", "",
		func() (chartView, error) { return ttftChart(t, slos) },
		func() (chartView, error) { return queueWaitChart(t) })
	if anyRefused(t) {
		add("Refusals, retries and failures", "",
			func() (chartView, error) { return refusalsChart(t) },
			func() (chartView, error) { return retriesChart(t) })
	} else {
		add("Refusals, retries and failures", "No attempt was refused in any variant.",
			func() (chartView, error) { return retriesChart(t) })
	}
	add("Concurrency and queues", "",
		func() (chartView, error) { return inFlightChart(t) })
	for k, name := range clusterNames(t) {
		k, name := k, name
		add("GPU cluster "+name, "",
			func() (chartView, error) { return batchChart(t, name, k) },
			func() (chartView, error) { return kvChart(t, name, k) })
	}
	add("Cost", "",
		func() (chartView, error) { return costRateChart(t) },
		func() (chartView, error) { return costCumulativeChart(t) })
	add("Latency distributions", "",
		func() (chartView, error) { return cdfChart(vs, slos, "ttft") },
		func() (chartView, error) { return cdfChart(vs, slos, "e2e") })
	return out, err
}
