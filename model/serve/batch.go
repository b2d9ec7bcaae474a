package serve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/headroom-sim/headroom/model"
)

// The batch APIs, served on a provider's batch lane (scenarios/REFERENCE.md §14):
// OpenAI's Batch API (a JSONL file of requests uploaded through the Files
// API, then POST /v1/batches; the results are an output file and an error
// file) and Anthropic's Message Batches (POST /v1/messages/batches with
// the requests inline; the results are a JSONL stream). Every request of a
// batch is injected into the simulation on the batch lane when the batch
// is created: it skips the rate limits, completes after the provider's
// modelled turnaround (or fails as batch_expired past its window, or
// batch_queue past max_enqueued_tokens) and is billed at the batch
// discount. A batch ends when every request has.

// Bounds on what batches hold, so that memory stays bounded by what the
// clients sent and have not collected.
const (
	maxBatchRequests = 50_000  // per batch (OpenAI's limit; Anthropic's is 100,000)
	maxBatchHeld     = 200_000 // requests held across every batch, pending or done
	maxFiles         = 1_000   // uploaded and output files held
)

// batchStore holds the uploaded files and the batches.
type batchStore struct {
	mu      sync.Mutex
	files   map[string]*storedFile
	batches map[string]*batch
	order   []string // batch ids, oldest first
	held    int      // requests held across batches
}

type storedFile struct {
	id, name, purpose string
	data              []byte
	created           int64
}

// batch is one batch of requests.
type batch struct {
	id, api    string // api: "openai" or "anthropic"
	endpoint   string // OpenAI: the URL every line posts to
	inputFile  string
	window     string
	created    time.Time
	expires    time.Time
	items      []*batchItem
	done, bad  int // ended: succeeded, and refused or failed
	expired    int
	canceled   int
	canceling  bool
	cancelAt   time.Time
	ended      time.Time
	outputFile string
	errorFile  string
	metadata   map[string]string
}

// batchItem is one request of a batch and, once it ended, its result.
type batchItem struct {
	customID string
	q        *request
	lr       *model.LiveRequest // what is injected
	tag      uint64
	ended    bool
	usage    *model.LiveUsage
	fail     *model.LiveRefusal
	cut      string
	canceled bool
	over     chan struct{} // closed when it ended
}

func newBatchStore() *batchStore {
	return &batchStore{files: map[string]*storedFile{}, batches: map[string]*batch{}}
}

// routeBatches adds the batch APIs to the server's mux, at the root and
// under an endpoint's path.
func (s *Server) routeBatches() {
	for _, pre := range []string{"", "/{endpoint}"} {
		s.mux.HandleFunc("POST "+pre+"/v1/files", s.fileUpload)
		s.mux.HandleFunc("GET "+pre+"/v1/files/{id}", s.fileGet)
		s.mux.HandleFunc("GET "+pre+"/v1/files/{id}/content", s.fileContent)
		s.mux.HandleFunc("POST "+pre+"/v1/batches", s.batchCreate)
		s.mux.HandleFunc("GET "+pre+"/v1/batches", s.batchList)
		s.mux.HandleFunc("GET "+pre+"/v1/batches/{id}", s.batchGet)
		s.mux.HandleFunc("POST "+pre+"/v1/batches/{id}/cancel", s.batchCancel)
		s.mux.HandleFunc("POST "+pre+"/v1/messages/batches", s.msgBatchCreate)
		s.mux.HandleFunc("GET "+pre+"/v1/messages/batches", s.batchList)
		s.mux.HandleFunc("GET "+pre+"/v1/messages/batches/{id}", s.batchGet)
		s.mux.HandleFunc("GET "+pre+"/v1/messages/batches/{id}/results", s.msgBatchResults)
		s.mux.HandleFunc("POST "+pre+"/v1/messages/batches/{id}/cancel", s.batchCancel)
	}
}

// batchAPI is the API shape a batch route speaks, for its errors.
func batchAPI(r *http.Request) API {
	if strings.Contains(r.URL.Path, "/v1/messages/") {
		return APIMessages
	}
	return APIChat
}

// batchFail answers a batch route's request with the API's error body.
func (s *Server) batchFail(w http.ResponseWriter, r *http.Request, e *apiError) {
	q := &request{s: s, w: w, r: r, api: batchAPI(r), t0: time.Now()}
	q.newTag()
	q.shape = shapeOf(q.api, false)
	q.fail(e)
}

