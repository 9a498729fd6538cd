package keystoneapplicationcredential

import (
	"testing"

	"github.com/c5c3/orderhub/controllers/hub/orders"
)

func TestOrderOfDeliveredSecret(t *testing.T) {
	t.Parallel()
	o := orders.Order{Kind: orders.KindKeystoneApplicationCredential, Namespace: "tenant-a", Name: "wf"}
	delivered := map[string]string{
		"c5c3.io/keystoneapplicationcredential-name":      "wf",
		"c5c3.io/keystoneapplicationcredential-namespace": "tenant-a",
	}
	for _, tc := range []struct {
		what, ns, name string
		labels         map[string]string
		want           string
	}{
		{"the delivered Secret", "tenant-a", "wf-credentials", delivered, "wf"},
		{"a child in the plane namespace", "openstack", "wf-credentials", orders.ChildLabels(o), ""},
		{"a child named like the Secret in the same namespace", "tenant-a", "wf-credentials", orders.ChildLabels(o), ""},
		{"another name", "tenant-a", "other", delivered, ""},
		{"moved to another namespace", "tenant-b", "wf-credentials", delivered, ""},
		{"unlabelled", "tenant-a", "wf-credentials", nil, ""},
	} {
		got, ok := OrderOfDeliveredSecret(tc.ns, tc.name, tc.labels)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("%s: OrderOfDeliveredSecret = %q, %t, want %q", tc.what, got, ok, tc.want)
		}
	}
}
