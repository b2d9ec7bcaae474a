package htmlreport

import (
	"embed"
	"io/fs"
)

// EChartsVersion is the ECharts release the reports are written for; the
// Makefile's ECHARTS_VERSION fetches the same one (a test checks).
const EChartsVersion = "5.6.0"

// EChartsCDN is where a report built without the embedded runtime loads
// ECharts from.
const EChartsCDN = "https://cdn.jsdelivr.net/npm/echarts@" + EChartsVersion + "/dist/echarts.min.js"

// assets holds the ECharts runtime fetched by `make assets`; in a clone
// without it, only the directory's README.txt.
//
//go:embed assets
var assets embed.FS

// Runtime returns the embedded ECharts runtime (dist/echarts.min.js), or
// nil when the binary was built without it.
func Runtime() []byte {
	b, err := fs.ReadFile(assets, "assets/echarts.min.js")
	if err != nil {
		return nil
	}
	return b
}

// RuntimeLicense returns the embedded runtime's licence text, or nil.
func RuntimeLicense() []byte {
	b, err := fs.ReadFile(assets, "assets/ECHARTS-LICENSE")
	if err != nil {
		return nil
	}
	return b
}