func writeBody(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// newID names a file or a batch.
func (s *Server) newID(prefix string) string {
	return fmt.Sprintf("%s%016x", prefix, s.mixTag(s.tag.Add(1)))
}

func (f *storedFile) object() map[string]any {
	return map[string]any{"id": f.id, "object": "file", "bytes": len(f.data), "created_at": f.created, "filename": f.name,
		"purpose": f.purpose, "status": "processed"}
}

// fileUpload is OpenAI's POST /v1/files (multipart: purpose and file).
func (s *Server) fileUpload(w http.ResponseWriter, r *http.Request) {
	r.Body = http.MaxBytesReader(w, r.Body, s.opts.MaxBody)
	if err := r.ParseMultipartForm(min(s.opts.MaxBody, 32<<20)); err != nil {
		s.batchFail(w, r, badRequest("file", "expected a multipart form with purpose and file (at most %d bytes): %v", s.opts.MaxBody, err))
		return
	}
	purpose := r.FormValue("purpose")
	if purpose != "batch" {
		s.batchFail(w, r, badRequest("purpose", "this server takes files for the Batch API only: purpose must be \"batch\", got %q", purpose))
		return
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		s.batchFail(w, r, badRequest("file", "missing the file part"))
		return
	}
	data, err := io.ReadAll(f)
	f.Close()
	if err != nil {
		s.batchFail(w, r, badRequest("file", "could not read the file: %v", err))
		return
	}
	bs := s.batches
	bs.mu.Lock()
	if len(bs.files) >= maxFiles {
		bs.mu.Unlock()
		s.batchFail(w, r, &apiError{status: 429, kind: "rate_limit_error", code: "rate_limit_exceeded", msg: fmt.Sprintf("this server holds at most %d files", maxFiles)})
		return
	}
	sf := &storedFile{id: s.newID("file-"), name: hdr.Filename, purpose: purpose, data: data, created: time.Now().Unix()}
	bs.files[sf.id] = sf
	bs.mu.Unlock()
	writeBody(w, 200, sf.object())
}

func (s *Server) file(w http.ResponseWriter, r *http.Request) *storedFile {
	bs := s.batches
	bs.mu.Lock()
	f := bs.files[r.PathValue("id")]
	bs.mu.Unlock()
	if f == nil {
		s.batchFail(w, r, &apiError{status: 404, kind: "not_found_error", msg: fmt.Sprintf("no file %q on this server", r.PathValue("id"))})
	}
	return f
}

func (s *Server) fileGet(w http.ResponseWriter, r *http.Request) {
	if f := s.file(w, r); f != nil {
		writeBody(w, 200, f.object())
	}
}

func (s *Server) fileContent(w http.ResponseWriter, r *http.Request) {
	if f := s.file(w, r); f != nil {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Write(f.data)
	}
}

// batchLine is one line of an OpenAI batch input file.
type batchLine struct {
	CustomID string          `json:"custom_id"`
	Method   string          `json:"method"`
	URL      string          `json:"url"`
	Body     json.RawMessage `json:"body"`
}

// batchCreate is OpenAI's POST /v1/batches.
func (s *Server) batchCreate(w http.ResponseWriter, r *http.Request) {
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		s.batchFail(w, r, aerr)
		return
	}
	var req struct {
		InputFileID      string            `json:"input_file_id"`
		Endpoint         string            `json:"endpoint"`
		CompletionWindow string            `json:"completion_window"`
		Metadata         map[string]string `json:"metadata"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		s.batchFail(w, r, badRequest(jsonError("", err).param, "expected {\"input_file_id\", \"endpoint\", \"completion_window\"}: %s", jsonError("", err).msg))
		return
	}
	api, ok := map[string]API{"/v1/chat/completions": APIChat, "/v1/responses": APIResponses}[req.Endpoint]
	if !ok {
		s.batchFail(w, r, badRequest("endpoint", "endpoint must be /v1/chat/completions or /v1/responses, got %q", req.Endpoint))
		return
	}
	if req.CompletionWindow != "24h" {
		s.batchFail(w, r, badRequest("completion_window", "completion_window must be \"24h\", got %q (the provider's batch window is the scenario's)", req.CompletionWindow))
		return
	}
	bs := s.batches
	bs.mu.Lock()
	f := bs.files[req.InputFileID]
	bs.mu.Unlock()
	if f == nil {
		s.batchFail(w, r, badRequest("input_file_id", "no file %q on this server; upload it with POST /v1/files (purpose \"batch\")", req.InputFileID))
		return
	}
	var items []*batchItem
	sc := bufio.NewScanner(bytes.NewReader(f.data))
	sc.Buffer(make([]byte, 0, 1<<16), int(s.opts.MaxBody))
	seen := map[string]bool{}
	for n := 1; sc.Scan(); n++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var ln batchLine
		if err := json.Unmarshal(text, &ln); err != nil {
			s.batchFail(w, r, badRequest("input_file_id", "%s line %d: not a batch request {\"custom_id\", \"method\", \"url\", \"body\"}: %s", f.name, n, jsonError("", err).msg))
			return
		}
		if ln.URL != req.Endpoint || ln.Method != "POST" || ln.CustomID == "" || seen[ln.CustomID] {
			s.batchFail(w, r, badRequest("input_file_id", "%s line %d: want a unique custom_id, method POST and url %s (the batch's endpoint)", f.name, n, req.Endpoint))
			return
		}
		seen[ln.CustomID] = true
		it, aerr := s.batchItem(r, api, ln.CustomID, ln.Body)
		if aerr != nil {
			aerr.msg = fmt.Sprintf("%s line %d: %s", f.name, n, aerr.msg)
			s.batchFail(w, r, aerr)
			return
		}
		items = append(items, it)
		if len(items) > maxBatchRequests {
			s.batchFail(w, r, badRequest("input_file_id", "more than %d requests in one batch", maxBatchRequests))
			return
		}
	}
	if len(items) == 0 {
		s.batchFail(w, r, badRequest("input_file_id", "%s has no requests", f.name))
		return
	}
	b := &batch{api: "openai", endpoint: req.Endpoint, inputFile: f.id, window: req.CompletionWindow, metadata: req.Metadata, items: items}
	if aerr := s.startBatch(b, "batch_"); aerr != nil {
		s.batchFail(w, r, aerr)
		return
	}
	writeBody(w, 200, s.batchObject(b))
}

// msgBatchCreate is Anthropic's POST /v1/messages/batches.
func (s *Server) msgBatchCreate(w http.ResponseWriter, r *http.Request) {
	body, aerr := s.readBody(w, r)
	if aerr != nil {
		s.batchFail(w, r, aerr)
		return
	}
	var req struct {
		Requests []struct {
			CustomID string          `json:"custom_id"`
			Params   json.RawMessage `json:"params"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Requests) == 0 {
		s.batchFail(w, r, badRequest("requests", "expected {\"requests\": [{\"custom_id\", \"params\"}, ...]} with at least one request"))
		return
	}
	if len(req.Requests) > maxBatchRequests {
		s.batchFail(w, r, badRequest("requests", "more than %d requests in one batch", maxBatchRequests))
		return
	}
	var items []*batchItem
	seen := map[string]bool{}
	for i, rq := range req.Requests {
		if rq.CustomID == "" || seen[rq.CustomID] {
			s.batchFail(w, r, badRequest(fmt.Sprintf("requests.%d.custom_id", i), "every request needs a unique custom_id"))
			return
		}
		seen[rq.CustomID] = true
		it, aerr := s.batchItem(r, APIMessages, rq.CustomID, rq.Params)
		if aerr != nil {
			aerr.msg = fmt.Sprintf("requests.%d.params: %s", i, aerr.msg)
			s.batchFail(w, r, aerr)
			return
		}
		items = append(items, it)
	}
	b := &batch{api: "anthropic", items: items}
	if aerr := s.startBatch(b, "msgbatch_"); aerr != nil {
		s.batchFail(w, r, aerr)
		return
	}
	writeBody(w, 200, s.batchObject(b))
}

