package applicationcredential

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
	"github.com/c5c3/orderhub/korc"
)

func refs(mut func(*References)) References {
	r := References{
		Namespace: "tenant-a",
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{
			ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: "openstack"},
			UserRef:         c5c3v1alpha1.OrderRef{Name: "workflow"},
			ProjectRef:      c5c3v1alpha1.OrderRef{Name: "workflow-project"},
		},
		User: &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Name: "workflow", Namespace: "tenant-a"},
			Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: "openstack"}},
			Status: c5c3v1alpha1.KeystoneUserStatus{PasswordGeneration: 2, Conditions: []metav1.Condition{
				{Type: c5c3v1alpha1.ConditionUserReady, Status: metav1.ConditionTrue, Reason: c5c3v1alpha1.ReasonUserProvisioned}}}},
		PasswordReady: true,
		UserID:        "u-1",
		Project: &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Name: "workflow-project", Namespace: "tenant-a"},
			Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: "openstack"}},
			Status: c5c3v1alpha1.KeystoneProjectStatus{ProjectName: "workflow-project", Conditions: []metav1.Condition{
				{Type: c5c3v1alpha1.ConditionProjectReady, Status: metav1.ConditionTrue, Reason: c5c3v1alpha1.ReasonProjectProvisioned}}}},
		ProjectID:    "p-1",
		RoleAssigned: true,
	}
	if mut != nil {
		mut(&r)
	}
	return r
}

func TestRefusalOf(t *testing.T) {
	t.Parallel()
	notReady := []metav1.Condition{{Type: c5c3v1alpha1.ConditionUserReady, Status: metav1.ConditionFalse, Reason: c5c3v1alpha1.ReasonWaitingForKeystoneUser}}
	tests := []struct {
		name      string
		r         References
		want      string
		wantInMsg string
	}{
		{"all present", refs(nil), "", ""},
		{"user missing", refs(func(r *References) { r.User = nil }), c5c3v1alpha1.ReasonUserNotFound, "KeystoneUser workflow"},
		{"project missing", refs(func(r *References) { r.Project = nil }), c5c3v1alpha1.ReasonProjectNotFound, "KeystoneProject workflow-project"},
		{"both missing: user first", refs(func(r *References) { r.User, r.Project = nil, nil }), c5c3v1alpha1.ReasonUserNotFound, ""},
		{"project missing beats a user not ready (table order)", refs(func(r *References) {
			r.User.Status.Conditions, r.Project = notReady, nil
		}), c5c3v1alpha1.ReasonProjectNotFound, ""},
		{"user of another plane", refs(func(r *References) { r.User.Spec.ControlPlaneRef.Namespace = "other" }), c5c3v1alpha1.ReasonControlPlaneMismatch, "KeystoneUser workflow"},
		{"project of another plane", refs(func(r *References) { r.Project.Spec.ControlPlaneRef.Name = "cp2" }), c5c3v1alpha1.ReasonControlPlaneMismatch, "KeystoneProject"},
		{"mismatch beats a wait", refs(func(r *References) {
			r.User.Status.Conditions = notReady
			r.Project.Spec.ControlPlaneRef.Name = "cp2"
		}), c5c3v1alpha1.ReasonControlPlaneMismatch, "KeystoneProject"},
		{"user not provisioned names its reason", refs(func(r *References) { r.User.Status.Conditions = notReady }), c5c3v1alpha1.ReasonWaitingForUser, "WaitingForKeystoneUser"},
		{"password not available", refs(func(r *References) { r.PasswordReady = false }), c5c3v1alpha1.ReasonWaitingForUser, "generation 2"},
		{"no Keystone id on the user's K-ORC User", refs(func(r *References) { r.UserID = "" }), c5c3v1alpha1.ReasonWaitingForUser, "K-ORC User reports no id"},
		{"no Keystone id on the project's K-ORC Project", refs(func(r *References) { r.ProjectID = "" }), c5c3v1alpha1.ReasonWaitingForProject, "K-ORC Project reports no id"},
		{"project without a name", refs(func(r *References) { r.Project.Status.ProjectName = "" }), c5c3v1alpha1.ReasonWaitingForProject, "status.projectName"},
		{"no role", refs(func(r *References) { r.RoleAssigned = false }), c5c3v1alpha1.ReasonNoRoleOnProject, "create one"},
		{"role gate after the project", refs(func(r *References) { r.RoleAssigned, r.Project = false, nil }), c5c3v1alpha1.ReasonProjectNotFound, ""},
		{"CA bundle missing", refs(func(r *References) { r.CABundleMissing = true }), c5c3v1alpha1.ReasonWaitingForCABundle, "caBundleSecretRef"},
		{"role before CA bundle", refs(func(r *References) { r.CABundleMissing, r.RoleAssigned = true, false }), c5c3v1alpha1.ReasonNoRoleOnProject, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			g := RefusalOf(tc.r)
			if g.Reason != tc.want || !strings.Contains(g.Message, tc.wantInMsg) {
				t.Errorf("RefusalOf = %q (%s), want %q containing %q", g.Reason, g.Message, tc.want, tc.wantInMsg)
			}
		})
	}
}

