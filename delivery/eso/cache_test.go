package eso

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestCompactPushSecretKeepsWhatIsPushedReads(t *testing.T) {
	entry := func() map[string]any {
		return map[string]any{"conversionStrategy": "None",
			"match": map[string]any{"secretKey": "password", "remoteRef": map[string]any{"remoteKey": "a/b", "property": "password"}}}
	}
	u := New(PushSecretGVK)
	u.Object["status"] = map[string]any{
		"syncedResourceVersion": "1-abc",
		"syncedPushSecrets": map[string]any{
			"SecretStore/store": map[string]any{"a/b/password": entry(), "a/b/clouds.yaml": entry()},
		},
	}
	if _, err := CompactPushSecret(u); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"password", "clouds.yaml"} {
		if !IsPushed(u, "", "store", "a/b", p) {
			t.Errorf("the push of a/b/%s is no longer recorded", p)
		}
	}
	if IsPushed(u, "", "store", "a/b", "other") {
		t.Error("a push that was never recorded reads as pushed")
	}
	if SyncedResourceVersion(u) != "1-abc" {
		t.Errorf("status.syncedResourceVersion changed: %q", SyncedResourceVersion(u))
	}
	got, _, _ := unstructured.NestedMap(u.Object, "status", "syncedPushSecrets", "SecretStore/store", "a/b/password")
	if len(got) != 0 {
		t.Errorf("the entry was kept: %v", got)
	}

	other := New(ExternalSecretGVK)
	other.Object["status"] = map[string]any{"syncedPushSecrets": map[string]any{"s": map[string]any{"r": entry()}}}
	if _, err := CompactPushSecret(other); err != nil {
		t.Fatal(err)
	}
	if kept, _, _ := unstructured.NestedMap(other.Object, "status", "syncedPushSecrets", "s", "r"); len(kept) == 0 {
		t.Error("an object of another kind was changed")
	}
	if _, err := CompactPushSecret(New(PushSecretGVK)); err != nil {
		t.Errorf("a PushSecret without status: %v", err)
	}
}
