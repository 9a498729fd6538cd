//go:build integration

package keystoneservice

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/endpoints"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/services"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/internal/testenv"
)

func registration(ns, name, serviceType string, adopt bool, eps map[string]string) *c5c3v1alpha1.KeystoneService {
	ks := &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS},
			Catalog: &c5c3v1alpha1.KeystoneServiceCatalogSpec{ServiceType: serviceType, Adopt: adopt}}}
	if ns == planeNS {
		ks.Spec.ControlPlaneRef.Namespace = ""
	}
	for _, i := range slices.Sorted(maps.Keys(eps)) {
		ks.Spec.Catalog.Endpoints = append(ks.Spec.Catalog.Endpoints,
			c5c3v1alpha1.KeystoneServiceEndpointSpec{Interface: c5c3v1alpha1.EndpointInterface(i), URL: eps[i]})
	}
	return ks
}

// waitForCondition waits until ks's condition typ has reason.
func waitForCondition(t *testing.T, ks *c5c3v1alpha1.KeystoneService, typ, reason string) *c5c3v1alpha1.KeystoneService {
	t.Helper()
	var got c5c3v1alpha1.KeystoneService
	eventually(t, waitTimeout, typ+" "+reason, func() error {
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: ks.Namespace, Name: ks.Name}, &got); err != nil {
			return err
		}
		c := meta.FindStatusCondition(got.Status.Conditions, typ)
		if c == nil || c.Reason != reason || c.ObservedGeneration != got.Generation {
			return fmt.Errorf("condition is %+v at generation %d", c, got.Generation)
		}
		testenv.ObservedCondition(t, &got, *c)
		return nil
	})
	return &got
}

// keystoneServices lists the catalog services of serviceType in Keystone.
func keystoneServices(t *testing.T, serviceType string) []services.Service {
	t.Helper()
	return testenv.KeystoneList(t, services.List(identity, services.ListOpts{ServiceType: serviceType}), services.ExtractServices)
}

// keystoneEndpoints returns the endpoint URLs of serviceID by interface.
func keystoneEndpoints(serviceID string) (map[string]string, map[string]string, error) {
	all, err := testenv.KeystoneAll(context.Background(), endpoints.List(identity, endpoints.ListOpts{ServiceID: serviceID}),
		endpoints.ExtractEndpoints)
	if err != nil {
		return nil, nil, err
	}
	urls, ids := map[string]string{}, map[string]string{}
	for _, e := range all {
		urls[string(e.Availability)] = e.URL
		ids[string(e.Availability)] = e.ID
	}
	return urls, ids, nil
}

func update(t *testing.T, ks *c5c3v1alpha1.KeystoneService, mut func(*c5c3v1alpha1.KeystoneService)) {
	t.Helper()
	eventually(t, waitTimeout, "update "+ks.Name, func() error {
		var cur c5c3v1alpha1.KeystoneService
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: ks.Namespace, Name: ks.Name}, &cur); err != nil {
			return err
		}
		mut(&cur)
		return kube.Update(context.Background(), &cur)
	})
}

// deleteAndWaitGone deletes ks and waits until it and its catalog rows of
// serviceType are gone from Kubernetes and Keystone.
func deleteAndWaitGone(t *testing.T, ks *c5c3v1alpha1.KeystoneService, serviceType string) {
	t.Helper()
	ctx := context.Background()
	if err := kube.Delete(ctx, ks); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "KeystoneService gone", func() error {
		err := kube.Get(ctx, types.NamespacedName{Namespace: ks.Namespace, Name: ks.Name}, &c5c3v1alpha1.KeystoneService{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v", err)
	})
	if got := keystoneServices(t, serviceType); len(got) != 0 {
		t.Fatalf("after the teardown Keystone still has %d %s services", len(got), serviceType)
	}
}

func TestCatalogRegisteredChangedAndTornDown(t *testing.T) {
	ctx := context.Background()
	const typ = "image-it"
	ks := registration(allowedNS, "glance", typ, false, map[string]string{
		"public": "http://glance.example:9292", "internal": "http://glance.internal:9292"})
	if err := kube.Create(ctx, ks); err != nil {
		t.Fatal(err)
	}
	got := waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	if c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionAccountReady); c == nil || c.Reason != c5c3v1alpha1.ReasonAccountNotDeclared {
		t.Errorf("AccountReady = %+v", c)
	}
	svcs := keystoneServices(t, typ)
	if len(svcs) != 1 || svcs[0].Extra["name"] != "glance" {
		t.Fatalf("Keystone services of type %s: %+v", typ, svcs)
	}
	if got.Status.Catalog == nil || got.Status.Catalog.ServiceID != svcs[0].ID || len(got.Status.Catalog.Endpoints) != 2 {
		t.Fatalf("status.catalog = %+v, want service %s and 2 endpoints", got.Status.Catalog, svcs[0].ID)
	}
	urls, ids, err := keystoneEndpoints(svcs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(urls, map[string]string{"public": "http://glance.example:9292", "internal": "http://glance.internal:9292"}) {
		t.Fatalf("Keystone endpoints = %v", urls)
	}
	for _, e := range got.Status.Catalog.Endpoints {
		if e.ID == "" || e.ID != ids[string(e.Interface)] {
			t.Errorf("status endpoint %s id %q, Keystone has %q", e.Interface, e.ID, ids[string(e.Interface)])
		}
	}

	// Change the public URL in place, drop internal, add admin.
	update(t, ks, func(k *c5c3v1alpha1.KeystoneService) {
		k.Spec.Catalog.Endpoints = []c5c3v1alpha1.KeystoneServiceEndpointSpec{
			{Interface: "admin", URL: "http://glance.admin:9292"},
			{Interface: "public", URL: "https://glance.example"},
		}
	})
	want := map[string]string{"admin": "http://glance.admin:9292", "public": "https://glance.example"}
	eventually(t, waitTimeout, "Keystone endpoints follow the spec", func() error {
		u, i, err := keystoneEndpoints(svcs[0].ID)
		if err != nil {
			return err
		}
		if !maps.Equal(u, want) {
			return fmt.Errorf("endpoints %v, want %v", u, want)
		}
		if i["public"] != ids["public"] {
			return fmt.Errorf("public endpoint replaced (%s -> %s), want changed in place", ids["public"], i["public"])
		}
		return nil
	})
	waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)

	deleteAndWaitGone(t, ks, typ)
}

