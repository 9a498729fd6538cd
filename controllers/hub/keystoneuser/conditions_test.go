package keystoneuser

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/korc"
)

// ready is the observation of a converged order; each case breaks one thing.
func ready() Observation {
	return Observation{Plane: "openstack/cp", UserExists: true, User: korc.State{Phase: korc.PhaseAvailable, ID: "u1"},
		Desired: 1, Applied: 1, Deliverable: 1, Pushed: true, Delivered: true}
}

func TestConditions(t *testing.T) {
	t.Parallel()
	with := func(f func(*Observation)) Observation { o := ready(); f(&o); return o }
	gate := conditions.Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAssigned, Message: "frozen"}
	tests := []struct {
		name                   string
		o                      Observation
		wantUser, wantDelivery string
		wantInUserMsg          string
	}{
		{"converged", ready(), c5c3v1alpha1.ReasonUserProvisioned, c5c3v1alpha1.ReasonDelivered, "generation 1"},
		// Breaker H2: a claim held by another order is a collision naming it.
		{"name claimed by another order", Observation{ClaimHolder: "KeystoneUser tenant-b/twin (management cluster)"},
			c5c3v1alpha1.ReasonUserCollision, c5c3v1alpha1.ReasonWaitingForPassword, "KeystoneUser tenant-b/twin (management cluster)"},
		{"name claimed by another order, sharing a user from before claims", Observation{ClaimHolder: "KeystoneUser tenant-b/twin (management cluster)", UserExists: true},
			c5c3v1alpha1.ReasonUserCollision, c5c3v1alpha1.ReasonWaitingForPassword, "do NOT delete"},
		// Breaker H4: the store withholds the first generation, or keeps the applied one.
		{"store withholds the first generation", Observation{StoreHeld: true, StoreNotReady: true, StoreMessage: "bao down",
			Probe: korc.ProbeResult{Outcome: korc.ProbeAbsent}},
			c5c3v1alpha1.ReasonSecretStoreNotReady, c5c3v1alpha1.ReasonWaitingForPassword, "bao down"},
		{"budget withholds the first password", Observation{BudgetHeld: "the first password (generation 1) waits",
			Probe: korc.ProbeResult{Outcome: korc.ProbeAbsent}},
			c5c3v1alpha1.ReasonRotationBudgetExhausted, c5c3v1alpha1.ReasonWaitingForPassword, "no Keystone user is created yet; the first password"},
		{"store keeps the applied generation", with(func(o *Observation) {
			o.StoreHeld, o.StoreNotReady, o.StoreMessage, o.Pushed, o.Delivered = true, true, "bao down", false, false
		}), c5c3v1alpha1.ReasonSecretStoreNotReady, c5c3v1alpha1.ReasonBackupNotSynced, "generation 1 stays"},
		// Breaker M2: Keystone rejects the password already delivered.
		{"delivered password rejected", with(func(o *Observation) { o.Rejected, o.Stale = errors.New("401"), true }),
			c5c3v1alpha1.ReasonUserFailed, c5c3v1alpha1.ReasonWaitingForPassword, "raise spec.passwordGeneration or re-create the order"},
		{"frozen", Observation{Gate: gate}, c5c3v1alpha1.ReasonNamespaceNotAssigned, c5c3v1alpha1.ReasonNamespaceNotAssigned, "frozen"},
		{"admin identity", Observation{Admin: true, Plane: "openstack/cp"}, c5c3v1alpha1.ReasonUserCollision, c5c3v1alpha1.ReasonWaitingForPassword, "re-create it"},
		{"admin identity edited onto an owned user", Observation{Admin: true, AdminOwned: true, UserExists: true, Plane: "openstack/cp"},
			c5c3v1alpha1.ReasonUserCollision, c5c3v1alpha1.ReasonWaitingForPassword, "do NOT delete"},
		{"kubernetes error", with(func(o *Observation) { o.Error = errors.New("boom") }), c5c3v1alpha1.ReasonUserError, c5c3v1alpha1.ReasonWaitingForPassword, "boom"},
		{"project missing", Observation{Project: conditions.Gate{Reason: c5c3v1alpha1.ReasonProjectNotFound, Message: "no project"}},
			c5c3v1alpha1.ReasonProjectNotFound, c5c3v1alpha1.ReasonWaitingForPassword, "no project"},
		{"project waiting", Observation{Project: conditions.Gate{Reason: c5c3v1alpha1.ReasonWaitingForProject, Message: "wait"}},
			c5c3v1alpha1.ReasonWaitingForProject, c5c3v1alpha1.ReasonWaitingForPassword, "wait"},
		{"probe pending", Observation{Probe: korc.ProbeResult{Outcome: korc.ProbePending, Message: "auth"}},
			c5c3v1alpha1.ReasonProbingForCollision, c5c3v1alpha1.ReasonWaitingForPassword, "auth"},
		{"probe pending against an External plane classifies", Observation{External: true,
			Probe: korc.ProbeResult{Outcome: korc.ProbePending, Message: "dial tcp: connection refused"}},
			c5c3v1alpha1.ReasonEndpointUnreachable, c5c3v1alpha1.ReasonWaitingForPassword, "collision probe"},
		{"probe found a foreign user", Observation{Probe: korc.ProbeResult{Outcome: korc.ProbeFound, ID: "f1"}},
			c5c3v1alpha1.ReasonUserCollision, c5c3v1alpha1.ReasonWaitingForPassword, "f1"},
		{"probe error", Observation{Probe: korc.ProbeResult{Outcome: korc.ProbeError, Reason: "InvalidConfiguration", Message: "two"}},
			c5c3v1alpha1.ReasonUserFailed, c5c3v1alpha1.ReasonWaitingForPassword, "two"},
		{"probe absent, user not applied yet", Observation{Probe: korc.ProbeResult{Outcome: korc.ProbeAbsent}},
			c5c3v1alpha1.ReasonWaitingForKeystoneUser, c5c3v1alpha1.ReasonWaitingForPassword, "not created"},
		// The plane's import of its admin domain, given up by K-ORC while the
		// probe decides: the probe would wait on it for good.
		{"admin domain import failed before the user exists", Observation{
			Probe:  korc.ProbeResult{Outcome: korc.ProbePending, Message: "Waiting for Domain/cp-admin-domain"},
			Domain: &korc.State{Phase: korc.PhaseFailed, Reason: "InvalidConfiguration", Message: "connection refused"}},
			c5c3v1alpha1.ReasonUserFailed, c5c3v1alpha1.ReasonWaitingForPassword, "the import of the user's domain: InvalidConfiguration: connection refused"},
		{"probe waiting on the domain import names it", Observation{
			Probe:  korc.ProbeResult{Outcome: korc.ProbePending, Message: "Waiting for Domain/cp-admin-domain"},
			Domain: &korc.State{Phase: korc.PhaseProgressing, Message: "dial tcp: i/o timeout"}},
			c5c3v1alpha1.ReasonProbingForCollision, c5c3v1alpha1.ReasonWaitingForPassword, "waiting for the import of the user's domain, which must exist in Keystone (dial tcp: i/o timeout)"},
		{"domain import failed", with(func(o *Observation) {
			o.Domain = &korc.State{Phase: korc.PhaseFailed, Reason: "InvalidConfiguration", Message: "bad"}
		}), c5c3v1alpha1.ReasonUserFailed, c5c3v1alpha1.ReasonDelivered, "domain"},
		{"user failed", with(func(o *Observation) { o.User = korc.State{Phase: korc.PhaseFailed, Message: "nope"} }),
			c5c3v1alpha1.ReasonUserFailed, c5c3v1alpha1.ReasonWaitingForPassword, "nope"},
		{"user progressing", with(func(o *Observation) { o.User = korc.State{Phase: korc.PhaseProgressing, Message: "creating"} }),
			c5c3v1alpha1.ReasonWaitingForKeystoneUser, c5c3v1alpha1.ReasonWaitingForPassword, "creating"},
		{"user stuck against an External plane", with(func(o *Observation) {
			o.External = true
			o.User = korc.State{Phase: korc.PhaseProgressing, Reason: "TransientError", Message: "x509: certificate signed by unknown authority"}
		}), c5c3v1alpha1.ReasonTLSVerificationFailed, c5c3v1alpha1.ReasonWaitingForPassword, "x509"},
		{"password not applied", with(func(o *Observation) { o.Desired = 2 }),
			c5c3v1alpha1.ReasonWaitingForKeystoneUser, c5c3v1alpha1.ReasonWaitingForPassword, "generation 2"},
		{"password rejected", with(func(o *Observation) { o.Rejected = errors.New("401") }),
			c5c3v1alpha1.ReasonWaitingForKeystoneUser, c5c3v1alpha1.ReasonWaitingForPassword, "does not accept"},
		{"store not ready", with(func(o *Observation) {
			o.StoreNotReady, o.StoreMessage, o.Pushed, o.Delivered = true, "sealed", false, false
		}),
			c5c3v1alpha1.ReasonSecretStoreNotReady, c5c3v1alpha1.ReasonBackupNotSynced, "sealed"},
		{"push pending", with(func(o *Observation) { o.Pushed, o.Delivered, o.PushMessage = false, false, "pending" }),
			c5c3v1alpha1.ReasonUserProvisioned, c5c3v1alpha1.ReasonBackupNotSynced, ""},
		{"refused", with(func(o *Observation) { o.Delivered, o.Refused = false, errors.New("not owned") }),
			c5c3v1alpha1.ReasonUserProvisioned, c5c3v1alpha1.ReasonDeliveryRefused, ""},
		{"delivery error", with(func(o *Observation) { o.Delivered, o.DeliveryError = false, errors.New("conflict") }),
			c5c3v1alpha1.ReasonUserProvisioned, c5c3v1alpha1.ReasonDeliveryError, ""},
		{"not published", with(func(o *Observation) {
			o.Delivered, o.Pushed = false, false
			o.NotPublished = conditions.Gate{Reason: c5c3v1alpha1.ReasonKeystoneNotPublished, Message: "publish"}
		}), c5c3v1alpha1.ReasonUserProvisioned, c5c3v1alpha1.ReasonKeystoneNotPublished, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			u, d := UserCondition(tc.o, 7), DeliveryCondition(tc.o, 7)
			if u.Reason != tc.wantUser || !strings.Contains(u.Message, tc.wantInUserMsg) || u.ObservedGeneration != 7 ||
				u.Type != c5c3v1alpha1.ConditionUserReady {
				t.Errorf("UserReady = %s (%s), want %s containing %q", u.Reason, u.Message, tc.wantUser, tc.wantInUserMsg)
			}
			if d.Reason != tc.wantDelivery || d.Type != c5c3v1alpha1.ConditionDeliveryReady {
				t.Errorf("DeliveryReady = %s (%s), want %s", d.Reason, d.Message, tc.wantDelivery)
			}
			if (u.Status == metav1.ConditionTrue) != (u.Reason == c5c3v1alpha1.ReasonUserProvisioned) ||
				(d.Status == metav1.ConditionTrue) != (d.Reason == c5c3v1alpha1.ReasonDelivered) {
				t.Errorf("status/reason mismatch: %+v / %+v", u, d)
			}
			all := Conditions(u, d, 7)
			wantReady := c5c3v1alpha1.ReasonNotAllReady
			if u.Status == metav1.ConditionTrue && d.Status == metav1.ConditionTrue {
				wantReady = c5c3v1alpha1.ReasonAllReady
			}
			if len(all) != 3 || all[2].Type != c5c3v1alpha1.ConditionReady || all[2].Reason != wantReady {
				t.Errorf("Conditions = %+v, want Ready %s", all, wantReady)
			}
		})
	}
}