// batchItem checks one request of a batch and plans its answer: its
// endpoint (the path's, else by model) must be a provider, which has a
// batch lane, and take the caller's key.
func (s *Server) batchItem(r *http.Request, api API, customID string, body json.RawMessage) (*batchItem, *apiError) {
	p, err := decode(api, body)
	if err != nil {
		return nil, asAPIError(err)
	}
	p.stream = false
	epi, aerr := s.endpoint(r.PathValue("endpoint"), p.model)
	if aerr != nil {
		return nil, aerr
	}
	ep := &s.eps[epi]
	if ep.Kind != "provider" {
		return nil, badRequest("model", "%s is a %s, which has no batch API: only a provider has a batch lane", ep.Name, ep.Kind)
	}
	key := apiKey(r)
	wl, aerr := s.admit(epi, key, p)
	if aerr != nil {
		return nil, aerr
	}
	q := &request{s: s, r: r, api: api, shape: shapeOf(api, false), p: p, endpoint: ep.Name, key: key, t0: time.Now()}
	tag := q.newTag()
	if aerr := q.plan(ep); aerr != nil {
		return nil, aerr
	}
	lr := q.live(wl, tag, ep)
	lr.Batch = true
	return &batchItem{customID: customID, q: q, lr: lr, tag: tag, over: make(chan struct{})}, nil
}

