package htmlreport

import (
	"cmp"
	"encoding/json"
	"fmt"
	"html/template"
	"math"
	"slices"
	"strconv"

	"github.com/go-echarts/go-echarts/v2/charts"
	"github.com/go-echarts/go-echarts/v2/opts"
)

// chartHeight is the height of every chart container, in CSS pixels.
const chartHeight = 420

// chartView is one chart on the page: a container with a fixed ID and the
// ECharts option that draws into it.
type chartView struct {
	ID string
	// Option is the chart's ECharts option as JSON, encoded with HTML
	// escaping so that it is safe inside a <script> element.
	Option template.JS
	// Unit is appended to values in the tooltip ("" for none).
	Unit string
	// Note explains what the chart shows, under it.
	Note string
	// Height is the container's height in CSS pixels: taller when the
	// legend wraps onto several rows.
	Height int
	// Owners maps each series to the variants it draws (indexes into the
	// page's variant selector), as JSON; "{}" for none.
	Owners template.JS
	// Empty is true when no series has a value to draw: such a chart is
	// left out of the page and its section says so, by its Title.
	Empty bool
	Title string
}

// echart is what go-echarts' charts offer for rendering elsewhere.
type echart interface {
	Validate()
	JSON() map[string]interface{}
}

// newView validates a go-echarts chart and encodes its option, with the
// layout every chart shares (see option). The option goes through
// encoding/json with HTML escaping on (so "<" is written as \u003c) and
// never through go-echarts' "__f__" function substitution, so no user
// string can end the script or become code.
func newView(id string, c echart, unit, note string) (chartView, error) {
	return newSizedView(id, c, unit, note, viewSpec{})
}

// viewSpec says how a chart is laid out and coloured.
type viewSpec struct {
	// height and width are the container's height and the plot's width
	// in CSS pixels (0: chartHeight and plotWidthPx).
	height, width int
	// owner maps series names to the variant they draw (index into the
	// variant selector); nil for none.
	owner map[string]int
	// byVariant colours every series of a variant alike (see
	// colorByVariant).
	byVariant bool
	// tweaks change what go-echarts cannot express.
	tweaks []func(option)
	// shade, with byVariant, lightens a series' variant colour by the
	// share it returns for the series' name (0: the colour itself), so
	// that series of one variant (its refusal reasons) are told apart
	// while the variant keeps its colour.
	shade func(name string) float64
}

// newSizedView is newView laid out and coloured as spec says.
func newSizedView(id string, c echart, unit, note string, spec viewSpec) (chartView, error) {
	height, width := cmp.Or(spec.height, chartHeight), cmp.Or(spec.width, plotWidthPx)
	owner := spec.owner
	c.Validate()
	o, err := decodeOption(c)
	if err != nil {
		return chartView{}, fmt.Errorf("chart %s: %w", id, err)
	}
	for _, t := range spec.tweaks {
		t(o)
	}
	merged := o.dedupe()
	v := chartView{ID: id, Unit: unit, Note: note, Empty: !o.hasData(), Title: o.title()}
	v.Height = o.layout(height, width)
	owners := map[string][]int{}
	for _, s := range o.series() {
		name, _ := s["name"].(string)
		parts := merged[name]
		if parts == nil {
			parts = []string{name}
		}
		for _, p := range parts {
			if k, ok := owner[p]; ok && !slices.Contains(owners[name], k) {
				owners[name] = append(owners[name], k)
			}
		}
	}
	if spec.byVariant {
		colorByVariant(o, owners, spec.shade)
	}
	b, err := o.encode(id)
	if err != nil {
		return chartView{}, err
	}
	ob, err := json.Marshal(owners)
	if err != nil {
		return chartView{}, fmt.Errorf("chart %s: %w", id, err)
	}
	v.Option, v.Owners = template.JS(b), template.JS(ob)
	return v, nil
}

// lighten mixes a "#rrggbb" colour with white: f = 0 keeps it, 1 is
// white.
func lighten(hex string, f float64) string {
	if f <= 0 || len(hex) != 7 || hex[0] != '#' {
		return hex
	}
	v, err := strconv.ParseUint(hex[1:], 16, 32)
	if err != nil {
		return hex
	}
	mix := func(c uint64) uint64 { return c + uint64(math.Round(float64(255-c)*math.Min(f, 1))) }
	return fmt.Sprintf("#%02x%02x%02x", mix(v>>16&0xff), mix(v>>8&0xff), mix(v&0xff))
}

