package controlplane

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestNotOurs(t *testing.T) {
	cp := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: "platform", UID: "u1"}}
	yes := true
	ref := func(kind, name string) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "c5c3.io/v1alpha1", Kind: kind, Name: name, UID: "other", Controller: &yes}}
	}
	other := Labels(cp)
	other[LabelControlPlaneNamespace] = "tenant-a"
	for _, tc := range []struct {
		name   string
		labels map[string]string
		owners []metav1.OwnerReference
		want   string
	}{
		{"the plane's labels", Labels(cp), nil, ""},
		{"the plane's labels, a re-created plane of the name as controller", Labels(cp), ref("ControlPlane", "cp"), ""},
		{"no labels", nil, nil, "not provisioned by orderhub"},
		{"a tenant's labels", map[string]string{"team": "b"}, nil, "not provisioned by orderhub"},
		{"another plane's labels", other, nil, "ControlPlane tenant-a/cp provisioned it"},
		{"the plane's labels, another controller", Labels(cp), ref("KeystoneService", "cp"), "its controller is KeystoneService cp"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &metav1.ObjectMeta{Labels: tc.labels, OwnerReferences: tc.owners}
			got := NotOurs(cp, m)
			if (tc.want == "") != (got == "") || !strings.Contains(got, tc.want) {
				t.Errorf("NotOurs = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestForeignMessage(t *testing.T) {
	if got := ForeignMessage(nil); got != "" {
		t.Errorf("no foreign objects: %q", got)
	}
	got := ForeignMessage([]Foreign{{Kind: "SecretStore", Namespace: "b", Name: "s", Why: "w2"},
		{Kind: "ServiceAccount", Namespace: "a", Name: "sa", Why: "w1"}})
	for _, want := range []string{"SecretStore b/s exists and is not this plane's (w2)", "ServiceAccount a/sa", "allowedNamespaces",
		"docs/reference/controlplane.md"} {
		if !strings.Contains(got, want) {
			t.Errorf("message %q lacks %q", got, want)
		}
	}
	if strings.Index(got, "SecretStore b/s") > strings.Index(got, "ServiceAccount a/sa") {
		t.Errorf("message not sorted: %q", got)
	}
}