// startBatch registers a batch and injects its requests on the batch lane.
func (s *Server) startBatch(b *batch, prefix string) *apiError {
	bs := s.batches
	bs.mu.Lock()
	if bs.held+len(b.items) > maxBatchHeld {
		bs.mu.Unlock()
		return &apiError{status: 429, kind: "rate_limit_error", code: "rate_limit_exceeded",
			msg: fmt.Sprintf("this server holds at most %d batch requests at once (%d now); collect and delete finished batches' results", maxBatchHeld, bs.held)}
	}
	bs.held += len(b.items)
	b.id = s.newID(prefix)
	b.created = time.Now()
	b.expires = b.created.Add(24 * time.Hour)
	bs.batches[b.id] = b
	bs.order = append(bs.order, b.id)
	bs.mu.Unlock()
	at := s.d.clock.Sim(b.created) // every request of the batch arrives when it is created
	for _, it := range b.items {
		st := newStream(it.tag)
		select {
		case s.d.cmds <- command{inject: it.lr, at: at, st: st}:
		case <-s.d.stopped:
			s.itemEnded(b, it, event{kind: evCut, cut: "the server is shutting down"})
			continue
		}
		go s.awaitItem(b, it, st)
	}
	return nil
}

// awaitItem waits for a batch request's end.
func (s *Server) awaitItem(b *batch, it *batchItem, st *stream) {
	for {
		select {
		case e := <-st.ev:
			if e.kind == evStarted {
				continue
			}
			s.itemEnded(b, it, e)
			return
		case <-it.over: // cancelled
			return
		case <-s.d.stopped:
			s.itemEnded(b, it, event{kind: evCut, cut: "the server is shutting down"})
			return
		}
	}
}

// itemEnded records a batch request's result; the last one ends the batch.
func (s *Server) itemEnded(b *batch, it *batchItem, e event) {
	bs := s.batches
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if it.ended {
		return
	}
	it.ended = true
	close(it.over)
	status := 200
	switch e.kind {
	case evCompleted:
		u := e.usage
		it.usage = &u
		b.done++
	case evFailed:
		f := e.fail
		it.fail = &f
		status = statusOf(f.Reason)
		if f.Reason == "batch_expired" {
			b.expired++
		} else {
			b.bad++
		}
	case evCut:
		it.cut = e.cut
		status = 503
		if b.canceling {
			it.canceled = true
			b.canceled++
		} else {
			b.bad++
		}
	}
	s.m.record(it.q.endpoint, it.q.api, status)
	if it.usage != nil {
		s.m.completed(it.q.endpoint, it.usage, time.Since(s.d.clock.Wall(it.usage.At)))
	}
	it.q.status = status
	if it.fail != nil {
		it.q.reason = it.fail.Reason
	} else if it.cut != "" {
		it.q.reason = "cut"
	}
	it.q.logLine(it.usage)
	if b.done+b.bad+b.expired+b.canceled == len(b.items) {
		b.ended = time.Now()
		if b.api == "openai" {
			s.openAIFiles(b)
		}
	}
}

