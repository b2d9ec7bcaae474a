package model

// Why an attempt was refused or a request failed. The first numDims values
// are org-level limit dimensions, the next numDims key-level ones.
const (
	rsKeyBase        = numDims
	rsConcurrency    = 2 * numDims
	rsQueueFull      = rsConcurrency + 1  // 503: backend queue full
	rsOverloaded     = rsConcurrency + 2  // 529 during an outage
	rsUnavailable    = rsConcurrency + 3  // 503 during an outage
	rsServerError    = rsConcurrency + 4  // 500 during an outage
	rsTooLarge       = rsConcurrency + 5  // 400: can never fit a limit
	rsSpendCap       = rsConcurrency + 6  // terminal 429: spend limit reached
	rsBatchQueue     = rsConcurrency + 7  // 429: batch queue full
	rsBatchExpired   = rsConcurrency + 8  // batch job not done within its window
	rsRetryAfterCap  = rsConcurrency + 9  // client gave up: Retry-After beyond its cap
	rsReplicaFailure = rsConcurrency + 10 // 503: the replica serving it failed; the client may retry
	rsReplicaLost    = rsConcurrency + 11 // the replica serving it failed and the request was lost
	rsGwUnits        = rsConcurrency + 12 // gateway 429: the tenant's unit bucket
	rsGwKeyUnits     = rsConcurrency + 13 // gateway 429: the key's unit bucket
	rsGwStreams      = rsConcurrency + 14 // gateway 429: the tenant's stream cap
	rsGwKeyStreams   = rsConcurrency + 15 // gateway 429: the key's stream cap
	rsGwTooLarge     = rsConcurrency + 16 // gateway 400: the reservation exceeds a bucket
	rsGwShed         = rsConcurrency + 17 // gateway 503: shed from the fair queue
	rsGwStoreDown    = rsConcurrency + 18 // gateway 503: limiter store down, failing closed
	rsGwCrash        = rsConcurrency + 19 // gateway 502: the node serving the stream died
	rsTimeout        = rsConcurrency + 20 // the client's timeout: it abandoned the attempt
	rsDisconnected   = rsConcurrency + 21 // a live client went away (closed its connection) before the answer
	numReasons       = rsConcurrency + 22
)

// reasonNames are the keys used in results (rejected.<reason>).
var reasonNames = [numReasons]string{
	"rpm", "itpm", "otpm", "tpm", "rpd", "tpd",
	"key_rpm", "key_itpm", "key_otpm", "key_tpm", "key_rpd", "key_tpd",
	"concurrency", "queue_full", "overloaded_529", "unavailable_503", "server_error_500",
	"too_large_400", "spend_cap", "batch_queue", "batch_expired", "retry_after_too_long",
	"replica_failure", "replica_lost",
	"gw_units", "gw_key_units", "gw_streams", "gw_key_streams", "gw_too_large_400", "gw_shed_503", "gw_store_down_503", "gw_crash_502",
	"timeout", "client_disconnected",
}

// gatewayReason reports whether r was decided at the gateway, before any
// backend: routes do not fall back on these.
func gatewayReason(r int) bool { return r >= rsGwUnits && r <= rsGwCrash }

// retryable reports whether a client may retry an attempt refused for r.
func retryable(r int) bool {
	switch r {
	case rsTooLarge, rsGwTooLarge, rsSpendCap, rsBatchExpired, rsRetryAfterCap, rsReplicaLost, rsDisconnected:
		return false
	}
	return true
}

// ReasonNames lists every rejection and failure reason key, in order.
func ReasonNames() []string { return append([]string(nil), reasonNames[:]...) }
