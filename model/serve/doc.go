// Package serve puts a scenario's planned tier behind HTTP: every provider,
// cluster and route of the scenario answers the OpenAI Chat Completions and
// Responses shapes and the Anthropic Messages shape, so a team's real client
// can be tested against the tier before it is bought.
//
// The server is the simulation, driven in real time. One goroutine owns a
// model.Live and advances it to the wall clock times --speed; each HTTP
// request is injected into it at that moment, as a request of the live
// workload its endpoint and API key name, and the handler streams what the
// simulation says happens to it: refused with the backend's Retry-After,
// first token after the modelled TTFT, then tokens at the modelled pace
// (for a cluster, as the live batch produces them), completed with the
// simulation's usage. Limits, windows, reservations, prompt caching,
// concurrency caps, outages, the gateway and cluster batching are therefore
// enforced by the same code that `headroom run` runs, and a live session
// ends with the same Results.
package serve
