//go:build integration

package identity

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// A Protocol whose identity provider is missing in Keystone waits with
// Ready=False naming it, and is created once the IdentityProvider is; it is
// PUT with its mapping; a mapping_id changed out of band is repaired;
// deletionPolicy delete removes it from Keystone, retain keeps it
// (docs/identity.md, "Federation").
func TestProtocol(t *testing.T) {
	ctx := context.Background()
	idpID, mapID := kname(uniq(t, "proto-idp")), kname(uniq(t, "proto-map"))
	m := &kv1.Mapping{ObjectMeta: metav1.ObjectMeta{Name: mapID, Namespace: testNS},
		Spec: kv1.MappingSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Rules: specRules(t, mappingRules)}}
	p := &kv1.Protocol{ObjectMeta: metav1.ObjectMeta{Name: idpID + "-openid", Namespace: testNS},
		Spec: kv1.ProtocolSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref(), DeletionPolicy: kv1.DeletionPolicyDelete},
			ID: "openid", IdentityProvider: idpID, Mapping: mapID, RemoteIDAttribute: "OIDC-iss"}}
	mustCreate(t, m, p)
	waitReady(t, m)
	eventually(t, "the Protocol waiting for its identity provider", func() (bool, string) {
		c := readyOf(t, p)
		if c == nil {
			return false, "no Ready condition"
		}
		want := fmt.Sprintf("identity provider %q not found in Keystone; waiting for it to exist", idpID)
		return c.Status == metav1.ConditionFalse && c.Reason == kv1.ReasonReconcileError && strings.Contains(c.Message, want),
			c.Reason + ": " + c.Message
	})

	idp := &kv1.IdentityProvider{ObjectMeta: metav1.ObjectMeta{Name: idpID, Namespace: testNS},
		Spec: kv1.IdentityProviderSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}}}
	mustCreate(t, idp)
	waitReady(t, p)
	path := []string{"identity_providers", idpID, "protocols", "openid"}
	want := func(o map[string]any, found bool) (bool, string) {
		if !found {
			return false, "not in Keystone"
		}
		// Keystone returns remote_id_attribute from release 2023.1 on.
		attr, shown := o["remote_id_attribute"]
		return o["mapping_id"] == mapID && (!shown || attr == "OIDC-iss"), fmt.Sprintf("protocol %v", o)
	}
	if ok, desc := want(ksFed(t, "protocol", path...)); !ok {
		t.Fatalf("Ready, but in Keystone: %s", desc)
	}

	other := mapID + "-other"
	var rules any
	_ = json.Unmarshal([]byte(mappingRules), &rules)
	if _, err := admin.Put(ctx, fedURL("mappings", other), map[string]any{"mapping": map[string]any{"rules": rules}}, nil, nil); err != nil {
		t.Fatal(err)
	}
	ksFedPatch(t, "protocol", map[string]any{"mapping_id": other}, path...)
	waitFed(t, "the protocol's mapping repaired", "protocol", want, path...)

	kept := &kv1.Protocol{ObjectMeta: metav1.ObjectMeta{Name: idpID + "-saml2", Namespace: testNS},
		Spec: kv1.ProtocolSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, ID: "saml2", IdentityProvider: idpID, Mapping: mapID}}
	mustCreate(t, kept)
	waitReady(t, kept)
	if err := k8s.Delete(ctx, kept); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kept)
	if _, found := ksFed(t, "protocol", "identity_providers", idpID, "protocols", "saml2"); !found {
		t.Error("deletionPolicy retain: the protocol was removed from Keystone")
	}

	if err := k8s.Delete(ctx, p); err != nil {
		t.Fatal(err)
	}
	waitFed(t, "the protocol deleted with its resource", "protocol",
		func(_ map[string]any, found bool) (bool, string) { return !found, "still in Keystone" }, path...)
}
