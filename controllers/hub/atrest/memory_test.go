package atrest

import (
	"context"
	"errors"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/orderhub/internal/spread"
)

// script is a Step's Check and Login answering from fields and counting calls.
type script struct {
	finding          Finding
	checkErr, logErr error
	checks, logins   int
}

func (s *script) step(now time.Time) Step {
	return Step{Key: "k", Due: true, Subject: "u1/1", UID: "uid", Now: now, LoginPeriod: 24 * time.Hour,
		Check: func(context.Context) (Finding, error) { s.checks++; return s.finding, s.checkErr },
		Login: func(context.Context) error { s.logins++; return s.logErr }}
}

func TestMemoryVerify(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	var m Memory
	s := &script{finding: Finding{Fingerprint: "u1|"}}
	if o := m.Verify(ctx, s.step(now)); o.Did != Login || s.logins != 1 || s.checks != 0 {
		t.Fatalf("first pass: %+v, %d logins, %d checks; want one login", o, s.logins, s.checks)
	}
	for i := 1; i <= 5; i++ { // at rest: cheap checks only
		if o := m.Verify(ctx, s.step(now.Add(time.Duration(i)*10*time.Minute))); o.Did != Check {
			t.Fatalf("resync %d: did %v, want a check", i, o.Did)
		}
	}
	if s.logins != 1 || s.checks != 5 {
		t.Fatalf("at rest: %d logins, %d checks; want 1 and 5", s.logins, s.checks)
	}
	s.finding.Fingerprint = "u1|2026-03-01T00:00:00Z" // password changed: the check escalates
	if o := m.Verify(ctx, s.step(now.Add(time.Hour))); o.Did != Login || s.logins != 2 {
		t.Fatalf("changed fingerprint: %+v, %d logins; want a login", o, s.logins)
	}
	s.finding = Finding{Gone: true, Why: "deleted"}
	if o := m.Verify(ctx, s.step(now.Add(2*time.Hour))); o.Gone == nil || o.Did != Check || s.logins != 2 {
		t.Fatalf("gone: %+v; want the finding, no login", o)
	}
	s.logErr = errors.New("HTTP 401")
	if o := m.Verify(ctx, s.step(now.Add(3*time.Hour))); o.Did != Login || o.LoginErr == nil {
		t.Fatalf("after gone: %+v; want a failing login", o)
	}
	s.logErr, s.checkErr = nil, errors.New("admin refused")
	m.Verify(ctx, s.step(now.Add(4*time.Hour))) // confirmed again
	if o := m.Verify(ctx, s.step(now.Add(5*time.Hour))); o.Did != Login || o.CheckErr == nil {
		t.Fatalf("check failing: %+v; want a login in its place", o)
	}
	m.Forget("k")
	if o := m.Verify(ctx, s.step(now.Add(6*time.Hour))); o.Did != Login {
		t.Fatalf("forgotten: %+v; want a login", o)
	}
}

// TestMemoryConfirm: a subject confirmed on the delivery path makes the
// next due pass of the same subject and order a cheap check, anything else
// a login; Confirm asks Keystone nothing and clears an earlier failure.
func TestMemoryConfirm(t *testing.T) {
	ctx := context.Background()
	at := time.Date(2026, 1, 2, 3, 0, 0, 0, time.UTC)
	next := at.Add(10 * time.Minute)
	for _, tc := range []struct {
		name    string
		before  func(m *Memory, s *script) // the record before Confirm
		subject string                     // the subject Confirm names
		uid     types.UID
		step    func(*Step)
		want    Action
	}{
		{"fresh delivery: the first pass at rest checks", nil, "u1/1", "uid", nil, Check},
		{"confirmed after a failed login", func(m *Memory, s *script) {
			s.logErr = errors.New("HTTP 401")
			m.Verify(ctx, s.step(at.Add(-time.Hour)))
			s.logErr = nil
		}, "u1/1", "uid", nil, Check},
		{"another subject confirmed", nil, "u1/2", "uid", nil, Login},
		{"another order confirmed (UID)", nil, "u1/1", "other", nil, Login},
		{"the kind sees a change", nil, "u1/1", "uid", func(s *Step) { s.Changed = true }, Login},
		{"the spread login is due", nil, "u1/1", "uid", func(s *Step) { s.Now = spread.Due(at, s.LoginPeriod, s.UID) }, Login},
		{"resync gate closed", nil, "u1/1", "uid", func(s *Step) { s.Due = false }, Nothing},
	} {
		var m Memory
		s := &script{finding: Finding{Fingerprint: "u1|"}}
		if tc.before != nil {
			tc.before(&m, s)
		}
		checks, logins := s.checks, s.logins
		m.Confirm("k", tc.subject, tc.uid, at)
		if s.checks != checks || s.logins != logins {
			t.Fatalf("%s: Confirm called the check or login", tc.name)
		}
		st := s.step(next)
		if tc.step != nil {
			tc.step(&st)
		}
		if o := m.Verify(ctx, st); o.Did != tc.want {
			t.Errorf("%s: did %v, want %v", tc.name, o.Did, tc.want)
		}
	}
}
