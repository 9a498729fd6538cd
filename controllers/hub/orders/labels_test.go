package orders_test

import (
	"maps"
	"testing"

	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// TestLabelKeys pins the order label keys to the strings
// controllers/hub/keystoneservice/labels.go declares, until both move to one
// place. (Importing keystoneservice here would tie this package's tests to a
// reconciler package's build.)
func TestLabelKeys(t *testing.T) {
	t.Parallel()
	pairs := [][2]string{
		{orders.LabelOwnerKind, "c5c3.io/owner-kind"},
		{orders.LabelOwnerNamespace, "c5c3.io/owner-namespace"},
		{orders.LabelOwnerName, "c5c3.io/owner-name"},
		{orders.LabelOwnerCluster, "c5c3.io/owner-cluster"},
	}
	for _, p := range pairs {
		if p[0] != p[1] {
			t.Errorf("label key %q, want %q", p[0], p[1])
		}
	}
}

func TestChildLabels(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    orders.Order
		want map[string]string
	}{
		{"application credential on the management cluster",
			orders.Order{Kind: orders.KindKeystoneApplicationCredential, Namespace: "tenant-a", Name: "workflow-appcred"},
			map[string]string{
				"c5c3.io/owner-kind":                              "KeystoneApplicationCredential",
				"c5c3.io/owner-namespace":                         "tenant-a",
				"c5c3.io/owner-name":                              "workflow-appcred",
				"c5c3.io/owner-cluster":                           "",
				"c5c3.io/keystoneapplicationcredential-name":      "workflow-appcred",
				"c5c3.io/keystoneapplicationcredential-namespace": "tenant-a",
				"c5c3.io/keystoneapplicationcredential-cluster":   "",
			}},
		{"user on a target cluster",
			orders.Order{Kind: orders.KindKeystoneUser, Cluster: "edge-1", Namespace: "tenant-b", Name: "workflow"},
			map[string]string{
				"c5c3.io/owner-kind":             "KeystoneUser",
				"c5c3.io/owner-namespace":        "tenant-b",
				"c5c3.io/owner-name":             "workflow",
				"c5c3.io/owner-cluster":          "edge-1",
				"c5c3.io/keystoneuser-name":      "workflow",
				"c5c3.io/keystoneuser-namespace": "tenant-b",
				"c5c3.io/keystoneuser-cluster":   "edge-1",
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := orders.ChildLabels(tc.o); !maps.Equal(got, tc.want) {
				t.Errorf("ChildLabels = %v, want %v", got, tc.want)
			}
			if got := len(orders.OwnerLabels(tc.o)); got != 4 {
				t.Errorf("OwnerLabels has %d labels, want 4", got)
			}
			if got := len(orders.KindLabels(tc.o)); got != 3 {
				t.Errorf("KindLabels has %d labels, want 3", got)
			}
			back, ok := orders.OrderOfLabels(tc.o.Kind, orders.ChildLabels(tc.o))
			if !ok || back != tc.o {
				t.Errorf("OrderOfLabels(ChildLabels) = %+v, %t, want %+v", back, ok, tc.o)
			}
		})
	}
}

func TestOrderOfLabels(t *testing.T) {
	t.Parallel()
	kind := orders.KindKeystoneProject
	tests := []struct {
		name   string
		labels map[string]string
		want   orders.Order
		wantOK bool
	}{
		{"complete", map[string]string{orders.LabelOwnerKind: kind, orders.LabelOwnerNamespace: "ns", orders.LabelOwnerName: "p", orders.LabelOwnerCluster: "edge"},
			orders.Order{Kind: kind, Cluster: "edge", Namespace: "ns", Name: "p"}, true},
		{"cluster label missing reads management", map[string]string{orders.LabelOwnerKind: kind, orders.LabelOwnerNamespace: "ns", orders.LabelOwnerName: "p"},
			orders.Order{Kind: kind, Namespace: "ns", Name: "p"}, true},
		{"other kind", map[string]string{orders.LabelOwnerKind: orders.KindKeystoneUser, orders.LabelOwnerNamespace: "ns", orders.LabelOwnerName: "p"}, orders.Order{}, false},
		{"no name", map[string]string{orders.LabelOwnerKind: kind, orders.LabelOwnerNamespace: "ns"}, orders.Order{}, false},
		{"no namespace", map[string]string{orders.LabelOwnerKind: kind, orders.LabelOwnerName: "p"}, orders.Order{}, false},
		{"no labels", nil, orders.Order{}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, ok := orders.OrderOfLabels(kind, tc.labels)
			if ok != tc.wantOK || got != tc.want {
				t.Errorf("OrderOfLabels = %+v, %t, want %+v, %t", got, ok, tc.want, tc.wantOK)
			}
		})
	}
}
