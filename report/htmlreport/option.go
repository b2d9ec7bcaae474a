package htmlreport

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// palette are the series colours: Tableau's ten without its red, which
// only the dashed limit and SLO lines (limitColor) use, so a series is
// never mistaken for a limit.
var palette = [...]string{"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#17becf", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#393b79"}

// limitColor draws limits, SLOs and knees.
const limitColor = "#d62728"

// Legend layout: a plain legend that wraps onto as many rows as its names
// need (never a paginated "1/3" one, which a printed or static page cuts
// off), the chart growing by a row's height for each row past the first.
const (
	legendRowPx  = 22
	legendIconPx = 18
	legendGapPx  = 14
	legendCharPx = 6.6 // a 12px sans-serif character, on average
	plotWidthPx  = 1090
)

// option is a chart's ECharts option decoded into plain JSON values, so
// that what every chart shares (colours, legend, deduplication, the test
// for emptiness) is done once, after go-echarts built it. Encoding it
// again sorts its keys, so the page stays a pure function of the results.
type option map[string]any

// decodeOption encodes a go-echarts option and decodes it into plain
// values.
func decodeOption(c echart) (option, error) {
	b, err := json.Marshal(c.JSON())
	if err != nil {
		return nil, err
	}
	var o option
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, err
	}
	return o, nil
}

// title is the chart's title text.
func (o option) title() string {
	t := o["title"]
	if l, ok := t.([]any); ok && len(l) > 0 {
		t = l[0]
	}
	if m, ok := t.(map[string]any); ok {
		s, _ := m["text"].(string)
		return s
	}
	return ""
}

// series returns the option's series.
func (o option) series() []map[string]any {
	list, _ := o["series"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, s := range list {
		if m, ok := s.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// setSeries replaces the option's series.
func (o option) setSeries(ss []map[string]any) {
	list := make([]any, len(ss))
	for i, s := range ss {
		list[i] = s
	}
	o["series"] = list
}

// hasData reports whether any series has a value worth drawing: a finite
// number other than zero (a heat map's cells count whatever their value).
// A chart without one is not drawn.
func (o option) hasData() bool {
	for _, s := range o.series() {
		heat := s["type"] == "heatmap"
		data, _ := s["data"].([]any)
		for _, d := range data {
			if v, ok := pointValue(d); ok && (heat || v != 0) {
				return true
			}
		}
	}
	return false
}

// pointValue is a data point's value: a number, the last of [x, y] or
// [x, y, v], or an object's "value".
func pointValue(d any) (float64, bool) {
	switch x := d.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case []any:
		if len(x) == 0 {
			return 0, false
		}
		return pointValue(x[len(x)-1])
	case map[string]any:
		return pointValue(x["value"])
	}
	return 0, false
}

// dedupe merges series whose points are identical (two variants that
// served the same, say), which would otherwise be drawn one exactly over
// the other so that one hides: the first keeps its place and takes both
// names, "base = tier 4 · completed". Stacked series are left alone (each
// adds to the stack), as are pairs that both draw mark lines. It returns
// the merged names, each mapped to the names it took in.
func (o option) dedupe() map[string][]string {
	ss := o.series()
	merged := map[string][]string{}
	var out []map[string]any
	key := func(s map[string]any) string {
		b, _ := json.Marshal([]any{s["type"], s["yAxisIndex"], s["xAxisIndex"], s["data"]})
		return string(b)
	}
	first := map[string]int{}
	for _, s := range ss {
		name, _ := s["name"].(string)
		if s["stack"] != nil {
			out = append(out, s)
			continue
		}
		k := key(s)
		if i, ok := first[k]; ok && (out[i]["markLine"] == nil || s["markLine"] == nil) {
			keep := out[i]
			kn, _ := keep["name"].(string)
			names := merged[kn]
			if names == nil {
				names = []string{kn}
			}
			names = append(names, name)
			delete(merged, kn)
			nn := joinNames(names)
			merged[nn] = names
			keep["name"] = nn
			if keep["markLine"] == nil && s["markLine"] != nil {
				keep["markLine"] = s["markLine"]
			}
			continue
		}
		first[k] = len(out)
		out = append(out, s)
	}
	o.setSeries(out)
	return merged
}

// joinNames names merged series: their common metric once when they are
// "variant · metric" labels of the same metric, else every name.
func joinNames(names []string) string {
	const sep = " · "
	metric := ""
	var who []string
	for _, n := range names {
		i := strings.LastIndex(n, sep)
		if i < 0 || metric != "" && n[i+len(sep):] != metric {
			return strings.Join(names, " = ")
		}
		metric = n[i+len(sep):]
		who = append(who, n[:i])
	}
	return strings.Join(who, " = ") + sep + metric
}

// layout colours the series and lays the legend out plainly, wrapping,
// beneath the plot in a plot widthPx wide; it returns the chart's height.
func (o option) layout(height, widthPx int) int {
	o["color"] = palette[:]
	clockTicks(o, widthPx)
	leg, _ := o["legend"].(map[string]any)
	if leg == nil || leg["show"] != true {
		return height
	}
	var names []string
	for _, s := range o.series() {
		if n, ok := s["name"].(string); ok && n != "" && !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	rows := legendRows(names, widthPx)
	leg["type"] = "plain"
	leg["bottom"] = 4
	leg["left"] = "center"
	leg["itemGap"] = legendGapPx
	leg["itemWidth"] = legendIconPx
	leg["data"] = toAny(names)
	bottom := 40 + rows*legendRowPx
	switch g := o["grid"].(type) {
	case []any:
		for _, x := range g {
			if m, ok := x.(map[string]any); ok {
				m["bottom"] = bottom
			}
		}
	case map[string]any:
		g["bottom"] = bottom
	default:
		o["grid"] = map[string]any{"bottom": bottom, "containLabel": true}
	}
	return height + (rows-1)*legendRowPx
}

// legendRows estimates how many rows a plain legend of these names takes
// in widthPx, as ECharts fills them: left to right, wrapping when the next
// item does not fit.
func legendRows(names []string, widthPx int) int {
	rows, used := 1, 0.0
	for _, n := range names {
		w := float64(legendIconPx+5+legendGapPx) + legendCharPx*float64(utf8.RuneCountInString(n))
		if used > 0 && used+w > float64(widthPx) {
			rows++
			used = 0
		}
		used += w
	}
	return rows
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// encode writes the option as JSON with HTML escaping (so "<" is written
// \u003c and no user string can end the script).
func (o option) encode(id string) ([]byte, error) {
	b, err := json.Marshal(o)
	if err != nil {
		return nil, fmt.Errorf("chart %s: %w", id, err)
	}
	return b, nil
}
