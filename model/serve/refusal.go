package serve

import (
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/headroom-sim/headroom/model"
)

// statusOf is the HTTP status a refusal reason is answered with: what the
// scenario says (529, 503, 500 outages) or what the provider sends.
func statusOf(reason string) int {
	switch reason {
	case "queue_full", "unavailable_503", "replica_failure", "gw_shed_503", "gw_store_down_503":
		return http.StatusServiceUnavailable
	case "overloaded_529":
		return 529
	case "server_error_500", "replica_lost", "timeout":
		return http.StatusInternalServerError
	case "too_large_400", "gw_too_large_400":
		return http.StatusBadRequest
	case "gw_crash_502":
		return http.StatusBadGateway
	}
	return http.StatusTooManyRequests // limits, concurrency, spend cap, gateway buckets and stream caps
}

// dimOfReason is the limit dimension a refusal names, "" if none.
func dimOfReason(reason string) string {
	d := strings.TrimPrefix(reason, "key_")
	switch d {
	case "rpm", "itpm", "otpm", "tpm", "rpd", "tpd":
		return d
	}
	return ""
}

// refusalMessage says in words why a request was refused.
func refusalMessage(f *model.LiveRefusal, c Clock) string {
	var b strings.Builder
	switch d := dimOfReason(f.Reason); {
	case d != "":
		scope := "the organization"
		if strings.HasPrefix(f.Reason, "key_") {
			scope = "this API key"
		}
		fmt.Fprintf(&b, "Rate limit reached for %s on %s (%s).", dimWords[d], f.Backend, scope)
		for _, l := range f.Limits.List() {
			if l.Dim == d && strings.HasPrefix(l.Scope, "key:") == strings.HasPrefix(f.Reason, "key_") {
				fmt.Fprintf(&b, " Limit %s, remaining %s.", num(l.Limit), num(math.Max(0, math.Floor(l.Remaining))))
			}
		}
	default:
		b.WriteString(reasonWords(f.Reason, f.Backend))
	}
	if f.RetryAfter > 0 {
		fmt.Fprintf(&b, " Please try again in %s.", c.WallDuration(f.RetryAfter).Round(time.Millisecond))
	}
	return b.String()
}

var dimWords = map[string]string{
	"rpm": "requests per minute", "itpm": "input tokens per minute", "otpm": "output tokens per minute",
	"tpm": "tokens per minute", "rpd": "requests per day", "tpd": "tokens per day",
}

func reasonWords(reason, backend string) string {
	switch reason {
	case "concurrency":
		return "Too many concurrent requests to " + backend + "."
	case "queue_full":
		return backend + " is at capacity: its queue is full."
	case "overloaded_529":
		return backend + " is overloaded."
	case "unavailable_503":
		return backend + " is temporarily unavailable."
	case "server_error_500":
		return backend + " had an internal error."
	case "too_large_400":
		return "The request can never fit " + backend + "'s limits or context: reduce the prompt or max_tokens."
	case "spend_cap":
		return "You exceeded your current quota (the spend limit of " + backend + ")."
	case "replica_failure":
		return "The replica of " + backend + " serving this request failed."
	case "replica_lost":
		return "The replica of " + backend + " serving this request failed and the request was lost."
	case "gw_units", "gw_key_units":
		return "The gateway's token budget for this tenant is used up."
	case "gw_streams", "gw_key_streams":
		return "Too many concurrent streams for this tenant at the gateway."
	case "gw_too_large_400":
		return "The request's reservation is larger than the gateway allows this tenant at once."
	case "gw_shed_503":
		return "The gateway shed this request: it waited in the queue past its target."
	case "gw_store_down_503":
		return "The gateway's limiter store is down and it fails closed."
	case "gw_crash_502":
		return "The gateway node serving this stream failed."
	}
	return "The request failed (" + reason + ")."
}

