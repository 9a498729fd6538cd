package controlplane

import (
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/conditions"
)

func TestConditions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		o           Observation
		status      metav1.ConditionStatus
		reason      string
		readyReason string
	}{
		{"everything holds", Observation{}, metav1.ConditionTrue, c5c3v1alpha1.ReasonAdminCredentialReady, c5c3v1alpha1.ReasonAllReady},
		{"password Secret missing", Observation{PasswordMissing: "x"}, metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCloudsYaml, c5c3v1alpha1.ReasonNotAllReady},
		{"password wins over every later step", Observation{PasswordMissing: "x", AuthReason: c5c3v1alpha1.ReasonAuthenticationFailed, StoreNotReady: "s"},
			metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCloudsYaml, c5c3v1alpha1.ReasonNotAllReady},
		{"CA bundle missing", Observation{CABundleMissing: "x"}, metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCABundle, c5c3v1alpha1.ReasonNotAllReady},
		{"clouds.yaml write failed", Observation{WriteError: errors.New("boom")}, metav1.ConditionFalse, c5c3v1alpha1.ReasonWaitingForCloudsYaml, c5c3v1alpha1.ReasonNotAllReady},
		{"Keystone answered 401", Observation{AuthReason: c5c3v1alpha1.ReasonAuthenticationFailed, AuthMessage: "401"},
			metav1.ConditionFalse, c5c3v1alpha1.ReasonAuthenticationFailed, c5c3v1alpha1.ReasonNotAllReady},
		{"auth failure wins over the store", Observation{AuthReason: c5c3v1alpha1.ReasonEndpointUnreachable, StoreNotReady: "s"},
			metav1.ConditionFalse, c5c3v1alpha1.ReasonEndpointUnreachable, c5c3v1alpha1.ReasonNotAllReady},
		{"store not ready", Observation{StoreNotReady: "s"}, metav1.ConditionFalse, c5c3v1alpha1.ReasonSecretStoreNotReady, c5c3v1alpha1.ReasonNotAllReady},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := Conditions(AdminCredentialCondition(tc.o, 7), 7)
			if len(got) != 2 {
				t.Fatalf("got %d conditions", len(got))
			}
			a, r := got[0], got[1]
			if a.Type != c5c3v1alpha1.ConditionAdminCredentialReady || a.Status != tc.status || a.Reason != tc.reason || a.ObservedGeneration != 7 {
				t.Errorf("AdminCredentialReady = %s/%s/%s gen %d, want %s/%s", a.Type, a.Status, a.Reason, a.ObservedGeneration, tc.status, tc.reason)
			}
			if r.Type != c5c3v1alpha1.ConditionReady || r.Reason != tc.readyReason || r.Status != tc.status {
				t.Errorf("Ready = %s/%s, want %s/%s", r.Status, r.Reason, tc.status, tc.readyReason)
			}
		})
	}
}

func TestSetConditionsKeepsTransitionTime(t *testing.T) {
	t.Parallel()
	t0, t1 := metav1.NewTime(time.Unix(100, 0)), metav1.NewTime(time.Unix(200, 0))
	var conds []metav1.Condition
	if ch := conditions.Set(&conds, Conditions(AdminCredentialCondition(Observation{}, 1), 1), t0); len(ch) != 2 {
		t.Fatalf("first set: %d changed, want 2", len(ch))
	}
	if ch := conditions.Set(&conds, Conditions(AdminCredentialCondition(Observation{}, 2), 2), t1); len(ch) != 0 {
		t.Fatalf("same conditions again: %d changed, want 0", len(ch))
	}
	if !conds[0].LastTransitionTime.Equal(&t0) || conds[0].ObservedGeneration != 2 {
		t.Errorf("unchanged condition: time %v gen %d, want %v gen 2", conds[0].LastTransitionTime, conds[0].ObservedGeneration, t0)
	}
	ch := conditions.Set(&conds, Conditions(AdminCredentialCondition(Observation{StoreNotReady: "s"}, 2), 2), t1)
	if len(ch) != 2 || !conds[0].LastTransitionTime.Equal(&t1) {
		t.Errorf("flip: %d changed, time %v", len(ch), conds[0].LastTransitionTime)
	}
}