// colorByVariant gives every series of one variant the variant's colour,
// so that a variant's lines read together (its metrics told apart by
// dashes) across all the charts of the page.
func colorByVariant(o option, owners map[string][]int, shade func(string) float64) {
	if len(owners) == 0 {
		return
	}
	for _, s := range o.series() {
		name, _ := s["name"].(string)
		own := owners[name]
		if len(own) == 0 {
			continue
		}
		color := palette[own[0]%len(palette)]
		if shade != nil {
			color = lighten(color, shade(name))
		}
		for _, k := range []string{"itemStyle", "lineStyle"} {
			m, _ := s[k].(map[string]any)
			if m == nil {
				m = map[string]any{}
				s[k] = m
			}
			m["color"] = color
		}
	}
}

// axisChart holds what every chart with axes shares.
type axisChart struct {
	id, title, subtitle string
	xName, yName        string
	xType               string // "category" (default), "value" or "log"
	legend              bool
	zoom                bool
}

// globals returns the global options of an axis chart: a fixed chart ID,
// title and subtitle, tooltip on the axis, a scrollable legend at the
// bottom, named axes, zoom for time series, and no animation.
func (a axisChart) globals() []charts.GlobalOpts {
	g := []charts.GlobalOpts{
		charts.WithInitializationOpts(opts.Initialization{ChartID: a.id, Height: fmt.Sprintf("%dpx", chartHeight), Width: "100%"}),
		charts.WithAnimation(false),
		charts.WithTitleOpts(opts.Title{Title: a.title, Subtitle: a.subtitle, Left: "center"}),
		charts.WithTooltipOpts(opts.Tooltip{Show: opts.Bool(true), Trigger: "axis"}),
		charts.WithLegendOpts(opts.Legend{Show: opts.Bool(a.legend), Type: "plain", Bottom: "0"}),
		charts.WithGridOpts(opts.Grid{Top: "72", Bottom: "78", Left: "64", Right: "72", ContainLabel: opts.Bool(true)}),
		charts.WithXAxisOpts(opts.XAxis{Name: a.xName, Type: a.xType, NameLocation: "middle", NameGap: 26}),
		charts.WithYAxisOpts(opts.YAxis{Name: a.yName}),
		charts.WithToolboxOpts(opts.Toolbox{Show: opts.Bool(false)}),
	}
	if a.zoom {
		g = append(g, charts.WithDataZoomOpts(opts.DataZoom{Type: "inside"}))
	}
	return g
}

// newLine starts a line chart with the shared options.
func (a axisChart) newLine() *charts.Line {
	l := charts.NewLine()
	l.SetGlobalOptions(a.globals()...)
	return l
}

// newBar starts a bar chart with the shared options.
func (a axisChart) newBar() *charts.Bar {
	b := charts.NewBar()
	b.SetGlobalOptions(a.globals()...)
	return b
}

// lineOpts are the series options of a plain time-series line.
func lineOpts(extra ...charts.SeriesOpts) []charts.SeriesOpts {
	o := []charts.SeriesOpts{
		charts.WithLineChartOpts(opts.LineChart{ShowSymbol: opts.Bool(false)}),
		charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5}),
	}
	return append(o, extra...)
}

// dashed marks a series with a dashed line (the second of a pair, such as
// p50 beside p95).
func dashed() charts.SeriesOpts {
	return charts.WithLineStyleOpts(opts.LineStyle{Width: 1.5, Type: "dashed"})
}

// limitLines draws horizontal mark lines at the given values, labelled
// at their right end.
func limitLines(lines []markLine) []charts.SeriesOpts { return limitLinesAt(lines, "insideEndTop") }

// limitLinesAt is limitLines with the labels at pos ("insideStartTop" for
// the left end), so that lines of two axes that meet keep their labels
// apart.
func limitLinesAt(lines []markLine, pos string) []charts.SeriesOpts {
	if len(lines) == 0 {
		return nil
	}
	items := make([]opts.MarkLineNameYAxisItem, len(lines))
	for i, l := range lines {
		items[i] = opts.MarkLineNameYAxisItem{Name: l.name, YAxis: round4(l.value)}
	}
	return []charts.SeriesOpts{
		charts.WithMarkLineNameYAxisItemOpts(items...),
		charts.WithMarkLineStyleOpts(opts.MarkLineStyle{
			Symbol:    []string{"none", "none"},
			Label:     &opts.Label{Show: opts.Bool(true), Position: pos, Formatter: "{b}"},
			LineStyle: &opts.LineStyle{Type: "dashed", Width: 1.5, Color: limitColor},
		}),
	}
}

// markLine is a labelled horizontal line: a limit or an SLO.
type markLine struct {
	name  string
	value float64
}
