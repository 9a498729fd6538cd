//go:build integration

package identity

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// A ServiceProvider is PUT under its ID with its URLs, description, enabled
// and relay state prefix; an out-of-band PATCH of each is repaired by the
// resync; deletionPolicy delete removes it from Keystone, retain keeps it
// (docs/identity.md, "Federation").
func TestServiceProvider(t *testing.T) {
	ctx := context.Background()
	id := kname(uniq(t, "sp"))
	auth := "https://" + id + ".example/v3/OS-FEDERATION/identity_providers/here/protocols/saml2/auth"
	ecp := "https://" + id + ".example/Shibboleth.sso/SAML2/ECP"
	sp := &kv1.ServiceProvider{ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: testNS},
		Spec: kv1.ServiceProviderSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref(), DeletionPolicy: kv1.DeletionPolicyDelete},
			AuthURL: auth, SPURL: ecp, Description: "region two", RelayStatePrefix: "ss:test:"}}
	mustCreate(t, sp)
	waitReady(t, sp)
	want := func(o map[string]any, found bool) (bool, string) {
		if !found {
			return false, "not in Keystone"
		}
		got := []any{o["auth_url"], o["sp_url"], o["description"], o["enabled"], o["relay_state_prefix"]}
		exp := []any{auth, ecp, "region two", true, "ss:test:"}
		return reflect.DeepEqual(got, exp), fmt.Sprintf("auth_url, sp_url, description, enabled, relay_state_prefix = %v, want %v", got, exp)
	}
	if ok, desc := want(ksFed(t, "service_provider", "service_providers", id)); !ok {
		t.Fatalf("Ready, but in Keystone: %s", desc)
	}

	ksFedPatch(t, "service_provider", map[string]any{"auth_url": "https://elsewhere.example/auth", "sp_url": "https://elsewhere.example/ecp",
		"description": "edited", "enabled": false, "relay_state_prefix": "ss:edited:"}, "service_providers", id)
	waitFed(t, "the edited service provider repaired", "service_provider", want, "service_providers", id)

	kept := &kv1.ServiceProvider{ObjectMeta: metav1.ObjectMeta{Name: id + "-kept", Namespace: testNS},
		Spec: kv1.ServiceProviderSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, AuthURL: auth, SPURL: ecp}}
	mustCreate(t, kept)
	waitReady(t, kept)
	if err := k8s.Delete(ctx, kept); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kept)
	if _, found := ksFed(t, "service_provider", "service_providers", kept.Name); !found {
		t.Error("deletionPolicy retain: the service provider was removed from Keystone")
	}

	if err := k8s.Delete(ctx, sp); err != nil {
		t.Fatal(err)
	}
	waitFed(t, "the service provider deleted with its resource", "service_provider",
		func(_ map[string]any, found bool) (bool, string) { return !found, "still in Keystone" }, "service_providers", id)
}
