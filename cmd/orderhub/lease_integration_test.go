//go:build integration

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestIntegration_Identity_TwoKeystonesOneNamespace runs two `orderhub
// identity` processes with leader election on in one namespace, each for its
// own Keystone (--keystone-ref-name keystone and keystone-b): each holds its
// own Lease, so both reconcile, and each Domain is Ready and created in its
// own Keystone only.
func TestIntegration_Identity_TwoKeystonesOneNamespace(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Kube: true, Keystone: true})
	second := testenv.ForTest(t, testenv.Options{Keystone: true})
	c := keystoneClient(t, st)
	ctx := context.Background()
	const ns = "identity-two"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	bin := orderhubBinary(t)
	startIdentityProcess(t, st, bin, "orderhub-identity-a", ns, st.Keystone.Env(), "--leader-elect=true", "--keystone-ref-name=keystone")
	startIdentityProcess(t, st, bin, "orderhub-identity-b", ns, second.Keystone.Env(), "--leader-elect=true", "--keystone-ref-name=keystone-b")

	da := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: ns}, Spec: kv1.DomainSpec{Name: "lease-a",
		CommonSpec: kv1.CommonSpec{KeystoneRef: &kv1.KeystoneRef{Name: "keystone"}}}}
	db := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: ns}, Spec: kv1.DomainSpec{Name: "lease-b",
		CommonSpec: kv1.CommonSpec{KeystoneRef: &kv1.KeystoneRef{Name: "keystone-b"}}}}
	for _, d := range []*kv1.Domain{da, db} {
		if err := c.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	waitDomainReady(t, c, da, 2*time.Minute)
	waitDomainReady(t, c, db, 2*time.Minute)

	// Each domain is in its own Keystone, and only there.
	for _, k := range []struct {
		st         *testenv.Stack
		has, hasNo string
	}{{st, "lease-a", "lease-b"}, {second, "lease-b", "lease-a"}} {
		sess, err := keystone.NewSession(ctx, keystone.ConfigFromEnv(envLookupOf(k.st.Keystone.Env())))
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]int{k.has: 1, k.hasNo: 0} {
			pages, err := domains.List(sess.Identity, domains.ListOpts{Name: name}).AllPages(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := domains.ExtractDomains(pages)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != want {
				t.Errorf("Keystone %s holds %d domains %s, want %d", k.st.Keystone.URL, len(got), name, want)
			}
		}
	}

	// Two Leases, each held.
	var leases coordinationv1.LeaseList
	if err := c.List(ctx, &leases, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, l := range leases.Items {
		if strings.HasPrefix(l.Name, "orderhub-identity-") && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" {
			held = append(held, l.Name)
		}
	}
	if len(held) != 2 {
		t.Errorf("held identity Leases in %s: %v, want two", ns, held)
	}
}

// envLookupOf is a getenv over kvs (NAME=value).
func envLookupOf(kvs []string) func(string) string {
	return func(k string) string {
		for _, kv := range kvs {
			if name, v, _ := strings.Cut(kv, "="); name == k {
				return v
			}
		}
		return ""
	}
}
