//go:build integration

package identity

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// An IdentityProvider is PUT under its ID (metadata.name here) with its
// domain, description, enabled and remote IDs; an out-of-band PATCH of each
// is repaired by the resync; deletionPolicy delete removes it from Keystone,
// retain keeps it (docs/identity.md, "Federation").
func TestIdentityProvider(t *testing.T) {
	ctx := context.Background()
	dname := uniq(t, "idp-domain")
	d, err := domains.Create(ctx, admin, domains.CreateOpts{Name: dname}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	id := kname(uniq(t, "idp"))
	remote := "https://" + id + ".example/realms/x"
	idp := &kv1.IdentityProvider{ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: testNS},
		Spec: kv1.IdentityProviderSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref(), DeletionPolicy: kv1.DeletionPolicyDelete},
			Domain: dname, Description: "corporate SSO", RemoteIDs: []string{remote}}}
	mustCreate(t, idp)
	waitReady(t, idp)
	want := func(o map[string]any, found bool) (bool, string) {
		if !found {
			return false, "not in Keystone"
		}
		got := []any{o["domain_id"], o["description"], o["enabled"], o["remote_ids"]}
		exp := []any{d.ID, "corporate SSO", true, []any{remote}}
		return reflect.DeepEqual(got, exp), fmt.Sprintf("domain_id, description, enabled, remote_ids = %v, want %v", got, exp)
	}
	if ok, desc := want(ksFed(t, "identity_provider", "identity_providers", id)); !ok {
		t.Fatalf("Ready, but in Keystone: %s", desc)
	}

	ksFedPatch(t, "identity_provider", map[string]any{"description": "edited", "enabled": false,
		"remote_ids": []string{"https://elsewhere.example/" + id}}, "identity_providers", id)
	waitFed(t, "the edited identity provider repaired", "identity_provider", want, "identity_providers", id)

	kept := &kv1.IdentityProvider{ObjectMeta: metav1.ObjectMeta{Name: id + "-kept", Namespace: testNS},
		Spec: kv1.IdentityProviderSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}}}
	mustCreate(t, kept)
	waitReady(t, kept)
	if err := k8s.Delete(ctx, kept); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kept)
	if _, found := ksFed(t, "identity_provider", "identity_providers", kept.Name); !found {
		t.Error("deletionPolicy retain: the identity provider was removed from Keystone")
	}

	if err := k8s.Delete(ctx, idp); err != nil {
		t.Fatal(err)
	}
	waitFed(t, "the identity provider deleted with its resource", "identity_provider",
		func(_ map[string]any, found bool) (bool, string) { return !found, "still in Keystone" }, "identity_providers", id)
}
