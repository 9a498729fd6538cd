package consumerpods

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"
)

// report is what authloop posts (package authloop below, same shape).
type report struct {
	Pod        string `json:"pod"`
	Credential string `json:"credential"`
	Event      string `json:"event"`
	OK         int    `json:"ok"`
	Fail       int    `json:"fail"`
	Rejected   int    `json:"rejected"`
	Error      string `json:"error,omitempty"`
}

// Pod is what the sink knows of one pod: the credential it loaded, its
// latest totals (Rejected: the failures Keystone answered with 401, 403 or
// 404; the rest of Fail did not reach Keystone or got another answer), its
// first errors (at most 5), and when it started, first reported a failure
// and stopped (sink clock; FirstFail zero while it has none, Stopped zero
// until its final report). RejectedAt holds one sink time per rejection,
// when the report counting it came in; Last is the latest attempt's report
// and LastOK whether that attempt succeeded.
type Pod struct {
	Credential                  string
	OK, Fail, Rejected          int
	Errors                      []string
	RejectedAt                  []time.Time
	Started, FirstFail, Stopped time.Time
	Last                        time.Time
	LastOK                      bool
}

// Events of a report (authloop's).
const (
	eventAttempt = "attempt"
	eventStop    = "stop"
)

// Sink collects the consumers' reports on 127.0.0.1, which the pods reach
// with hostNetwork (the stack's Keystone binds loopback too). URL is the
// value for AUTHLOOP_SINK.
type Sink struct {
	mu   sync.Mutex
	pods map[string]*Pod
	srv  *http.Server
	URL  string
}

// NewSink listens on a free loopback port; Close stops it.
func NewSink() (*Sink, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &Sink{pods: map[string]*Pod{}, URL: "http://" + l.Addr().String() + "/report"}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.handle), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

func (s *Sink) Close() { _ = s.srv.Close() }

func (s *Sink) handle(w http.ResponseWriter, r *http.Request) {
	var rep report
	if err := json.NewDecoder(r.Body).Decode(&rep); err != nil || rep.Pod == "" {
		http.Error(w, "bad report", http.StatusBadRequest)
		return
	}
	now := time.Now()
	s.mu.Lock()
	defer s.mu.Unlock()
	p := s.pods[rep.Pod]
	if p == nil {
		p = &Pod{Credential: rep.Credential, Started: now}
		s.pods[rep.Pod] = p
	}
	// Totals only grow; a late duplicate cannot lower them.
	if rep.Event == eventAttempt && (rep.OK > p.OK || rep.Fail > p.Fail) {
		p.Last, p.LastOK = now, rep.OK > p.OK
	}
	for n := p.Rejected; n < rep.Rejected; n++ {
		p.RejectedAt = append(p.RejectedAt, now)
	}
	p.OK, p.Fail, p.Rejected = max(p.OK, rep.OK), max(p.Fail, rep.Fail), max(p.Rejected, rep.Rejected)
	if p.Fail > 0 && p.FirstFail.IsZero() {
		p.FirstFail = now
	}
	if rep.Error != "" && len(p.Errors) < 5 {
		p.Errors = append(p.Errors, rep.Error)
	}
	if rep.Event == eventStop && p.Stopped.IsZero() {
		p.Stopped = now
	}
	w.WriteHeader(http.StatusNoContent)
}

// Snapshot copies the records, by pod name.
func (s *Sink) Snapshot() map[string]Pod {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]Pod, len(s.pods))
	for n, p := range s.pods {
		c := *p
		c.Errors = append([]string(nil), p.Errors...)
		c.RejectedAt = append([]time.Time(nil), p.RejectedAt...)
		out[n] = c
	}
	return out
}

// Totals sums the pods' counts.
func Totals(pods map[string]Pod) (ok, fail int) {
	for _, p := range pods {
		ok, fail = ok+p.OK, fail+p.Fail
	}
	return ok, fail
}

// Failures lists the pods with failures, with their first errors, sorted.
func Failures(pods map[string]Pod) []string {
	var out []string
	for n, p := range pods {
		if p.Fail > 0 {
			out = append(out, fmt.Sprintf("%s (credential %s): %d failures (%d rejected), %q", n, p.Credential, p.Fail, p.Rejected, p.Errors))
		}
	}
	sort.Strings(out)
	return out
}
