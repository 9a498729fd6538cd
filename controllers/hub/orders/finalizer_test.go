package orders

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestNeedsFinalizer(t *testing.T) {
	t.Parallel()
	p := plane(metav1.ConditionTrue, assign("", "tenant-a"), assign("edge-1", "tenant-b"))
	long := strings.Repeat("c", MaxClusterNameLength+1)
	tests := []struct {
		name string
		has  bool
		o    Order
		want bool
	}{
		{"assigned, not installed", false, Order{Namespace: "tenant-a", Name: "x"}, true},
		{"assigned on a target cluster", false, Order{Cluster: "edge-1", Namespace: "tenant-b", Name: "x"}, true},
		{"already installed", true, Order{Namespace: "tenant-a", Name: "x"}, false},
		{"namespace not assigned", false, Order{Namespace: "tenant-b", Name: "x"}, false},
		{"assigned elsewhere only", false, Order{Cluster: "edge-2", Namespace: "tenant-b", Name: "x"}, false},
		{"cluster name too long", false, Order{Cluster: long, Namespace: "tenant-a", Name: "x"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NeedsFinalizer(tc.has, p, tc.o); got != tc.want {
				t.Errorf("NeedsFinalizer = %v, want %v", got, tc.want)
			}
		})
	}
	if NeedsFinalizer(false, nil, Order{Namespace: "tenant-a"}) {
		t.Error("NeedsFinalizer without a plane = true, want false")
	}
}
