//go:build integration

package identity

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
)

// mappingRules are rules in Keystone's dialect: the remote user name becomes
// the local user in the default domain, placed in a group when the remote
// groups include admins.
const mappingRules = `[{"local": [{"user": {"name": "{0}", "domain": {"name": "Default"}}},
 {"group": {"name": "federated-admins", "domain": {"name": "Default"}}}],
 "remote": [{"type": "OIDC-preferred_username"}, {"type": "OIDC-groups", "whitelist": ["admins"]}]}]`

// specRules splits a JSON list of rules into the spec's items.
func specRules(t *testing.T, list string) []apiextensionsv1.JSON {
	t.Helper()
	var items []json.RawMessage
	if err := json.Unmarshal([]byte(list), &items); err != nil {
		t.Fatal(err)
	}
	out := make([]apiextensionsv1.JSON, len(items))
	for i, it := range items {
		out[i] = apiextensionsv1.JSON{Raw: it}
	}
	return out
}

// A Mapping is PUT under its ID with its rules as they are; rules replaced
// out of band are restored by the resync; deletionPolicy delete removes it
// from Keystone, retain keeps it (docs/identity.md, "Federation").
func TestMapping(t *testing.T) {
	ctx := context.Background()
	id := kname(uniq(t, "map"))
	var wantRules any
	if err := json.Unmarshal([]byte(mappingRules), &wantRules); err != nil {
		t.Fatal(err)
	}
	m := &kv1.Mapping{ObjectMeta: metav1.ObjectMeta{Name: id, Namespace: testNS},
		Spec: kv1.MappingSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref(), DeletionPolicy: kv1.DeletionPolicyDelete},
			Rules: specRules(t, mappingRules)}}
	mustCreate(t, m)
	waitReady(t, m)
	want := func(o map[string]any, found bool) (bool, string) {
		if !found {
			return false, "not in Keystone"
		}
		return reflect.DeepEqual(o["rules"], wantRules), fmt.Sprintf("rules = %v", o["rules"])
	}
	if ok, desc := want(ksFed(t, "mapping", "mappings", id)); !ok {
		t.Fatalf("Ready, but in Keystone: %s, want %v", desc, wantRules)
	}

	var other any
	_ = json.Unmarshal([]byte(`[{"local": [{"user": {"name": "intruder"}}], "remote": [{"type": "REMOTE_USER"}]}]`), &other)
	ksFedPatch(t, "mapping", map[string]any{"rules": other}, "mappings", id)
	waitFed(t, "the replaced rules restored", "mapping", want, "mappings", id)

	kept := &kv1.Mapping{ObjectMeta: metav1.ObjectMeta{Name: id + "-kept", Namespace: testNS},
		Spec: kv1.MappingSpec{CommonSpec: kv1.CommonSpec{KeystoneRef: ref()}, Rules: specRules(t, mappingRules)}}
	mustCreate(t, kept)
	waitReady(t, kept)
	if err := k8s.Delete(ctx, kept); err != nil {
		t.Fatal(err)
	}
	waitGone(t, kept)
	if _, found := ksFed(t, "mapping", "mappings", kept.Name); !found {
		t.Error("deletionPolicy retain: the mapping was removed from Keystone")
	}

	if err := k8s.Delete(ctx, m); err != nil {
		t.Fatal(err)
	}
	waitFed(t, "the mapping deleted with its resource", "mapping",
		func(_ map[string]any, found bool) (bool, string) { return !found, "still in Keystone" }, "mappings", id)
}
