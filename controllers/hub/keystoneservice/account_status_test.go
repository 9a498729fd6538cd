package keystoneservice

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/apply"
	"github.com/c5c3/orderhub/korc"
)

func TestAccountCondition(t *testing.T) {
	t.Parallel()
	avail := korc.State{Phase: korc.PhaseAvailable, ID: "id"}
	found := korc.ProbeResult{Outcome: korc.ProbeFound, ID: "u1"}
	absent := korc.ProbeResult{Outcome: korc.ProbeAbsent}
	// done is an observation of a provisioned account; each case breaks one
	// thing.
	done := func(mut func(*AccountObservation)) AccountObservation {
		o := AccountObservation{Plane: "openstack/cp", UserExists: true, ProjectExists: true,
			Children: []Child{{What: "the project p", State: avail}, {What: "the user u", State: avail}},
			Desired:  2, Applied: 2, Deliverable: 2, StoreReady: true, Pushed: true, Delivered: true}
		if mut != nil {
			mut(&o)
		}
		return o
	}
	tests := []struct {
		name    string
		o       AccountObservation
		status  metav1.ConditionStatus
		reason  string
		message string // a substring the message must hold
	}{
		{"provisioned", done(nil), metav1.ConditionTrue, c5c3v1alpha1.ReasonAccountProvisioned, "generation 2"},
		{"gate", done(func(o *AccountObservation) {
			o.Gate = Gate{Reason: c5c3v1alpha1.ReasonWaitingForAdminCredential, Message: "w"}
		}),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForAdminCredential, "w"},
		{"admin identity, not owned", done(func(o *AccountObservation) { o.Admin = AdminNotOwned }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceAccountCollision, "re-create it with a userName of its own"},
		{"admin identity, owned", done(func(o *AccountObservation) { o.Admin = AdminOwned }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceAccountCollision, "do NOT delete this KeystoneService"},
		{"kubernetes error", done(func(o *AccountObservation) { o.Error = errors.New("apply failed") }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceAccountError, "apply failed"},
		{"project probe pending", done(func(o *AccountObservation) { o.ProjectCreate, o.ProjectExists = true, false }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonProbingForCollision, "project collision probe"},
		{"project collides", done(func(o *AccountObservation) { o.ProjectCreate, o.ProjectExists, o.ProjectProbe = true, false, found }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceAccountCollision, "create: false"},
		{"project absent goes on", done(func(o *AccountObservation) { o.ProjectCreate, o.ProjectExists, o.ProjectProbe = true, false, absent }),
			metav1.ConditionTrue, c5c3v1alpha1.ReasonAccountProvisioned, ""},
		{"referenced project never probes", done(func(o *AccountObservation) { o.ProjectCreate, o.ProjectExists = false, false }),
			metav1.ConditionTrue, c5c3v1alpha1.ReasonAccountProvisioned, ""},
		{"name claimed by another order", done(func(o *AccountObservation) {
			o.UserExists, o.UserProbe, o.ClaimHolder = false, absent, "KeystoneUser tenant-b/u (management cluster)"
		}), metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceAccountCollision, "KeystoneUser tenant-b/u (management cluster), holds this user name"},
		{"name claimed, own User from before claims", done(func(o *AccountObservation) { o.ClaimHolder = "KeystoneService a/b (management cluster)" }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceAccountCollision, "do NOT delete this KeystoneService"},
		{"project name claimed by another order", done(func(o *AccountObservation) {
			o.ProjectCreate, o.ProjectExists, o.ProjectProbe = true, false, absent
			o.ProjectClaimHolder = "KeystoneProject tenant-b/p (management cluster)"
		}), metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceAccountCollision, "KeystoneProject tenant-b/p (management cluster), holds this project name"},
		{"project name claimed, own Project from before claims", done(func(o *AccountObservation) {
			o.ProjectCreate, o.ProjectClaimHolder = true, "KeystoneProject tenant-b/p (management cluster)"
		}), metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceAccountCollision, "its teardown would delete the holder's project"},
		{"consumer Secret of another owner", done(func(o *AccountObservation) {
			o.Delivered, o.Refused = false, &apply.NotOwnedError{Namespace: "team", Name: "svc-credentials", Reason: "it has no controller owner reference"}
		}), metav1.ConditionFalse, c5c3v1alpha1.ReasonDeliveryRefused, "secret team/svc-credentials exists and is not ours"},
		{"user collides", done(func(o *AccountObservation) { o.UserExists, o.UserProbe = false, found }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceAccountCollision, "account.adopt: true"},
		{"user owned by another registration", done(func(o *AccountObservation) {
			o.UserExists, o.UserProbe, o.Adopt, o.UserOwnedBy = false, found, true, "KeystoneService team/other"
		}), metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceAccountCollision, "managed by KeystoneService team/other"},
		{"user found with adopt", done(func(o *AccountObservation) { o.UserExists, o.UserProbe, o.Adopt = false, found, true }),
			metav1.ConditionTrue, c5c3v1alpha1.ReasonAccountProvisioned, ""},
		{"user probe terminal", done(func(o *AccountObservation) {
			o.UserExists, o.UserProbe = false, korc.ProbeResult{Outcome: korc.ProbeError, Reason: "InvalidConfiguration", Message: "two match"}
		}), metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceAccountsFailed, "two match"},
		{"child failed", done(func(o *AccountObservation) {
			o.Children[1].State = korc.State{Phase: korc.PhaseFailed, Reason: "InvalidConfiguration", Message: "bad"}
		}), metav1.ConditionFalse, c5c3v1alpha1.ReasonServiceAccountsFailed, "the user u: InvalidConfiguration: bad"},
		{"role import waiting", done(func(o *AccountObservation) {
			o.Children = append(o.Children, Child{What: "the import of role service",
				State: korc.State{Phase: korc.PhaseProgressing, Message: korc.ImportPendingExternalMessage}})
		}), metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForServiceAccounts, "role service"},
		{"external: classified", done(func(o *AccountObservation) {
			o.External = true
			o.Children[0].State = korc.State{Phase: korc.PhaseProgressing, Transient: true, Message: "dial tcp 127.0.0.1:1: connect: connection refused"}
		}), metav1.ConditionFalse, c5c3v1alpha1.ReasonEndpointUnreachable, "connection refused"},
		{"managed: same message waits", done(func(o *AccountObservation) {
			o.Children[0].State = korc.State{Phase: korc.PhaseProgressing, Transient: true, Message: "dial tcp 127.0.0.1:1: connect: connection refused"}
		}), metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForServiceAccounts, "connection refused"},
		{"grant missing", done(func(o *AccountObservation) { o.MissingGrants = []string{"service"} }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForServiceAccounts, "service"},
		{"password not applied", done(func(o *AccountObservation) { o.Desired = 3 }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForServiceAccounts, "generation 3"},
		{"adopted user not yet rewritten", done(func(o *AccountObservation) { o.Deliverable = 0 }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForServiceAccounts, "K-ORC has not applied"},
		{"keystone rejects", done(func(o *AccountObservation) { o.PasswordRejected = errors.New("401") }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForServiceAccounts, "does not accept"},
		{"store not ready", done(func(o *AccountObservation) { o.StoreReady, o.StoreMessage = false, "store down" }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonSecretStoreNotReady, "store down"},
		{"not pushed", done(func(o *AccountObservation) { o.Pushed, o.PushMessage = false, "Errored: denied" }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForServiceAccounts, "OpenBao backup"},
		{"not delivered", done(func(o *AccountObservation) { o.Delivered, o.DeliveryMessage = false, "not synced" }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForServiceAccounts, "consumer Secret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := AccountCondition(tc.o, 4)
			if c.Type != c5c3v1alpha1.ConditionAccountReady || c.Status != tc.status || c.Reason != tc.reason || c.ObservedGeneration != 4 {
				t.Fatalf("AccountCondition = %s/%s (%s), want %s/%s", c.Status, c.Reason, c.Message, tc.status, tc.reason)
			}
			if !strings.Contains(c.Message, tc.message) {
				t.Errorf("message %q does not hold %q", c.Message, tc.message)
			}
		})
	}
}

func TestAdminIdentityOf(t *testing.T) {
	t.Parallel()
	cp := &c5c3v1alpha1.ControlPlane{}
	cp.Name, cp.Namespace = "cp", "openstack"
	for _, tc := range []struct {
		user, domain string
		owns         bool
		want         AdminIdentity
	}{
		{"admin", "", false, AdminNotOwned},
		{"Admin", "", false, AdminNotOwned},
		{"ADMIN", "default", false, AdminNotOwned},
		{"admín", "DEFAULT", true, AdminOwned},
		{"admin", "other", false, NotAdmin},
		{"administrator", "", false, NotAdmin},
	} {
		k := &c5c3v1alpha1.KeystoneService{}
		k.Name = "svc"
		k.Spec.Account = &c5c3v1alpha1.KeystoneServiceAccountSpec{UserName: c5c3v1alpha1.OpenStackName(tc.user),
			DomainName: c5c3v1alpha1.KeystoneName(tc.domain)}
		if got := AdminIdentityOf(k, cp, tc.owns); got != tc.want {
			t.Errorf("AdminIdentityOf(%q in %q, owns %t) = %d, want %d", tc.user, tc.domain, tc.owns, got, tc.want)
		}
	}
}
