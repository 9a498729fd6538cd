package atrest

import (
	"context"
	"errors"
	"time"

	"github.com/c5c3/orderhub/internal/lockedmap"
	"k8s.io/apimachinery/pkg/types"
)

// Finding is what a cheap check saw in Keystone.
type Finding struct {
	// Gone: the secret cannot work any more (the user deleted or disabled,
	// the credential deleted or expired); Why says which, for the status.
	Gone bool
	Why  string
	// Fingerprint sums what a login would notice that the check can see
	// (ids, password_expires_at, expires_at); Escalate compares it.
	Fingerprint string
}

// Step is one verification a kind asks for (Memory.Verify); Due, Changed,
// Subject, UID and LoginPeriod are Input's.
type Step struct {
	Key          string
	Due, Changed bool
	Subject      string
	UID          types.UID
	Now          time.Time
	LoginPeriod  time.Duration
	Check        func(context.Context) (Finding, error)
	Login        func(context.Context) error
}

// Outcome is what a Step did: Did the action taken (Login also when a check
// escalated or failed, CheckErr then says why it failed), Gone a check's
// finding that the secret cannot work, LoginErr the login's error.
type Outcome struct {
	Did                      Action
	Gone, CheckErr, LoginErr error
}

// Memory is the per-order Record of one process, keyed by the kind's order
// key; the zero value is empty and safe for concurrent use. Verify and
// Confirm fill it. It is lost with the process: after a restart every
// converged order logs in once.
type Memory struct {
	m lockedmap.Map[string, Record]
}

// Verify runs the recipe: Decide; a Check whose Gone finding is reported as
// is and whose changed fingerprint or error leads to a Login in the same
// pass; a Login whose acceptance confirms s.Subject. A failure marks the
// record Failed, so the next due pass logs in again.
func (m *Memory) Verify(ctx context.Context, s Step) Outcome {
	rec, ok := m.get(s.Key)
	act := Decide(Input{Due: s.Due, Changed: s.Changed, Known: ok, Record: rec, Subject: s.Subject, UID: s.UID,
		Now: s.Now, LoginPeriod: s.LoginPeriod})
	out := Outcome{Did: act}
	fingerprint := ""
	if act == Check {
		f, err := s.Check(ctx)
		switch {
		case err != nil:
			out.CheckErr = err
		case f.Gone:
			rec.Failed, rec.CheckAt = true, s.Now
			m.set(s.Key, rec)
			out.Gone = errors.New(f.Why)
			return out
		case !Escalate(rec, f.Fingerprint):
			rec.Fingerprint, rec.CheckAt = f.Fingerprint, s.Now
			m.set(s.Key, rec)
			return out
		}
		fingerprint = f.Fingerprint
	}
	if act == Nothing {
		return out
	}
	out.Did = Login
	if out.LoginErr = s.Login(ctx); out.LoginErr != nil {
		rec.Failed = true
		m.set(s.Key, rec)
		return out
	}
	m.set(s.Key, Record{Subject: s.Subject, UID: s.UID, Fingerprint: fingerprint, LoginAt: s.Now, CheckAt: s.Now})
	return out
}

// Confirm records that Keystone accepted subject for the order uid at now
// outside Verify, on the kind's delivery path (a token request with the
// secret, or Keystone issuing it as specified): the record of key becomes a
// confirmed login (LoginAt now, no fingerprint, not Failed), so the next
// due Verify of the same subject and uid is a cheap Check until the spread
// login (Decide). It sends nothing to Keystone. The caller MUST pass the key
// and subject its Verify step uses.
func (m *Memory) Confirm(key, subject string, uid types.UID, now time.Time) {
	m.set(key, Record{Subject: subject, UID: uid, LoginAt: now, CheckAt: now})
}

// Forget drops the record of key (the order is gone or starts over).
func (m *Memory) Forget(key string) { m.m.Delete(key) }

func (m *Memory) get(key string) (Record, bool) { return m.m.Get(key, nil) }

func (m *Memory) set(key string, r Record) { m.m.Put(key, r) }
