package report

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/headroom-sim/headroom/workloads"
)

// ServeBanner is what `headroom serve` says when it starts listening.
type ServeBanner struct {
	Scenario  string
	URL       string // http://HOST:PORT
	Speed     float64
	DurationS float64 // the scenario's horizon, simulated seconds
	Endpoints []ServeEndpoint
	LogPath   string
	// Workloads are the scenario's workloads, which a live session does
	// not run: only the clients' requests reach the endpoints.
	Workloads []string
}

// ServeEndpoint is one endpoint in the banner.
type ServeEndpoint struct {
	Name, Kind, Model string
	Keys              []string
}

// WriteServeBanner lists the endpoints and how to point a client at them.
func WriteServeBanner(w io.Writer, b ServeBanner) error {
	wall := Seconds(b.DurationS / b.Speed)
	fmt.Fprintf(w, "serving %s on %s", b.Scenario, b.URL)
	if b.Speed != 1 {
		fmt.Fprintf(w, " at %gx speed: the scenario's %s lasts %s of wall time", b.Speed, workloads.Duration(b.DurationS), wall)
	} else {
		fmt.Fprintf(w, " in real time (speed 1x) for the scenario's %s", workloads.Duration(b.DurationS))
	}
	fmt.Fprintln(w)
	if len(b.Workloads) > 0 {
		fmt.Fprintf(w, "  no background load: the scenario's %s (%s) %s not run; only your clients' requests reach these endpoints,\n",
			plural(len(b.Workloads), "workload", "workloads"), strings.Join(b.Workloads, ", "), plural(len(b.Workloads), "is", "are"))
		fmt.Fprintln(w, "  and each endpoint takes only its answer lengths, SLO and priority from the first workload sent to it")
	}
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  endpoint\tkind\tOpenAI base URL\tAnthropic base URL\tAPI keys")
	for _, e := range b.Endpoints {
		keys := "any"
		if len(e.Keys) > 0 {
			keys = strings.Join(e.Keys, ", ")
		}
		kind := e.Kind
		if e.Model != "" {
			kind += " (" + e.Model + ")"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s/%s/v1\t%s/%s\t%s\n", e.Name, kind, b.URL, e.Name, b.URL, e.Name, keys)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "  or use %s/v1 (OpenAI) or %s (Anthropic) and name the endpoint as the model\n", b.URL, b.URL)
	for _, e := range b.Endpoints {
		if e.Kind == "provider" {
			fmt.Fprintf(w, "  batch lane (providers): OpenAI's Batch API (%s/v1/files, /v1/batches) and Anthropic's Message Batches (%s/v1/messages/batches)\n", b.URL, b.URL)
			break
		}
	}
	fmt.Fprintf(w, "  metrics: %s/metrics", b.URL)
	if b.LogPath != "" {
		fmt.Fprintf(w, " · request log: %s", b.LogPath)
	}
	_, err := fmt.Fprintln(w, " · Ctrl-C ends the session and writes the results")
	return err
}
