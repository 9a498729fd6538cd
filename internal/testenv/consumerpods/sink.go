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
	Error      string `json:"error,omitempty"`
}

// Pod is what the sink knows of one pod: the credential it loaded, its
// latest totals, its first errors (at most 5), and when it started, first
// reported a failure and stopped (sink clock; FirstFail zero while it has
// none, Stopped zero until its final report).
type Pod struct {
	Credential                  string
	OK, Fail                    int
	Errors                      []string
	Started, FirstFail, Stopped time.Time
}

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
	p.OK, p.Fail = max(p.OK, rep.OK), max(p.Fail, rep.Fail)
	if p.Fail > 0 && p.FirstFail.IsZero() {
		p.FirstFail = now
	}
	if rep.Error != "" && len(p.Errors) < 5 {
		p.Errors = append(p.Errors, rep.Error)
	}
	if rep.Event == "stop" && p.Stopped.IsZero() {
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
			out = append(out, fmt.Sprintf("%s (credential %s): %d failures, %q", n, p.Credential, p.Fail, p.Errors))
		}
	}
	sort.Strings(out)
	return out
}
