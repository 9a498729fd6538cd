package consumerpods

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"
)

// post sends r to the sink as authloop does.
func post(t *testing.T, s *Sink, r report) {
	t.Helper()
	b, _ := json.Marshal(r)
	resp, err := http.Post(s.URL, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent {
		t.Fatalf("sink answered %d", resp.StatusCode)
	}
}

// The sink keeps the totals, one time per rejection (also when a report
// in between was lost), whether the latest attempt succeeded, and the stop;
// a late duplicate lowers nothing.
func TestSink_RejectionsAndLatestAttempt(t *testing.T) {
	s, err := NewSink()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	r := report{Pod: "p", Credential: "c", Event: "start"}
	post(t, s, r)
	r.Event, r.OK = eventAttempt, 1
	post(t, s, r)
	if p := s.Snapshot()["p"]; !p.LastOK || p.Last.IsZero() || p.Rejected != 0 {
		t.Fatalf("after a success: %+v", p)
	}
	r.Fail, r.Rejected, r.Error = 3, 2, "401"
	post(t, s, r)
	p := s.Snapshot()["p"]
	if p.LastOK || p.Fail != 3 || p.Rejected != 2 || len(p.RejectedAt) != 2 {
		t.Fatalf("after failures: %+v", p)
	}
	stale := r
	stale.Fail, stale.Rejected = 1, 1
	post(t, s, stale)
	r.Event = eventStop
	post(t, s, r)
	p = s.Snapshot()["p"]
	if p.Fail != 3 || p.Rejected != 2 || len(p.RejectedAt) != 2 || p.Stopped.IsZero() || p.LastOK {
		t.Fatalf("after a late duplicate and the stop: %+v", p)
	}
	if ok, fail := Totals(s.Snapshot()); ok != 1 || fail != 3 {
		t.Fatalf("Totals %d, %d", ok, fail)
	}
}

// PasswordCredential names a password as authloop does.
func TestPasswordCredential(t *testing.T) {
	if got, want := PasswordCredential("secret"), "password:2bb80d537b1d"; got != want {
		t.Fatalf("got %s, want %s", got, want)
	}
}
