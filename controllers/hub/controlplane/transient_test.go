package controlplane

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestHoldTransient(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	const window = 10 * time.Second
	ready := &metav1.Condition{Type: c5c3v1alpha1.ConditionAdminCredentialReady, Status: metav1.ConditionTrue,
		Reason: c5c3v1alpha1.ReasonAdminCredentialReady, ObservedGeneration: 3}
	failed := func(reason string) metav1.Condition {
		return metav1.Condition{Type: c5c3v1alpha1.ConditionAdminCredentialReady, Status: metav1.ConditionFalse,
			Reason: reason, Message: "m", ObservedGeneration: 3}
	}
	notReady := failed(c5c3v1alpha1.ReasonEndpointUnreachable)
	newGen := failed(c5c3v1alpha1.ReasonEndpointUnreachable)
	newGen.ObservedGeneration = 4
	for _, tc := range []struct {
		name      string
		prev      *metav1.Condition
		want      metav1.Condition
		since     time.Time
		now       time.Time
		held      bool
		wantSince time.Time
	}{
		{"first transient failure of a Ready plane is held", ready, failed(c5c3v1alpha1.ReasonEndpointUnreachable), time.Time{}, t0, true, t0},
		{"a flapping SecretStore is held too", ready, failed(c5c3v1alpha1.ReasonSecretStoreNotReady), time.Time{}, t0, true, t0},
		{"still within the window: held, first-failure time kept", ready, failed(c5c3v1alpha1.ReasonEndpointUnreachable), t0, t0.Add(window - time.Second), true, t0},
		{"persisted for the window: reported", ready, failed(c5c3v1alpha1.ReasonEndpointUnreachable), t0, t0.Add(window), false, time.Time{}},
		{"a refused credential is reported at once", ready, failed(c5c3v1alpha1.ReasonAuthenticationFailed), time.Time{}, t0, false, time.Time{}},
		{"a TLS failure is reported at once", ready, failed(c5c3v1alpha1.ReasonTLSVerificationFailed), time.Time{}, t0, false, time.Time{}},
		{"a missing Secret is reported at once", ready, failed(c5c3v1alpha1.ReasonWaitingForCloudsYaml), time.Time{}, t0, false, time.Time{}},
		{"a plane not yet Ready reports every failure", &notReady, failed(c5c3v1alpha1.ReasonEndpointUnreachable), time.Time{}, t0, false, time.Time{}},
		{"a plane with no condition yet reports it", nil, failed(c5c3v1alpha1.ReasonEndpointUnreachable), time.Time{}, t0, false, time.Time{}},
		{"a new generation is reported at once", ready, newGen, time.Time{}, t0, false, time.Time{}},
		{"a success clears the clock", ready, *ready, t0, t0.Add(time.Second), false, time.Time{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, since, held := HoldTransient(tc.prev, tc.want, tc.since, tc.now, window)
			if held != tc.held || !since.Equal(tc.wantSince) {
				t.Fatalf("held %t since %s, want held %t since %s", held, since, tc.held, tc.wantSince)
			}
			expect := tc.want
			if tc.held {
				expect = *tc.prev
			}
			if got.Status != expect.Status || got.Reason != expect.Reason || got.ObservedGeneration != expect.ObservedGeneration {
				t.Fatalf("reported %s/%s (gen %d), want %s/%s (gen %d)", got.Status, got.Reason, got.ObservedGeneration,
					expect.Status, expect.Reason, expect.ObservedGeneration)
			}
		})
	}
}
