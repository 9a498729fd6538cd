package keystoneuser

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	logf "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/c5c3/orderhub/controllers/hub/atrest"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// VerifyDue reports whether a pass checks the applied password with
// Keystone before delivering it: always when unchanged is false, else when
// last is zero or interval has passed since (interval <= 0: every pass)
// (docs/reference/keystoneuser.md, "Rotation").
func VerifyDue(unchanged bool, last, now time.Time, interval time.Duration) bool {
	return !unchanged || last.IsZero() || now.Sub(last) >= interval
}

// verifyAtRest verifies the password pw of generation gen before delivery
// with the shared at-rest recipe (atrest.Memory.Verify): a hashing login
// (Verifier) when the bytes or generation are new, the user id unknown,
// after a failure or once per loginPeriod spread by the order's UID; else,
// every verifyInterval (VerifyDue), a cheap admin read of the user
// (docs/reference/keystoneuser.md, "What is detected how fast"). It returns
// what the hashing login would report: the login's refusal, or the check's
// finding that the user is gone or disabled; nil when verified or not due.
func (p *pass) verifyAtRest(ctx context.Context, pw []byte, unchanged bool, gen int64, userName, domain string) error {
	userID := p.st.UserID
	tried := Refusal{Subject: restSubject(userID, gen, pw), Password: sha256.Sum256(pw), At: p.now}
	if last, ok := p.r.refused.Load(verifiedKey(p.o)); ok && last.(Refusal).Holds(tried, p.r.verifyInterval) {
		return last.(Refusal).Err
	}
	out := p.r.rest.Verify(ctx, atrest.Step{Key: verifiedKey(p.o),
		Due:     VerifyDue(unchanged, p.r.lastVerified(p.o), p.now, p.r.verifyInterval),
		Changed: userID == "", Subject: tried.Subject, UID: p.ku.UID,
		Now: p.now, LoginPeriod: p.r.loginPeriod,
		Check: func(ctx context.Context) (atrest.Finding, error) {
			return p.r.checker.User(ctx, p.r.Local, p.cp, p.st.DomainID, userID)
		},
		Login: func(ctx context.Context) error {
			return p.r.verifier.Verify(ctx, controlplane.TokenRequest{AuthURL: controlplane.AuthURL(p.cp), User: userName,
				Password: string(pw), Domain: domain, Region: controlplane.Region(p.cp),
				Interface: controlplane.EndpointType(p.cp), CABundle: p.caBundle(ctx)})
		}})
	if out.CheckErr != nil {
		logf.FromContext(ctx).Info("the cheap check of the Keystone user failed; logged in instead", "error", out.CheckErr.Error())
	}
	if err := cmp.Or(out.Gone, out.LoginErr); err != nil {
		p.r.forgetVerified(p.o)
		tried.Err = err
		p.r.refused.Store(verifiedKey(p.o), tried)
		return err
	}
	p.r.refused.Delete(verifiedKey(p.o))
	if out.Did != atrest.Nothing {
		p.r.markVerified(p.o, p.now)
	}
	return nil
}

// restSubject is what a verification of password pw, generation gen, of the
// Keystone user userID confirms, in the at-rest record:
// "<userID>/<gen>/<16 hex digits of sha256(pw)>". New bytes or a new
// generation make a new subject, which atrest.Decide logs in for; the same
// subject, accepted by an earlier pass whose delivery waited (on the backup,
// on a consumer), is checked cheaply instead of logged in again.
func restSubject(userID string, gen int64, pw []byte) string {
	sum := sha256.Sum256(pw)
	return fmt.Sprintf("%s/%d/%x", userID, gen, sum[:8])
}

// KeepsDelivered reports whether a failed verification err of the password
// leaves it delivered: the password is the delivered one (unchanged) and
// Keystone gave no answer about it (atrest.LoginUnanswered). A refusal, a gone or
// disabled user, or any failure of a password not delivered yet does not
// (docs/reference/keystoneuser.md, "What is detected how fast"). Pure.
func KeepsDelivered(unchanged bool, err error) bool {
	return unchanged && atrest.ClassifyLogin(err) == atrest.LoginUnanswered
}

// Refusal is the last refused verification of an order: the user id and
// generation, a digest of the generation's password, when, and the error.
type Refusal struct {
	Subject  string
	Password [sha256.Size]byte
	At       time.Time
	Err      error
}

// Holds reports whether the pass that would try next repeats r instead of
// asking Keystone again: same subject and password, and less than interval
// since r (docs/reference/keystoneuser.md, "What is detected how fast"). It
// bounds the logins a refused password costs Keystone to one per interval,
// however often the order is woken.
func (r Refusal) Holds(next Refusal, interval time.Duration) bool {
	return r.Subject == next.Subject && r.Password == next.Password && next.At.Sub(r.At) < interval
}

// verifiedKey is the order's key in the reconciler's record of checks.
func verifiedKey(o orders.Order) string { return o.Cluster + "/" + o.Namespace + "/" + o.Name }

// lastVerified is when Keystone last accepted the order's delivered
// password in this process (zero: never).
func (r *Reconciler) lastVerified(o orders.Order) time.Time {
	if v, ok := r.verified.Load(verifiedKey(o)); ok {
		if t, ok := v.(time.Time); ok {
			return t
		}
	}
	return time.Time{}
}

func (r *Reconciler) markVerified(o orders.Order, t time.Time) { r.verified.Store(verifiedKey(o), t) }

func (r *Reconciler) forgetVerified(o orders.Order) { r.verified.Delete(verifiedKey(o)) }

// deliveredIs reports whether the delivered Secret on the order's cluster
// carries pw under its password key (false when the Secret is absent).
// Errors: a read failure other than NotFound.
func (p *pass) deliveredIs(ctx context.Context, pw []byte) (bool, error) {
	var s corev1.Secret
	err := p.oc.Get(ctx, types.NamespacedName{Namespace: p.ku.Namespace, Name: orders.SecretName(p.ku.Name)}, &s)
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return bytes.Equal(s.Data[deliveredKeyPassword], pw), nil
}
