package atrest

import (
	"time"

	"k8s.io/apimachinery/pkg/types"

	"github.com/c5c3/orderhub/internal/spread"
)

// DefaultLoginPeriod is how often, at most, a converged order's secret is
// verified with a hashing login when nothing changed: once a day per order,
// spread by its UID (spread.Due).
const DefaultLoginPeriod = 24 * time.Hour

// Action is what one pass does to verify a delivered secret.
type Action int

const (
	// Nothing: the kind's ready-resync gate is closed.
	Nothing Action = iota
	// Check: a cheap admin read (exists, enabled, expiry), no hashing.
	Check
	// Login: a token request with the secret itself (a hashed verification).
	Login
)

func (a Action) String() string {
	return [...]string{"nothing", "check", "login"}[a]
}

// Record is what the process remembers of one order's verifications.
type Record struct {
	// Subject is what the last accepted login (or Memory.Confirm) verified
	// (a credential id, a user id with its password generation), UID the
	// order it was for.
	Subject string
	UID     types.UID
	// Fingerprint is the cheap check's view (Finding.Fingerprint) first
	// seen after that login; "" until a check ran.
	Fingerprint string
	// LoginAt is the last accepted login (zero: none), CheckAt the last check.
	LoginAt, CheckAt time.Time
	// Failed: the last check or login found the secret unusable, or the
	// check could not run; the next due pass logs in.
	Failed bool
}

// Input is one pass's view for Decide.
type Input struct {
	// Due is the kind's ready-resync gate: a converged order whose resync
	// came (applicationcredential.ProbeDue, keystoneuser.VerifyDue).
	Due bool
	// Changed: the kind cannot name what a check reads (the Keystone id is
	// not known yet), so only a login can tell. New bytes or a new generation
	// are a new Subject, not Changed (docs/reference/keystoneuser.md, "What
	// is detected how fast").
	Changed bool
	// Known: a Record exists for the order.
	Known   bool
	Record  Record
	Subject string
	UID     types.UID
	Now     time.Time
	// LoginPeriod spaces hashing logins of an unchanged secret (spread.Due).
	LoginPeriod time.Duration
}

// Decide is the pass's action: Nothing unless Due; Login when Changed or the
// subject is not confirmed in this process by a login or the delivery path
// (Memory.Confirm) (new, changed, re-created order, or the last verification
// failed) or the order's spread login is due (spread.Due(LoginAt,
// LoginPeriod, UID)); else Check.
func Decide(in Input) Action {
	r := in.Record
	switch {
	case !in.Due:
		return Nothing
	case in.Changed, !in.Known, r.Failed, r.LoginAt.IsZero(), r.Subject != in.Subject, r.UID != in.UID:
		return Login
	case !in.Now.Before(spread.Due(r.LoginAt, in.LoginPeriod, in.UID)):
		return Login
	}
	return Check
}

// Escalate reports whether a check's fingerprint calls for a login in the
// same pass: it differs from the one recorded since the last login (a
// password_expires_at set by a password change, another expiry). The first
// check after a login records it.
func Escalate(r Record, fingerprint string) bool {
	return r.Fingerprint != "" && r.Fingerprint != fingerprint
}
