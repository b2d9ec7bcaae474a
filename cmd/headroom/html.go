package main

import (
	"path/filepath"
	"strings"

	"github.com/headroom-sim/headroom/report"
	"github.com/headroom-sim/headroom/report/htmlreport"
)

// htmlTarget decides where the HTML report goes: --html FILE if given,
// else beside the JSON (out/x.json → out/x.html) unless --no-html; "" for
// none.
func htmlTarget(htmlPath, jsonPath string, noHTML bool) (string, error) {
	if noHTML && htmlPath != "" {
		return "", badInput("--html and --no-html contradict each other")
	}
	if noHTML || htmlPath != "" || jsonPath == "" || jsonPath == stdoutName {
		return htmlPath, nil
	}
	return strings.TrimSuffix(jsonPath, filepath.Ext(jsonPath)) + ".html", nil
}

// htmlOptions inlines the embedded ECharts runtime and passes the plan's
// workload SLOs, which Results do not carry (the plan has them, so merge
// draws what a single process would).
func htmlOptions(p *report.Plan) htmlreport.Options {
	o := htmlreport.DefaultOptions()
	o.SLOs = p.SLOs
	return o
}
