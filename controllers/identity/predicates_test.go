package identity

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

func TestChangeWorthReconciling(t *testing.T) {
	t.Parallel()
	base := func() *kv1.Domain {
		return &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", Generation: 2, ResourceVersion: "10"},
			Spec: kv1.DomainSpec{Name: "service"}}
	}
	now := metav1.Now()
	for _, tc := range []struct {
		name   string
		change func(d *kv1.Domain)
		want   bool
	}{
		{"status only (the controller's own patch): not reconciled", func(d *kv1.Domain) {
			d.ResourceVersion = "11"
			meta.SetStatusCondition(&d.Status.Conditions, metav1.Condition{Type: kv1.ConditionReady, Status: metav1.ConditionFalse,
				Reason: kv1.ReasonReconcileError, Message: "domain missing"})
		}, false},
		{"finalizer only (the controller's own patch): not reconciled", func(d *kv1.Domain) { d.Finalizers = []string{kv1.Finalizer} }, false},
		{"spec changed: reconciled", func(d *kv1.Domain) { d.Generation = 3 }, true},
		{"deletion started: reconciled", func(d *kv1.Domain) { d.DeletionTimestamp = &now }, true},
		{"annotation added: reconciled", func(d *kv1.Domain) { d.Annotations = map[string]string{"a": "b"} }, true},
		{"label changed: reconciled", func(d *kv1.Domain) { d.Labels = map[string]string{"a": "b"} }, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			old, cur := base(), base()
			tc.change(cur)
			if got := changeWorthReconciling(old, cur); got != tc.want {
				t.Errorf("changeWorthReconciling = %v, want %v", got, tc.want)
			}
		})
	}
}
