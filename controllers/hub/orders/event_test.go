package orders

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
)

// TestEvent: an order of the management cluster gets its event; an order on
// a target cluster gets none (the management recorder cannot write into the
// target's namespace), nor does anything through a nil recorder.
func TestEvent(t *testing.T) {
	t.Parallel()
	rec := events.NewFakeRecorder(4)
	obj := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant-a", Name: "o"}}
	Event(rec, Order{Cluster: ManagementCluster, Namespace: "tenant-a", Name: "o"}, obj, corev1.EventTypeNormal, "RoleAssigned", "Assign", "assigned %s", "member")
	Event(rec, Order{Cluster: "edge-1", Namespace: "tenant-a", Name: "o"}, obj, corev1.EventTypeNormal, "RoleAssigned", "Assign", "assigned %s", "member")
	Event(nil, Order{Cluster: ManagementCluster, Namespace: "tenant-a", Name: "o"}, obj, corev1.EventTypeNormal, "RoleAssigned", "Assign", "x")
	if got := len(rec.Events); got != 1 {
		t.Fatalf("%d events recorded, want 1 (the management cluster's order only)", got)
	}
	if e := <-rec.Events; e != "Normal RoleAssigned assigned member" {
		t.Errorf("event %q", e)
	}
}
