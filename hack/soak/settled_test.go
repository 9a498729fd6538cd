package main

import (
	"context"
	"strings"
	"testing"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/korc"
)

// A successor K-ORC has minted and the hub has not switched to yet keeps
// the run from converging; once the order records it, the run settles.
func TestRotationsSettled(t *testing.T) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{c5c3v1alpha1.AddToScheme, orcv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	order := func(cl string, gen int64) *c5c3v1alpha1.KeystoneApplicationCredential {
		return &c5c3v1alpha1.KeystoneApplicationCredential{
			ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: orderName(cl, acBase)},
			Status:     c5c3v1alpha1.KeystoneApplicationCredentialStatus{CredentialGeneration: gen}}
	}
	child := func(cl string, gen int64) *orcv1alpha1.ApplicationCredential {
		name := orderName(cl, acBase)
		prefix := korc.ChildPrefix(name, korc.OrderKey(cl, tenantNS, name), korc.InfixApplicationCredential)
		return &orcv1alpha1.ApplicationCredential{ObjectMeta: metav1.ObjectMeta{Namespace: planeNS,
			Name: prefix + korc.CredentialDiscriminator(gen)}}
	}
	build := func(objs ...client.Object) client.Client {
		return fake.NewClientBuilder().WithScheme(scheme).WithObjects(objs...).WithStatusSubresource(objs...).Build()
	}
	ctx := context.Background()

	// Every order's K-ORC children live in the plane's namespace on the
	// management cluster; the target cluster holds only its order.
	mgmt := build(order("", 3), child("", 3), child("", 4), child(targetName, 2))
	tgt := build(order(targetName, 2))
	e := &env{mgmt: mgmt, clusters: map[string]client.Client{"": mgmt, targetName: tgt}}
	err := e.rotationsSettled(ctx)
	if err == nil || !strings.Contains(err.Error(), "generation 4 is under way") {
		t.Fatalf("rotationsSettled with generation 4 minted and 3 recorded = %v, want the rotation under way", err)
	}

	mgmt = build(order("", 4), child("", 3), child("", 4), child(targetName, 2))
	e = &env{mgmt: mgmt, clusters: map[string]client.Client{"": mgmt, targetName: tgt}}
	if err := e.rotationsSettled(ctx); err != nil {
		t.Fatalf("rotationsSettled once generation 4 is recorded (3 in its grace period) = %v, want settled", err)
	}
}
