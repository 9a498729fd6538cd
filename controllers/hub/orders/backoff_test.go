package orders

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestNotReadyBackoff(t *testing.T) {
	base := 15 * time.Second
	for _, tc := range []struct {
		notReadyFor, want time.Duration
	}{
		{0, base},
		{20 * time.Second, base},
		{30 * time.Second, base},
		{time.Minute, 30 * time.Second},
		{3 * time.Minute, 90 * time.Second},
		{4 * time.Minute, NotReadyCap},
		{time.Hour, NotReadyCap},
	} {
		if got := NotReadyBackoff(base, tc.notReadyFor); got != tc.want {
			t.Errorf("NotReadyBackoff(%v, %v) = %v, want %v", base, tc.notReadyFor, got, tc.want)
		}
	}
	if got := NotReadyBackoff(5*time.Minute, time.Hour); got != 5*time.Minute {
		t.Errorf("a base above the cap is kept: got %v", got)
	}
}

func TestNotReadyFor(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	created := now.Add(-10 * time.Minute)
	ready := func(s metav1.ConditionStatus, ago time.Duration) []metav1.Condition {
		return []metav1.Condition{
			{Type: "ProjectReady", Status: metav1.ConditionFalse, LastTransitionTime: metav1.NewTime(now.Add(-time.Hour))},
			{Type: c5c3v1alpha1.ConditionReady, Status: s, LastTransitionTime: metav1.NewTime(now.Add(-ago))},
		}
	}
	for _, tc := range []struct {
		name  string
		conds []metav1.Condition
		want  time.Duration
	}{
		{"no Ready condition: since created", nil, 10 * time.Minute},
		{"Ready False: since it turned", ready(metav1.ConditionFalse, 3*time.Minute), 3 * time.Minute},
		{"Ready Unknown: since it turned", ready(metav1.ConditionUnknown, time.Minute), time.Minute},
		{"Ready True: turning now", ready(metav1.ConditionTrue, time.Hour), 0},
		{"a transition ahead of now", ready(metav1.ConditionFalse, -time.Minute), 0},
	} {
		if got := NotReadyFor(tc.conds, created, now); got != tc.want {
			t.Errorf("%s: NotReadyFor = %v, want %v", tc.name, got, tc.want)
		}
	}
}