// openAIFiles writes a finished OpenAI batch's output and error files
// (called with the store locked).
func (s *Server) openAIFiles(b *batch) {
	var out, errs bytes.Buffer
	for _, it := range b.items {
		line := map[string]any{"id": "batch_req_" + it.q.id, "custom_id": it.customID}
		switch {
		case it.usage != nil:
			line["response"] = map[string]any{"status_code": 200, "request_id": "req_" + it.q.id, "body": it.q.shape.body(&it.q.a, it.usage)}
			line["error"] = nil
		case it.fail != nil && it.fail.Reason == "batch_expired":
			line["response"] = nil
			line["error"] = map[string]any{"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}
		case it.fail != nil:
			st := statusOf(it.fail.Reason)
			kind, code := errorKind(it.q.api, st, it.fail.Reason)
			line["response"] = map[string]any{"status_code": st, "request_id": "req_" + it.q.id,
				"body": it.q.shape.errorBody(st, kind, code, "", refusalMessage(it.fail, s.d.clock), "req_"+it.q.id)}
			line["error"] = nil
		default:
			code := "batch_failed"
			if it.canceled {
				code = "batch_cancelled"
			}
			line["response"] = nil
			line["error"] = map[string]any{"code": code, "message": it.cut}
		}
		bl, _ := json.Marshal(line)
		if it.usage != nil {
			out.Write(append(bl, '\n'))
		} else {
			errs.Write(append(bl, '\n'))
		}
	}
	now := time.Now().Unix()
	if out.Len() > 0 && len(s.batches.files) < maxFiles {
		f := &storedFile{id: s.newID("file-"), name: b.id + "_output.jsonl", purpose: "batch_output", data: out.Bytes(), created: now}
		s.batches.files[f.id] = f
		b.outputFile = f.id
	}
	if errs.Len() > 0 && len(s.batches.files) < maxFiles {
		f := &storedFile{id: s.newID("file-"), name: b.id + "_error.jsonl", purpose: "batch_output", data: errs.Bytes(), created: now}
		s.batches.files[f.id] = f
		b.errorFile = f.id
	}
}

// batchObject is a batch as its API describes it.
func (s *Server) batchObject(b *batch) map[string]any {
	bs := s.batches
	bs.mu.Lock()
	defer bs.mu.Unlock()
	ended := !b.ended.IsZero()
	pending := len(b.items) - b.done - b.bad - b.expired - b.canceled
	if b.api == "anthropic" {
		status := "in_progress"
		switch {
		case ended:
			status = "ended"
		case b.canceling:
			status = "canceling"
		}
		rfc := func(t time.Time) any {
			if t.IsZero() {
				return nil
			}
			return t.UTC().Format(time.RFC3339)
		}
		var results any
		if ended {
			results = "/v1/messages/batches/" + b.id + "/results"
		}
		return map[string]any{"id": b.id, "type": "message_batch", "processing_status": status,
			"request_counts": map[string]int{"processing": pending, "succeeded": b.done, "errored": b.bad, "canceled": b.canceled, "expired": b.expired},
			"created_at":     rfc(b.created), "expires_at": rfc(b.expires), "ended_at": rfc(b.ended), "cancel_initiated_at": rfc(b.cancelAt),
			"archived_at": nil, "results_url": results}
	}
	status := "in_progress"
	switch {
	case ended && b.canceling:
		status = "cancelled"
	case ended:
		status = "completed"
	case b.canceling:
		status = "cancelling"
	}
	nilIf := func(id string) any {
		if id == "" {
			return nil
		}
		return id
	}
	var completedAt, cancelledAt any
	if ended && b.canceling {
		cancelledAt = b.ended.Unix()
	} else if ended {
		completedAt = b.ended.Unix()
	}
	return map[string]any{"id": b.id, "object": "batch", "endpoint": b.endpoint, "errors": nil, "input_file_id": b.inputFile,
		"completion_window": b.window, "status": status, "output_file_id": nilIf(b.outputFile), "error_file_id": nilIf(b.errorFile),
		"created_at": b.created.Unix(), "in_progress_at": b.created.Unix(), "expires_at": b.expires.Unix(), "finalizing_at": completedAt,
		"completed_at": completedAt, "failed_at": nil, "expired_at": nil, "cancelling_at": unixOrNil(b.cancelAt), "cancelled_at": cancelledAt,
		"request_counts": map[string]int{"total": len(b.items), "completed": b.done, "failed": b.bad + b.expired + b.canceled},
		"metadata":       b.metadata}
}

func (s *Server) batchOf(w http.ResponseWriter, r *http.Request) *batch {
	bs := s.batches
	bs.mu.Lock()
	b := bs.batches[r.PathValue("id")]
	bs.mu.Unlock()
	want := "openai"
	if batchAPI(r) == APIMessages {
		want = "anthropic"
	}
	if b == nil || b.api != want {
		s.batchFail(w, r, &apiError{status: 404, kind: "not_found_error", msg: fmt.Sprintf("no batch %q on this server", r.PathValue("id"))})
		return nil
	}
	return b
}

func (s *Server) batchGet(w http.ResponseWriter, r *http.Request) {
	if b := s.batchOf(w, r); b != nil {
		writeBody(w, 200, s.batchObject(b))
	}
}

// batchList lists the batches of the route's API, newest first.
func (s *Server) batchList(w http.ResponseWriter, r *http.Request) {
	want := "openai"
	if batchAPI(r) == APIMessages {
		want = "anthropic"
	}
	bs := s.batches
	bs.mu.Lock()
	var list []*batch
	for i := len(bs.order) - 1; i >= 0; i-- {
		if b := bs.batches[bs.order[i]]; b.api == want {
			list = append(list, b)
		}
	}
	bs.mu.Unlock()
	data := []any{}
	for _, b := range list {
		data = append(data, s.batchObject(b))
	}
	if want == "anthropic" {
		var first, last any
		if len(list) > 0 {
			first, last = list[0].id, list[len(list)-1].id
		}
		writeBody(w, 200, map[string]any{"data": data, "has_more": false, "first_id": first, "last_id": last})
		return
	}
	writeBody(w, 200, map[string]any{"object": "list", "data": data, "has_more": false})
}

// batchCancel cancels what of a batch has not ended: its pending requests
// are abandoned (the simulation drops them as a client would).
func (s *Server) batchCancel(w http.ResponseWriter, r *http.Request) {
	b := s.batchOf(w, r)
	if b == nil {
		return
	}
	bs := s.batches
	bs.mu.Lock()
	var pending []*batchItem
	if b.ended.IsZero() && !b.canceling {
		b.canceling, b.cancelAt = true, time.Now()
		for _, it := range b.items {
			if !it.ended {
				pending = append(pending, it)
			}
		}
	}
	bs.mu.Unlock()
	for _, it := range pending {
		select {
		case s.d.cmds <- command{abandon: it.tag}:
		case <-s.d.stopped:
		}
		s.itemEnded(b, it, event{kind: evCut, cut: "the batch was cancelled"})
	}
	writeBody(w, 200, s.batchObject(b))
}

// msgBatchResults is Anthropic's results stream of an ended batch: one
// JSON line per request, in the batch's order.
func (s *Server) msgBatchResults(w http.ResponseWriter, r *http.Request) {
	b := s.batchOf(w, r)
	if b == nil {
		return
	}
	bs := s.batches
	bs.mu.Lock()
	ended := !b.ended.IsZero()
	bs.mu.Unlock()
	if !ended {
		s.batchFail(w, r, &apiError{status: 400, kind: "invalid_request_error", msg: fmt.Sprintf("batch %s is still processing; its results are there once processing_status is \"ended\"", b.id)})
		return
	}
	w.Header().Set("Content-Type", "application/binary")
	for _, it := range b.items {
		var res map[string]any
		switch {
		case it.usage != nil:
			res = map[string]any{"type": "succeeded", "message": it.q.shape.body(&it.q.a, it.usage)}
		case it.fail != nil && it.fail.Reason == "batch_expired":
			res = map[string]any{"type": "expired"}
		case it.fail != nil:
			st := statusOf(it.fail.Reason)
			kind, _ := errorKind(APIMessages, st, it.fail.Reason)
			res = map[string]any{"type": "errored", "error": it.q.shape.errorBody(st, kind, "", "", refusalMessage(it.fail, s.d.clock), "req_"+it.q.id)}
		case it.canceled:
			res = map[string]any{"type": "canceled"}
		default:
			res = map[string]any{"type": "errored", "error": map[string]any{"type": "error", "error": map[string]any{"type": "api_error", "message": it.cut}}}
		}
		line, _ := json.Marshal(map[string]any{"custom_id": it.customID, "result": res})
		w.Write(append(line, '\n'))
	}
}

func unixOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.Unix()
}
