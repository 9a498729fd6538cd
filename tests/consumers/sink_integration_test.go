//go:build integration

package consumers

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"
)

// report is what authloop posts (tests/consumers/authloop, same shape).
type report struct {
	Pod        string `json:"pod"`
	Credential string `json:"credential"`
	Event      string `json:"event"`
	OK         int    `json:"ok"`
	Fail       int    `json:"fail"`
	Error      string `json:"error,omitempty"`
}

// podRecord is what the sink knows of one pod: the credential it loaded,
// its latest totals, its errors, and when it started and stopped (sink clock).
type podRecord struct {
	credential       string
	ok, fail         int
	errors           []string
	started, stopped time.Time
}

// sink collects the consumers' reports on 127.0.0.1, which the pods reach
// with hostNetwork (the stack's Keystone binds loopback too).
type sink struct {
	mu   sync.Mutex
	pods map[string]*podRecord
	srv  *http.Server
	URL  string
}

func newSink() (*sink, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &sink{pods: map[string]*podRecord{}, URL: "http://" + l.Addr().String() + "/report"}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.handle), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

func (s *sink) Close() { _ = s.srv.Close() }

func (s *sink) handle(w http.ResponseWriter, r *http.Request) {
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
		p = &podRecord{credential: rep.Credential, started: now}
		s.pods[rep.Pod] = p
	}
	// Totals only grow; a late duplicate cannot lower them.
	p.ok, p.fail = max(p.ok, rep.OK), max(p.fail, rep.Fail)
	if rep.Error != "" && len(p.errors) < 5 {
		p.errors = append(p.errors, rep.Error)
	}
	if rep.Event == "stop" && p.stopped.IsZero() {
		p.stopped = now
	}
	w.WriteHeader(http.StatusNoContent)
}

// snapshot copies the records.
func (s *sink) snapshot() map[string]podRecord {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]podRecord, len(s.pods))
	for n, p := range s.pods {
		c := *p
		c.errors = append([]string(nil), p.errors...)
		out[n] = c
	}
	return out
}

// totals sums the pods' counts.
func totals(pods map[string]podRecord) (ok, fail int) {
	for _, p := range pods {
		ok, fail = ok+p.ok, fail+p.fail
	}
	return ok, fail
}

// failures lists the pods with failures, with their first errors.
func failures(pods map[string]podRecord) []string {
	var out []string
	for n, p := range pods {
		if p.fail > 0 {
			out = append(out, fmt.Sprintf("%s (credential %s): %d failures, %q", n, p.credential, p.fail, p.errors))
		}
	}
	sort.Strings(out)
	return out
}
