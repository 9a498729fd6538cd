package eso

import (
	"encoding/base64"
	"reflect"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func nested(t *testing.T, u *unstructured.Unstructured, path ...string) any {
	t.Helper()
	v, found, err := unstructured.NestedFieldNoCopy(u.Object, path...)
	if err != nil || !found {
		t.Fatalf("%v: found=%v err=%v in %v", path, found, err, u.Object)
	}
	return v
}

func TestSecretStoreBuild(t *testing.T) {
	u, err := SecretStore{Name: "bao", Namespace: "ns", Server: "https://openbao:8200", Mount: "kv-v2",
		TokenSecretName: "bao-token", TokenSecretKey: "token", CABundle: []byte("PEM"),
		Labels: map[string]string{"a": "b"}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if u.GroupVersionKind() != SecretStoreGVK || u.GetAPIVersion() != "external-secrets.io/v1" {
		t.Fatalf("gvk %v", u.GroupVersionKind())
	}
	want := map[string]any{
		"server": "https://openbao:8200", "path": "kv-v2", "version": "v2",
		"caBundle": base64.StdEncoding.EncodeToString([]byte("PEM")),
		"auth":     map[string]any{"tokenSecretRef": map[string]any{"name": "bao-token", "key": "token"}},
	}
	if got := nested(t, u, "spec", "provider", "vault"); !reflect.DeepEqual(got, want) {
		t.Fatalf("vault provider\n got %v\nwant %v", got, want)
	}
	if u.GetLabels()["a"] != "b" || u.GetName() != "bao" || u.GetNamespace() != "ns" {
		t.Fatalf("metadata %v", u.Object["metadata"])
	}
	for name, s := range map[string]SecretStore{
		"no server":  {Name: "x", Namespace: "n", Mount: "m", TokenSecretName: "t", TokenSecretKey: "k"},
		"bad server": {Name: "x", Namespace: "n", Server: "openbao:8200", Mount: "m", TokenSecretName: "t", TokenSecretKey: "k"},
		"no mount":   {Name: "x", Namespace: "n", Server: "http://o", TokenSecretName: "t", TokenSecretKey: "k"},
		"no token":   {Name: "x", Namespace: "n", Server: "http://o", Mount: "m"},
		"both auths": {Name: "x", Namespace: "n", Server: "http://o", Mount: "m", TokenSecretName: "t", TokenSecretKey: "k",
			Kubernetes: &KubernetesAuth{MountPath: "kubernetes", Role: "r", ServiceAccount: "sa"}},
		"no role": {Name: "x", Namespace: "n", Server: "http://o", Mount: "m",
			Kubernetes: &KubernetesAuth{MountPath: "kubernetes", ServiceAccount: "sa"}},
		"no service account": {Name: "x", Namespace: "n", Server: "http://o", Mount: "m",
			Kubernetes: &KubernetesAuth{MountPath: "kubernetes", Role: "r"}},
		"no auth mount": {Name: "x", Namespace: "n", Server: "http://o", Mount: "m",
			Kubernetes: &KubernetesAuth{Role: "r", ServiceAccount: "sa"}},
	} {
		if _, err := s.Build(); err == nil {
			t.Errorf("%s: built", name)
		}
	}
}

func TestSecretStoreBuildKubernetesAuth(t *testing.T) {
	u, err := SecretStore{Name: "bao", Namespace: "ns", Server: "http://127.0.0.1:8200", Mount: "secret",
		Kubernetes: &KubernetesAuth{MountPath: "kubernetes", Role: "eso-tenant", ServiceAccount: "eso-tenant-auth"}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"kubernetes": map[string]any{"mountPath": "kubernetes", "role": "eso-tenant",
		"serviceAccountRef": map[string]any{"name": "eso-tenant-auth"}}}
	if got := nested(t, u, "spec", "provider", "vault", "auth"); !reflect.DeepEqual(got, want) {
		t.Fatalf("auth\n got %v\nwant %v", got, want)
	}
}

func TestPushSecretBuild(t *testing.T) {
	u, err := PushSecret{Name: "push", Namespace: "ns", StoreName: "bao", SourceSecretName: "src",
		Annotations: map[string]string{AnnotationContentHash: "sha256:x"},
		Data: []PushData{{SecretKey: "password", RemoteKey: "a/b", Property: "password"},
			{SecretKey: "clouds.yaml", RemoteKey: "a/b", Property: "clouds.yaml"}}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if u.GroupVersionKind() != PushSecretGVK || u.GetAPIVersion() != "external-secrets.io/v1alpha1" {
		t.Fatalf("gvk %v", u.GroupVersionKind())
	}
	spec := nested(t, u, "spec").(map[string]any)
	if spec["deletionPolicy"] != "Delete" || spec["updatePolicy"] != "Replace" || spec["refreshInterval"] != "1h0m0s" {
		t.Fatalf("spec %v", spec)
	}
	if got := spec["secretStoreRefs"]; !reflect.DeepEqual(got, []any{map[string]any{"name": "bao", "kind": "SecretStore"}}) {
		t.Fatalf("secretStoreRefs %v", got)
	}
	if got := nested(t, u, "spec", "selector", "secret", "name"); got != "src" {
		t.Fatalf("selector %v", got)
	}
	d0 := spec["data"].([]any)[1].(map[string]any)["match"]
	want := map[string]any{"secretKey": "clouds.yaml", "remoteRef": map[string]any{"remoteKey": "a/b", "property": "clouds.yaml"}}
	if !reflect.DeepEqual(d0, want) {
		t.Fatalf("data[1].match %v", d0)
	}
	if u.GetAnnotations()[AnnotationContentHash] != "sha256:x" {
		t.Fatal("annotations not set")
	}
	for name, p := range map[string]PushSecret{
		"no data":     {Name: "x", Namespace: "n", StoreName: "s", SourceSecretName: "src"},
		"no property": {Name: "x", Namespace: "n", StoreName: "s", SourceSecretName: "src", Data: []PushData{{SecretKey: "k", RemoteKey: "r"}}},
		"no source":   {Name: "x", Namespace: "n", StoreName: "s", Data: []PushData{{SecretKey: "k", RemoteKey: "r", Property: "p"}}},
	} {
		if _, err := p.Build(); err == nil {
			t.Errorf("%s: built", name)
		}
	}
}

func TestExternalSecretBuild(t *testing.T) {
	e := ExternalSecret{Name: "pull", Namespace: "ns", StoreName: "bao", StoreKind: KindClusterSecretStore,
		TargetName: "workflow-credentials", RefreshInterval: 5 * time.Minute,
		Data: []ExternalData{{SecretKey: "password", RemoteKey: "a/b", Property: "password"}}}
	u, err := e.Build()
	if err != nil {
		t.Fatal(err)
	}
	if u.GroupVersionKind() != ExternalSecretGVK {
		t.Fatalf("gvk %v", u.GroupVersionKind())
	}
	spec := nested(t, u, "spec").(map[string]any)
	if spec["refreshInterval"] != "5m0s" {
		t.Fatalf("refreshInterval %v", spec["refreshInterval"])
	}
	if !reflect.DeepEqual(spec["secretStoreRef"], map[string]any{"name": "bao", "kind": "ClusterSecretStore"}) {
		t.Fatalf("secretStoreRef %v", spec["secretStoreRef"])
	}
	if !reflect.DeepEqual(spec["target"], map[string]any{"name": "workflow-credentials", "creationPolicy": "Owner"}) {
		t.Fatalf("target %v", spec["target"])
	}
	want := []any{map[string]any{"secretKey": "password", "remoteRef": map[string]any{"key": "a/b", "property": "password"}}}
	if !reflect.DeepEqual(spec["data"], want) {
		t.Fatalf("data %v", spec["data"])
	}

	e.Template = &Template{Labels: map[string]string{"l": "v"}}
	u, err = e.Build()
	if err != nil {
		t.Fatal(err)
	}
	tmpl := nested(t, u, "spec", "target", "template").(map[string]any)
	if !reflect.DeepEqual(tmpl, map[string]any{"engineVersion": "v2", "metadata": map[string]any{"labels": map[string]any{"l": "v"}}}) {
		t.Fatalf("template %v", tmpl)
	}
	if _, err := (ExternalSecret{Name: "x", Namespace: "n", StoreName: "s", Data: e.Data}).Build(); err == nil {
		t.Error("built without a target name")
	}
}

// Built objects are plain JSON values: a deep copy (what the client does)
// must not panic on any of them.
func TestBuiltObjectsDeepCopy(t *testing.T) {
	ss, _ := SecretStore{Name: "a", Namespace: "n", Server: "http://x", Mount: "m", TokenSecretName: "t", TokenSecretKey: "k"}.Build()
	ps, _ := PushSecret{Name: "a", Namespace: "n", StoreName: "s", SourceSecretName: "src", Data: []PushData{{SecretKey: "k", RemoteKey: "r", Property: "p"}}}.Build()
	es, _ := ExternalSecret{Name: "a", Namespace: "n", StoreName: "s", TargetName: "t", Template: &Template{Type: "Opaque", Annotations: map[string]string{"x": "y"}}, Data: []ExternalData{{SecretKey: "k", RemoteKey: "r", Property: "p"}}}.Build()
	for _, u := range []*unstructured.Unstructured{ss, ps, es} {
		if !reflect.DeepEqual(u.DeepCopy().Object, u.Object) {
			t.Fatalf("deep copy differs for %s", u.GetKind())
		}
	}
}