func TestCredentialCondition(t *testing.T) {
	t.Parallel()
	gate := conditions.Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAssigned, Message: "not assigned"}
	refusal := conditions.Gate{Reason: c5c3v1alpha1.ReasonUserNotFound, Message: "no user"}
	live := Observation{Current: 1, Credentials: []Credential{cred(1, korc.PhaseAvailable)}, Delivered: true}
	with := func(mut func(*Observation)) Observation {
		o := live
		o.Credentials = append([]Credential(nil), live.Credentials...)
		mut(&o)
		return o
	}
	failed := Credential{Generation: 2, State: korc.State{Phase: korc.PhaseFailed, Reason: "InvalidConfiguration", Message: "quota"}}
	tests := []struct {
		name       string
		o          Observation
		wantStatus metav1.ConditionStatus
		want       string
		wantInMsg  string
	}{
		{"minted", live, metav1.ConditionTrue, c5c3v1alpha1.ReasonCredentialMinted, "generation 1 exists"},
		{"minted while a successor is created names both", with(func(o *Observation) {
			o.Credentials = append(o.Credentials, cred(2, korc.PhaseProgressing))
		}), metav1.ConditionTrue, c5c3v1alpha1.ReasonCredentialMinted, "generation 1 exists in Keystone and is delivered; its successor, generation 2"},
		{"minted but not delivered yet does not claim delivery", with(func(o *Observation) { o.Delivered = false }),
			metav1.ConditionTrue, c5c3v1alpha1.ReasonCredentialMinted, "generation 1 exists in Keystone and is not delivered yet"},
		{"minted, successor under way, not delivered yet", with(func(o *Observation) {
			o.Delivered = false
			o.Credentials = append(o.Credentials, cred(2, korc.PhaseProgressing))
		}), metav1.ConditionTrue, c5c3v1alpha1.ReasonCredentialMinted, "generation 1 exists in Keystone and is not delivered yet; its successor"},
		{"gate first", with(func(o *Observation) { o.Gate, o.CredentialError = gate, errors.New("boom") }), metav1.ConditionFalse, c5c3v1alpha1.ReasonNamespaceNotAssigned, "not assigned"},
		{"transport retry failure", with(func(o *Observation) { o.TransportRetryError = errors.New("conflict") }), metav1.ConditionFalse, c5c3v1alpha1.ReasonTransportErrorRetryFailed, "conflict"},
		{"credential error before a refusal", with(func(o *Observation) { o.CredentialError, o.Refusal = errors.New("forbidden"), refusal }), metav1.ConditionFalse, c5c3v1alpha1.ReasonCredentialError, "forbidden"},
		{"refusal after the first credential", with(func(o *Observation) { o.Refusal = refusal }), metav1.ConditionFalse, c5c3v1alpha1.ReasonUserNotFound, "no user"},
		{"failed successor", with(func(o *Observation) { o.Credentials = append(o.Credentials, failed) }), metav1.ConditionFalse, c5c3v1alpha1.ReasonCredentialFailed,
			"generation 2: InvalidConfiguration: quota; generation 1 stays delivered; raise spec.credentialGeneration above 2"},
		{"failed delivered generation", with(func(o *Observation) {
			o.Credentials[0].State = korc.State{Phase: korc.PhaseFailed, Reason: "UnrecoverableError"}
		}),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonCredentialFailed, "delivered generation 1"},
		{"nothing yet", Observation{}, metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCredential, "no credential has been created yet"},
		{"first credential held by the budget", Observation{BudgetHeld: "the first credential (generation 1) waits"},
			metav1.ConditionFalse, c5c3v1alpha1.ReasonRotationBudgetExhausted, "no credential exists yet; the first credential"},
		{"first credential progressing", Observation{Credentials: []Credential{{Generation: 1, State: korc.State{Phase: korc.PhaseProgressing, Message: "waiting for user"}}}},
			metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCredential, "generation 1 Available yet: waiting for user"},
		{"first credential failed", Observation{Credentials: []Credential{{Generation: 1, State: korc.State{Phase: korc.PhaseFailed, Reason: "UnrecoverableError", Message: "x"}}}},
			metav1.ConditionFalse, c5c3v1alpha1.ReasonCredentialFailed, "raise spec.credentialGeneration above 1"},
		{"External plane: classified cause replaces the wait", Observation{Classified: conditions.Gate{Reason: c5c3v1alpha1.ReasonAuthenticationFailed, Message: "401"},
			Credentials: []Credential{cred(1, korc.PhaseProgressing)}}, metav1.ConditionFalse, c5c3v1alpha1.ReasonAuthenticationFailed, "401"},
		{"classification does not replace minted", with(func(o *Observation) { o.Classified = conditions.Gate{Reason: c5c3v1alpha1.ReasonAuthenticationFailed} }),
			metav1.ConditionTrue, c5c3v1alpha1.ReasonCredentialMinted, ""},
		{"delivered credential gone", with(func(o *Observation) { o.Credentials = nil }), metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCredential, "gone from Keystone"},
		{"delivered credential expired", with(func(o *Observation) { o.ExpiredNow = true }), metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCredential, "expired"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := CredentialCondition(tc.o, 7)
			if c.Type != c5c3v1alpha1.ConditionCredentialReady || c.ObservedGeneration != 7 {
				t.Errorf("type %q generation %d", c.Type, c.ObservedGeneration)
			}
			if c.Status != tc.wantStatus || c.Reason != tc.want || !strings.Contains(c.Message, tc.wantInMsg) {
				t.Errorf("CredentialReady = %s/%s (%s), want %s/%s containing %q", c.Status, c.Reason, c.Message, tc.wantStatus, tc.want, tc.wantInMsg)
			}
		})
	}
}