func TestCatalogCollisionThenAdopt(t *testing.T) {
	ctx := context.Background()
	const typ = "collide-it"
	pre, err := services.Create(ctx, identity, services.CreateOpts{Type: typ, Extra: map[string]any{"name": "placement"}}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	ks := registration(planeNS, "placement", typ, false, map[string]string{"public": "http://placement.example"})
	if err := kube.Create(ctx, ks); err != nil {
		t.Fatal(err)
	}
	got := waitForCondition(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonServiceCollision)
	if c := meta.FindStatusCondition(got.Status.Conditions, c5c3v1alpha1.ConditionReady); c == nil || c.Status != metav1.ConditionFalse {
		t.Errorf("Ready = %+v, want False", c)
	}
	// Nothing was touched: the row is still the one we made, with no endpoint.
	if svcs := keystoneServices(t, typ); len(svcs) != 1 || svcs[0].ID != pre.ID {
		t.Fatalf("services after the collision: %+v", svcs)
	}
	if urls, _, err := keystoneEndpoints(pre.ID); err != nil || len(urls) != 0 {
		t.Fatalf("endpoints after the collision: %v %v", urls, err)
	}

	update(t, ks, func(k *c5c3v1alpha1.KeystoneService) { k.Spec.Catalog.Adopt = true })
	got = waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)
	if got.Status.Catalog == nil || got.Status.Catalog.ServiceID != pre.ID {
		t.Fatalf("status.catalog = %+v, want the adopted service %s", got.Status.Catalog, pre.ID)
	}
	if svcs := keystoneServices(t, typ); len(svcs) != 1 {
		t.Fatalf("services after the adoption: %+v", svcs)
	}
	// Adoption means ownership: the adopted row goes with the CR.
	deleteAndWaitGone(t, ks, typ)
}

func TestGates(t *testing.T) {
	ctx := context.Background()
	missing := registration(planeNS, "nocp", "gate-it", false, nil)
	missing.Spec.ControlPlaneRef.Name = "absent"
	notAllowed := registration("team-not-allowed", "denied", "gate-it", false, nil)
	for _, tc := range []struct {
		ks     *c5c3v1alpha1.KeystoneService
		reason string
	}{
		{missing, c5c3v1alpha1.ReasonControlPlaneNotFound},
		{notAllowed, c5c3v1alpha1.ReasonNamespaceNotAllowed},
	} {
		if err := kube.Create(ctx, tc.ks); err != nil {
			t.Fatal(err)
		}
		waitForCondition(t, tc.ks, c5c3v1alpha1.ConditionCatalogReady, tc.reason)
		waitForCondition(t, tc.ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonNotAllReady)
	}
	deleteAndWaitGone(t, missing, "gate-it")
	deleteAndWaitGone(t, notAllowed, "gate-it")
}

// TestTeardownFailsOpenWithoutControlPlane: once the ControlPlane is gone, a
// deleted registration is released although K-ORC can no longer delete its
// children (docs/reference/keystoneservice.md, "Deletion Semantics").
func TestTeardownFailsOpenWithoutControlPlane(t *testing.T) {
	ctx := context.Background()
	const ns = "openstack-failopen"
	if err := kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	k := stack.Keystone
	if err := kube.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: controlplane.DefaultPasswordSecret, Namespace: ns},
		Data: map[string][]byte{controlplane.DefaultPasswordKey: []byte(k.AdminPassword)}}); err != nil {
		t.Fatal(err)
	}
	plane := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: ns},
		Spec: c5c3v1alpha1.ControlPlaneSpec{Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
			Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: k.URL}}}}}
	if err := kube.Create(ctx, plane); err != nil {
		t.Fatal(err)
	}
	ks := registration(ns, "failopen", "failopen-it", false, map[string]string{"public": "http://failopen.example"})
	ks.Spec.ControlPlaneRef.Namespace = ""
	if err := kube.Create(ctx, ks); err != nil {
		t.Fatal(err)
	}
	waitForCondition(t, ks, c5c3v1alpha1.ConditionReady, c5c3v1alpha1.ReasonAllReady)

	if err := kube.Delete(ctx, plane); err != nil {
		t.Fatal(err)
	}
	waitForCondition(t, ks, c5c3v1alpha1.ConditionCatalogReady, c5c3v1alpha1.ReasonControlPlaneNotFound)
	if err := kube.Delete(ctx, ks); err != nil {
		t.Fatal(err)
	}
	eventually(t, waitTimeout, "KeystoneService released", func() error {
		err := kube.Get(ctx, types.NamespacedName{Namespace: ks.Namespace, Name: ks.Name}, &c5c3v1alpha1.KeystoneService{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there: %v", err)
	})
}
