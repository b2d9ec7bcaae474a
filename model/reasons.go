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
	numReasons       = rsConcurrency + 12
)

// reasonNames are the keys used in results (rejected.<reason>).
var reasonNames = [numReasons]string{
	"rpm", "itpm", "otpm", "tpm", "rpd", "tpd",
	"key_rpm", "key_itpm", "key_otpm", "key_tpm", "key_rpd", "key_tpd",
	"concurrency", "queue_full", "overloaded_529", "unavailable_503", "server_error_500",
	"too_large_400", "spend_cap", "batch_queue", "batch_expired", "retry_after_too_long",
	"replica_failure", "replica_lost",
}

// retryable reports whether a client may retry an attempt refused for r.
func retryable(r int) bool {
	switch r {
	case rsTooLarge, rsSpendCap, rsBatchExpired, rsRetryAfterCap, rsReplicaLost:
		return false
	}
	return true
}

// ReasonNames lists every rejection and failure reason key, in order.
func ReasonNames() []string { return append([]string(nil), reasonNames[:]...) }
