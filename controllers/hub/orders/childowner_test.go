package orders

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/delivery/apply"
)

func TestOwnedElsewhereMessage(t *testing.T) {
	t.Parallel()
	other := OwnerLabels(Order{Kind: KindKeystoneUser, Namespace: "tenant-b", Name: "secret-project"})
	same := OwnerLabels(Order{Kind: KindKeystoneUser, Namespace: "tenant-a", Name: "sibling"})
	tenant := Order{Kind: KindKeystoneUser, Namespace: "tenant-a", Name: "reports"}
	platform := Order{Kind: platformKind, Namespace: "openstack", Name: "nova"}
	for _, tc := range []struct {
		name         string
		e            apply.OwnedElsewhereError
		viewer       Order
		want, absent []string
	}{
		{"a tenant learns nothing of another namespace",
			apply.OwnedElsewhereError{Kind: "User", Namespace: "openstack", Name: "ku-x", Owner: other}, tenant,
			[]string{"User ku-x in the ControlPlane's namespace", HolderOutsideNamespace, "rename this order"},
			[]string{"tenant-b", "secret-project", "openstack"}},
		{"a holder in the tenant's own namespace is named",
			apply.OwnedElsewhereError{Kind: "User", Namespace: "openstack", Name: "ku-x", Owner: same}, tenant,
			[]string{"KeystoneUser tenant-a/sibling"}, []string{"openstack"}},
		{"an object without labels",
			apply.OwnedElsewhereError{Kind: "PushSecret", Namespace: "tenant-a", Name: "ku-y"}, tenant,
			[]string{"PushSecret tenant-a/ku-y", "carries no orderhub ownership labels"}, nil},
		{"the platform reads everything",
			apply.OwnedElsewhereError{Kind: "Project", Namespace: "openstack", Name: "ks-z", Owner: other}, platform,
			[]string{"Project openstack/ks-z", "KeystoneUser tenant-b/secret-project"}, nil},
	} {
		msg := OwnedElsewhereMessage(&tc.e, tc.viewer)
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", tc.name, msg, w)
			}
		}
		for _, a := range tc.absent {
			if strings.Contains(msg, a) {
				t.Errorf("%s: %q names %q", tc.name, msg, a)
			}
		}
	}
}

func TestRefuseChild(t *testing.T) {
	t.Parallel()
	conds := []metav1.Condition{
		{Type: c5c3v1alpha1.ConditionUserReady, Status: metav1.ConditionTrue, Reason: "UserProvisioned"},
		{Type: c5c3v1alpha1.ConditionDeliveryReady, Status: metav1.ConditionTrue, Reason: "Delivered"},
		{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: c5c3v1alpha1.ReasonAllReady},
	}
	o := Order{Kind: KindKeystoneUser, Namespace: "tenant-a", Name: "reports"}
	if got := RefuseChild(conds, nil, o, 3); len(got) != 3 || got[2].Reason != c5c3v1alpha1.ReasonAllReady {
		t.Fatalf("no refusal changed the conditions: %+v", got)
	}
	got := RefuseChild(conds, &apply.OwnedElsewhereError{Kind: "User", Namespace: "openstack", Name: "ku-x"}, o, 3)
	if len(got) != 3 {
		t.Fatalf("conditions %+v", got)
	}
	for _, c := range got[:2] {
		if c.Status != metav1.ConditionFalse || c.Reason != c5c3v1alpha1.ReasonChildOwnedElsewhere || c.ObservedGeneration != 3 {
			t.Errorf("sub-condition %+v", c)
		}
	}
	r := got[2]
	if r.Type != c5c3v1alpha1.ConditionReady || r.Status != metav1.ConditionFalse || r.Reason != c5c3v1alpha1.ReasonNotAllReady ||
		!strings.Contains(r.Message, "UserReady is ChildOwnedElsewhere") {
		t.Errorf("Ready %+v", r)
	}
}
