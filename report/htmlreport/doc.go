// Package htmlreport writes a Headroom result document as one
// self-contained HTML page: the verdict in words at the top, the key
// figures of every variant side by side (with 95% confidence intervals
// when the document carries replicated summaries), and interactive charts
// of the time series drawn by Apache ECharts.
//
// Chart options are built with go-echarts (github.com/go-echarts/go-echarts/v2)
// but the page is rendered here, not by go-echarts' templates, for three
// reasons: the page carries text and tables around the charts; every chart
// gets a fixed ID so the same document always gives the same bytes; and
// options are JSON-encoded with HTML escaping (go-echarts writes them
// unescaped into the script and turns "__f__" strings into code, so a
// scenario named "</script><script>…" would run). User strings reach the
// page only through html/template (HTML context) or encoding/json (script
// context), so a name like "<script>alert(1)</script>" shows as text.
//
// The ECharts runtime is inlined (see Runtime) so that the page opens
// without a network; when the binary was built without the asset, the page
// loads it from a CDN and says so at the top.
//
// The package reads report documents and nothing else; the caller owns
// files.
package htmlreport
