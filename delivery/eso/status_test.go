package eso

import (
	"context"
	"regexp"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

func withStatus(status map[string]any) *unstructured.Unstructured {
	u := New(ExternalSecretGVK)
	u.SetName("es")
	u.SetNamespace("ns")
	u.Object["status"] = status
	return u
}

func TestReadyCondition(t *testing.T) {
	if c := ReadyCondition(withStatus(nil)); c.Found || c.True() {
		t.Fatalf("no status: %+v", c)
	}
	u := withStatus(map[string]any{"conditions": []any{
		map[string]any{"type": "Deleted", "status": "True"},
		map[string]any{"type": "Ready", "status": "False", "reason": "SecretSyncedError", "message": "could not get secret data from provider"},
	}})
	c := ReadyCondition(u)
	if !c.Found || c.True() || c.Status != "False" || c.Reason != ReasonSecretSyncedError || c.Message == "" {
		t.Fatalf("condition %+v", c)
	}
	u = withStatus(map[string]any{"conditions": []any{map[string]any{"type": "Ready", "status": "True", "reason": "SecretSynced"}}})
	if !ReadyCondition(u).True() {
		t.Fatal("Ready=True not read")
	}
}

func TestCurrentResourceVersion(t *testing.T) {
	u := New(PushSecretGVK)
	u.SetGeneration(3)
	v1 := CurrentResourceVersion(u)
	if !regexp.MustCompile(`^3-[0-9a-f]{56}$`).MatchString(v1) {
		t.Fatalf("format %q", v1)
	}
	// An empty and a nil annotation map are the same to ESO (fmt prints map[]).
	u.SetAnnotations(map[string]string{})
	if CurrentResourceVersion(u) != v1 {
		t.Fatal("empty annotations changed the version")
	}
	u.SetAnnotations(map[string]string{AnnotationForceSync: "1"})
	v2 := CurrentResourceVersion(u)
	if v2 == v1 {
		t.Fatal("an annotation did not change the version")
	}
	u.SetLabels(map[string]string{"l": "v"})
	if CurrentResourceVersion(u) == v2 {
		t.Fatal("a label did not change the version")
	}
	u.SetGeneration(4)
	if CurrentResourceVersion(u)[:2] != "4-" {
		t.Fatal("generation not first")
	}

	if IsSyncedCurrent(u) {
		t.Fatal("synced without a status")
	}
	u.Object["status"] = map[string]any{"syncedResourceVersion": CurrentResourceVersion(u),
		"conditions": []any{map[string]any{"type": "Ready", "status": "True"}}}
	if !IsSyncedCurrent(u) || !IsReadyAndCurrent(u) {
		t.Fatal("current status not recognised")
	}
	u.SetAnnotations(map[string]string{AnnotationForceSync: "2"})
	if IsSyncedCurrent(u) || IsReadyAndCurrent(u) {
		t.Fatal("a stale status read as current after a force-sync")
	}
}

func TestIsPushed(t *testing.T) {
	u := New(PushSecretGVK)
	u.Object["status"] = map[string]any{"syncedPushSecrets": map[string]any{
		"SecretStore/bao": map[string]any{"a/b/password": map[string]any{"match": map[string]any{}}}}}
	if !IsPushed(u, "", "bao", "a/b", "password") {
		t.Fatal("push not found")
	}
	for _, c := range [][4]string{{"", "bao", "a/b", "clouds.yaml"}, {"", "other", "a/b", "password"}, {KindClusterSecretStore, "bao", "a/b", "password"}} {
		if IsPushed(u, c[0], c[1], c[2], c[3]) {
			t.Errorf("%v reported pushed", c)
		}
	}
}

func TestContentHash(t *testing.T) {
	a := ContentHash(map[string][]byte{"password": []byte("x"), "clouds.yaml": []byte("y")})
	if a != ContentHash(map[string][]byte{"clouds.yaml": []byte("y"), "password": []byte("x")}) {
		t.Fatal("not stable across map order")
	}
	if !regexp.MustCompile(`^sha256:[0-9a-f]{64}$`).MatchString(a) {
		t.Fatalf("format %q", a)
	}
	for _, other := range []map[string][]byte{
		{"password": []byte("x!"), "clouds.yaml": []byte("y")},
		{"password": []byte("x")},
		{"passwordx": nil, "clouds.yaml": []byte("y")}, // key/value boundary moved
		{"password": []byte("xclouds.yaml"), "": []byte("y")},
	} {
		if ContentHash(other) == a {
			t.Errorf("collision with %v", other)
		}
	}
	if ForceSyncValue("sha256:ab", "2-cd") != "sha256:ab/2-cd" {
		t.Fatal("force-sync value")
	}
}

func TestStampAnnotations(t *testing.T) {
	scheme := runtime.NewScheme()
	scheme.AddKnownTypeWithName(ExternalSecretGVK, &unstructured.Unstructured{})
	scheme.AddKnownTypeWithName(ExternalSecretGVK.GroupVersion().WithKind("ExternalSecretList"), &unstructured.UnstructuredList{})
	es, _ := ExternalSecret{Name: "es", Namespace: "ns", StoreName: "s", TargetName: "t",
		Annotations: map[string]string{"keep": "me"},
		Data:        []ExternalData{{SecretKey: "k", RemoteKey: "r", Property: "p"}}}.Build()
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(es).Build()
	ctx := context.Background()
	key := types.NamespacedName{Namespace: "ns", Name: "es"}
	changed, err := StampAnnotations(ctx, c, ExternalSecretGVK, key, map[string]string{AnnotationForceSync: "v1"})
	if err != nil || !changed {
		t.Fatalf("first stamp: changed=%v err=%v", changed, err)
	}
	got := New(ExternalSecretGVK)
	if err := c.Get(ctx, key, got); err != nil {
		t.Fatal(err)
	}
	if got.GetAnnotations()[AnnotationForceSync] != "v1" || got.GetAnnotations()["keep"] != "me" {
		t.Fatalf("annotations %v", got.GetAnnotations())
	}
	rv := got.GetResourceVersion()
	changed, err = StampAnnotations(ctx, c, ExternalSecretGVK, key, map[string]string{AnnotationForceSync: "v1"})
	if err != nil || changed {
		t.Fatalf("repeat stamp: changed=%v err=%v", changed, err)
	}
	_ = c.Get(ctx, key, got)
	if got.GetResourceVersion() != rv {
		t.Fatal("a no-op stamp wrote the object")
	}
	if _, err := StampAnnotations(ctx, c, ExternalSecretGVK, types.NamespacedName{Namespace: "ns", Name: "missing"}, map[string]string{"a": "b"}); err == nil {
		t.Fatal("stamping a missing object succeeded")
	}
}