func TestDeliveryCondition(t *testing.T) {
	t.Parallel()
	ok := Observation{Current: 2, BackupSynced: true, Delivered: true, SecretName: "workflow-appcred-credentials"}
	with := func(mut func(*Observation)) Observation { o := ok; mut(&o); return o }
	tests := []struct {
		name       string
		o          Observation
		wantStatus metav1.ConditionStatus
		want       string
		wantInMsg  string
	}{
		{"delivered", ok, metav1.ConditionTrue, c5c3v1alpha1.ReasonDelivered, "workflow-appcred-credentials carries generation 2"},
		{"delivered, the superseded generation waits for consumers", with(func(o *Observation) {
			o.Previous, o.PreviousWaiting = 1, []string{"Deployment/a", "Deployment/b"}
			o.PreviousDeleteAt = new(time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC))
		}), metav1.ConditionTrue, c5c3v1alpha1.ReasonDelivered,
			"generation 1 stays in Keystone until these consumers are on generation 2, at the latest until 2026-01-01T12:00:00Z: Deployment/a, Deployment/b"},
		{"frozen", with(func(o *Observation) {
			o.Gate = conditions.Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAssigned, Message: "frozen"}
		}),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonNamespaceNotAssigned, "frozen"},
		{"refusal does not touch delivery", with(func(o *Observation) { o.Refusal = conditions.Gate{Reason: c5c3v1alpha1.ReasonNoRoleOnProject} }),
			metav1.ConditionTrue, c5c3v1alpha1.ReasonDelivered, ""},
		{"error first", with(func(o *Observation) { o.DeliveryError, o.ForeignSecret = errors.New("apply failed"), true }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonDeliveryError, "apply failed"},
		{"foreign Secret", with(func(o *Observation) { o.ForeignSecret, o.Delivered = true, false }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonDeliveryRefused, "rename the order or remove the Secret"},
		{"foreign Secret before any credential", Observation{ForeignSecret: true, SecretName: "s"},
			metav1.ConditionFalse, c5c3v1alpha1.ReasonDeliveryRefused, "Secret s"},
		{"not published", with(func(o *Observation) { o.KeystoneNotPublished = true }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonKeystoneNotPublished, "publicEndpoint"},
		{"no credential yet", Observation{BackupSynced: true}, metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCredential, "no credential exists yet"},
		{"backup not synced", with(func(o *Observation) { o.BackupSynced, o.Delivered = false, false }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonBackupNotSynced, "generation 2"},
		{"lost secret-v<N> is named, not BackupNotSynced", with(func(o *Observation) {
			o.BackupSynced, o.Delivered, o.LostSecret, o.Previous = false, false, "openstack/x-secret-v2", 1
		}), metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCredential,
			"Secret openstack/x-secret-v2 holding the secret of generation 2 is gone from the cluster; Keystone cannot hand it back, so a new generation replaces it once the grace period of generation 1 is over"},
		{"backup synced, Secret not written yet", with(func(o *Observation) { o.Delivered = false }),
			metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCredential, "does not carry generation 2 yet"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := DeliveryCondition(tc.o, 3)
			if c.Type != c5c3v1alpha1.ConditionDeliveryReady || c.ObservedGeneration != 3 {
				t.Errorf("type %q generation %d", c.Type, c.ObservedGeneration)
			}
			if c.Status != tc.wantStatus || c.Reason != tc.want || !strings.Contains(c.Message, tc.wantInMsg) {
				t.Errorf("DeliveryReady = %s/%s (%s), want %s/%s containing %q", c.Status, c.Reason, c.Message, tc.wantStatus, tc.want, tc.wantInMsg)
			}
		})
	}
}

func TestConditions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		o         Observation
		want      [3]string
		wantReady metav1.ConditionStatus
		wantInMsg string
	}{
		{"all ready", Observation{Current: 1, Credentials: []Credential{cred(1, korc.PhaseAvailable)}, BackupSynced: true, Delivered: true},
			[3]string{c5c3v1alpha1.ReasonCredentialMinted, c5c3v1alpha1.ReasonDelivered, c5c3v1alpha1.ReasonAllReady}, metav1.ConditionTrue, ""},
		{"frozen: both read the gate", Observation{Gate: conditions.Gate{Reason: c5c3v1alpha1.ReasonNamespaceNotAssigned}, Current: 1, Delivered: true},
			[3]string{c5c3v1alpha1.ReasonNamespaceNotAssigned, c5c3v1alpha1.ReasonNamespaceNotAssigned, c5c3v1alpha1.ReasonNotAllReady}, metav1.ConditionFalse,
			"CredentialReady=False (NamespaceNotAssigned), DeliveryReady=False (NamespaceNotAssigned)"},
		{"delivery only", Observation{Current: 1, Credentials: []Credential{cred(1, korc.PhaseAvailable)}},
			[3]string{c5c3v1alpha1.ReasonCredentialMinted, c5c3v1alpha1.ReasonBackupNotSynced, c5c3v1alpha1.ReasonNotAllReady}, metav1.ConditionFalse,
			"DeliveryReady=False (BackupNotSynced)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cs := Conditions(tc.o, 1)
			if len(cs) != 3 {
				t.Fatalf("%d conditions, want 3", len(cs))
			}
			types := [3]string{c5c3v1alpha1.ConditionCredentialReady, c5c3v1alpha1.ConditionDeliveryReady, c5c3v1alpha1.ConditionReady}
			for i, c := range cs {
				if c.Type != types[i] || c.Reason != tc.want[i] {
					t.Errorf("condition %d = %s/%s, want %s/%s", i, c.Type, c.Reason, types[i], tc.want[i])
				}
			}
			if cs[2].Status != tc.wantReady || cs[2].Message != tc.wantInMsg && tc.wantInMsg != "" {
				t.Errorf("Ready = %s (%s), want %s (%s)", cs[2].Status, cs[2].Message, tc.wantReady, tc.wantInMsg)
			}
		})
	}
}
