package apply

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func owned(kind, ns, name, cluster string) map[string]string {
	return map[string]string{c5c3v1alpha1.LabelOwnerKind: kind, c5c3v1alpha1.LabelOwnerNamespace: ns,
		c5c3v1alpha1.LabelOwnerName: name, c5c3v1alpha1.LabelOwnerCluster: cluster}
}

func TestSameOwner(t *testing.T) {
	t.Parallel()
	want := owned("KeystoneUser", "tenant-a", "reports", "")
	noCluster := owned("KeystoneUser", "tenant-a", "reports", "")
	delete(noCluster, c5c3v1alpha1.LabelOwnerCluster)
	for _, tc := range []struct {
		name string
		have map[string]string
		same bool
	}{
		{"the same four labels", owned("KeystoneUser", "tenant-a", "reports", ""), true},
		{"a missing cluster label reads as the management cluster", noCluster, true},
		{"another order's name", owned("KeystoneUser", "tenant-a", "other", ""), false},
		{"another namespace", owned("KeystoneUser", "tenant-b", "reports", ""), false},
		{"another kind", owned("KeystoneProject", "tenant-a", "reports", ""), false},
		{"another cluster", owned("KeystoneUser", "tenant-a", "reports", "edge-1"), false},
		{"no labels", nil, false},
	} {
		if got := SameOwner(tc.have, want); got != tc.same {
			t.Errorf("%s: SameOwner = %v, want %v", tc.name, got, tc.same)
		}
	}
}

func TestReadOwned(t *testing.T) {
	t.Parallel()
	mine := owned("KeystoneUser", "tenant-a", "reports", "")
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "openstack", Name: "taken",
		Labels: owned("KeystoneUser", "tenant-b", "x", "")}}
	unlabelled := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "openstack", Name: "bare"}}
	ours := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "openstack", Name: "ours", Labels: mine}}
	c := fake.NewClientBuilder().WithObjects(foreign, unlabelled, ours).Build()
	for _, tc := range []struct {
		name   string
		labels map[string]string
		refuse bool
	}{
		{"taken", mine, true},
		{"bare", mine, true},
		{"ours", mine, false},
		{"absent", mine, false},
		{"taken", nil, false}, // no order's child: not guarded
	} {
		ctx, rs := WithRefusals(context.Background())
		obj := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "openstack", Name: tc.name, Labels: tc.labels}}
		cur, err := ReadOwned(ctx, c, obj)
		if wantCur := tc.name == "ours"; (cur != nil) != wantCur || (wantCur && cur.GetName() != "ours") {
			t.Errorf("%s (labels %v): read %v, want the object: %v", tc.name, tc.labels, cur, wantCur)
		}
		var oe *OwnedElsewhereError
		if got := errors.As(err, &oe); got != tc.refuse {
			t.Fatalf("%s (labels %v): err = %v, want refusal %v", tc.name, tc.labels, err, tc.refuse)
		}
		if !tc.refuse {
			if rs.First() != nil {
				t.Errorf("%s: recorded %v without refusing", tc.name, rs.First())
			}
			continue
		}
		if !errors.Is(err, ErrOwnedElsewhere) || rs.First() != oe || oe.Kind != "ConfigMap" || oe.Name != tc.name {
			t.Errorf("%s: refusal %+v, recorded %+v", tc.name, oe, rs.First())
		}
		if obj.Labels[c5c3v1alpha1.LabelOwnerName] != "reports" {
			t.Errorf("%s: ReadOwned modified obj: %v", tc.name, obj.Labels)
		}
	}
}