func TestHeldCondition(t *testing.T) {
	t.Parallel()
	c := HeldCondition(orders.Held{"ac-1", "ac-2"}, "workflow", 3)
	if c.Type != c5c3v1alpha1.ConditionUserReady || c.Status != metav1.ConditionFalse ||
		c.Reason != c5c3v1alpha1.ReasonReferencedByApplicationCredentials || c.ObservedGeneration != 3 ||
		!strings.Contains(c.Message, "ac-1, ac-2") {
		t.Errorf("HeldCondition = %+v", c)
	}
}

func TestVerifyDue(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name      string
		unchanged bool
		last      time.Time
		interval  time.Duration
		want      bool
	}{
		{"new bytes are always verified (H1)", false, now, time.Hour, true},
		{"unchanged, never verified by this process", true, time.Time{}, time.Hour, true},
		{"unchanged, verified recently", true, now.Add(-time.Minute), time.Hour, false},
		{"unchanged, the interval passed (M2)", true, now.Add(-time.Hour), time.Hour, true},
		{"interval 0 verifies every pass", true, now, 0, true},
	}
	for _, tc := range tests {
		if got := VerifyDue(tc.unchanged, tc.last, now, tc.interval); got != tc.want {
			t.Errorf("%s: VerifyDue = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestFinishFrozenRotation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		applied, status int64
		exists, want    bool
	}{
		{"applied newer than delivered, Secret there (H5)", 2, 1, true, true},
		{"applied is the delivered one", 2, 2, true, false},
		{"applied Secret lost: nothing while frozen", 2, 1, false, false},
		{"nothing applied", 0, 0, true, false},
		{"first generation applied, never delivered: waits for consent", 1, 0, true, false},
	}
	for _, tc := range tests {
		if got := FinishFrozenRotation(tc.applied, tc.status, tc.exists); got != tc.want {
			t.Errorf("%s: FinishFrozenRotation = %v, want %v", tc.name, got, tc.want)
		}
	}
}
