//go:build integration

package identity

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/serializer"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// loadSamples decodes every object in config/samples/identity/*.yaml.
func loadSamples(t testing.TB) []client.Object { return loadSamplesIn(t, "config/samples/identity") }

// loadSamplesIn decodes every object in dir/*.yaml, dir relative to the repository root.
func loadSamplesIn(t testing.TB, dir string) []client.Object {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, dir, "*.yaml"))
	dec := serializer.NewCodecFactory(testScheme).UniversalDeserializer()
	var out []client.Object
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range strings.Split(string(b), "\n---\n") {
			if !strings.Contains(doc, "kind:") {
				continue
			}
			o, _, err := dec.Decode([]byte(doc), nil, nil)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, o.(client.Object))
		}
	}
	return out
}

// The Cinder set (config/samples/identity/cinder.yaml) becomes Ready, and once Ready stays without
// writes or failed logins over several forced resyncs.
func TestCinderSetReadyAndSteady(t *testing.T) {
	objs := loadSamples(t)
	var kobjs []kobj
	for _, o := range objs {
		o.SetNamespace(testNS)
		if k, ok := o.(kobj); ok {
			kobjs = append(kobjs, k)
		}
	}
	if len(kobjs) != 11 {
		t.Fatalf("%d identity resources in the samples, want the 11 of the Cinder set", len(kobjs))
	}
	mustCreate(t, objs...)
	for _, o := range kobjs {
		waitReady(t, o)
	}
	var user *kv1.User
	for _, o := range kobjs {
		if u, ok := o.(*kv1.User); ok {
			user = u
		}
	}
	if err := tryLogin(user.Status.UserID, "example-cinder-password"); err != nil {
		t.Fatalf("login as cinder: %v", err)
	}
	writes := proxy.writes()
	start := proxy.probeCount(user.Status.UserID)
	eventually(t, "three forced resyncs", func() (bool, string) {
		n := proxy.probeCount(user.Status.UserID) - start
		return n >= 3, fmt.Sprintf("%d probes", n)
	})
	if w := proxy.writes() - writes; w != 0 {
		t.Errorf("steady state: %d writes to Keystone, want 0 (%v)", w, proxy.snapshot())
	}
	if n := failedAuthCount(t, user.Status.UserID); n != 0 {
		t.Errorf("steady state: failed_auth_count = %d, want 0", n)
	}
	for _, o := range kobjs {
		_ = k8s.Delete(context.Background(), o)
	}
}