func num(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// seconds formats a wall duration in seconds, whole when it is.
func seconds(d time.Duration) string {
	s := d.Seconds()
	if s == math.Trunc(s) {
		return strconv.FormatInt(int64(s), 10)
	}
	return strconv.FormatFloat(math.Ceil(s*1000)/1000, 'f', -1, 64)
}

// setRetryAfter writes Retry-After (seconds, fractional when the clock is
// sped up) and, when it is not whole seconds, retry-after-ms, which both
// official SDKs prefer.
func setRetryAfter(h http.Header, simSeconds float64, c Clock) {
	if simSeconds <= 0 {
		return
	}
	d := c.WallDuration(simSeconds)
	h.Set("Retry-After", seconds(d))
	if d%time.Second != 0 {
		h.Set("Retry-After-Ms", strconv.FormatInt(int64(math.Ceil(float64(d)/float64(time.Millisecond))), 10))
	}
}

// pickLevel is the most restrictive of the levels of one dimension (the
// least remaining as a share of the limit).
func pickLevel(ls []model.LimitLevel, dims ...string) (model.LimitLevel, bool) {
	var best model.LimitLevel
	found := false
	for _, d := range dims {
		for _, l := range ls {
			if l.Dim != d || l.Capacity <= 0 {
				continue
			}
			if !found || l.Remaining/l.Capacity < best.Remaining/best.Capacity {
				best, found = l, true
			}
		}
		if found {
			return best, true
		}
	}
	return best, false
}

// setLimitHeaders writes the provider's own rate-limit headers computed
// from the limits that bear on the request.
func setLimitHeaders(h http.Header, api API, ls []model.LimitLevel, c Clock, now time.Time) {
	if len(ls) == 0 {
		return
	}
	remaining := func(l model.LimitLevel) string {
		return strconv.FormatInt(int64(math.Max(0, math.Floor(l.Remaining+1e-9))), 10)
	}
	limit := func(l model.LimitLevel) string { return strconv.FormatInt(int64(math.Round(l.Limit)), 10) }
	if api != APIMessages {
		put := func(kind string, l model.LimitLevel) {
			h.Set("X-Ratelimit-Limit-"+kind, limit(l))
			h.Set("X-Ratelimit-Remaining-"+kind, remaining(l))
			h.Set("X-Ratelimit-Reset-"+kind, c.WallDuration(l.Reset).Round(time.Millisecond).String())
		}
		if l, ok := pickLevel(ls, "rpm", "rpd"); ok {
			put("Requests", l)
		}
		if l, ok := pickLevel(ls, "tpm", "itpm", "units", "tpd"); ok {
			put("Tokens", l)
		}
		return
	}
	put := func(kind string, l model.LimitLevel) {
		h.Set("Anthropic-Ratelimit-"+kind+"-Limit", limit(l))
		h.Set("Anthropic-Ratelimit-"+kind+"-Remaining", remaining(l))
		h.Set("Anthropic-Ratelimit-"+kind+"-Reset", now.Add(c.WallDuration(l.Reset)).UTC().Format(time.RFC3339))
	}
	if l, ok := pickLevel(ls, "rpm", "rpd"); ok {
		put("Requests", l)
	}
	var tok []model.LimitLevel
	for _, l := range ls {
		switch l.Dim {
		case "itpm", "otpm", "tpm", "units":
			tok = append(tok, l)
		}
	}
	if l, ok := pickLevel(tok, "itpm", "otpm", "tpm", "units"); ok {
		// the most restrictive token limit, whatever its dimension
		for _, o := range tok {
			if o.Capacity > 0 && o.Remaining/o.Capacity < l.Remaining/l.Capacity {
				l = o
			}
		}
		put("Tokens", l)
	}
	if l, ok := pickLevel(ls, "itpm"); ok {
		put("Input-Tokens", l)
	}
	if l, ok := pickLevel(ls, "otpm"); ok {
		put("Output-Tokens", l)
	}
}

// errorKind is the error type of a status in each API's error body.
func errorKind(api API, status int, reason string) (kind, code string) {
	if api == APIMessages {
		switch {
		case status == 400:
			return "invalid_request_error", ""
		case status == 401:
			return "authentication_error", ""
		case status == 404:
			return "not_found_error", ""
		case status == 413:
			return "request_too_large", ""
		case status == 429:
			return "rate_limit_error", ""
		case status == 529 || status == 503:
			return "overloaded_error", ""
		}
		return "api_error", ""
	}
	switch {
	case reason == "spend_cap":
		return "insufficient_quota", "insufficient_quota"
	case status == 429:
		if d := dimOfReason(reason); d == "rpm" || d == "rpd" || reason == "concurrency" {
			return "requests", "rate_limit_exceeded"
		}
		return "tokens", "rate_limit_exceeded"
	case status == 401:
		return "invalid_request_error", "invalid_api_key"
	case status == 404:
		return "invalid_request_error", "model_not_found"
	case status < 500:
		return "invalid_request_error", ""
	}
	return "server_error", ""
}
