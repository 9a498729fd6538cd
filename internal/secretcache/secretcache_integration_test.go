//go:build integration

package secretcache_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/internal/secretcache"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestIntegration_SecretDataOnlyForWhatTheHubWrote runs the hub's manager
// (testenv.NewManager: the hub's Secret transform and client) on a real API
// server. A large Secret without a c5c3.io label, as a tenant creates in a
// namespace the hub does not serve, sits in the cache without its data, yet the
// manager's client reads it whole, also after an edit; a Secret with a c5c3.io
// label keeps its data in the cache; a deleted unlabelled Secret reads NotFound.
func TestIntegration_SecretDataOnlyForWhatTheHubWrote(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Kube: true})
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	direct, err := client.New(st.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := testenv.NewManager(st.Kube.Config, scheme)
	if err != nil {
		t.Fatal(err)
	}
	// A Secret informer, as the hub's Secret watches start one.
	if _, err := mgr.GetCache().GetInformer(ctx, &corev1.Secret{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	for _, ns := range []string{"unrelated", "served"} {
		if err := direct.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatal(err)
		}
	}
	big := bytes.Repeat([]byte("x"), 500<<10)
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "unrelated", Name: "big"},
		Data: map[string][]byte{"blob": big}}
	own := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "served", Name: "delivered",
		Labels: map[string]string{"c5c3.io/owner-kind": "KeystoneUser"}}, Data: map[string][]byte{"password": []byte("pw")}}
	for _, s := range []*corev1.Secret{foreign, own} {
		if err := direct.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}

	cached := func(s *corev1.Secret) *corev1.Secret {
		var got corev1.Secret
		testenv.Eventually(t, 30*time.Second, "the cache holds "+s.Name, func() error {
			if err := mgr.GetCache().Get(ctx, client.ObjectKeyFromObject(s), &got); err != nil {
				return err
			}
			if got.ResourceVersion != s.ResourceVersion {
				return fmt.Errorf("cached at %s, want %s", got.ResourceVersion, s.ResourceVersion)
			}
			return nil
		})
		return &got
	}
	if c := cached(foreign); len(c.Data) != 0 || !secretcache.Stripped(c) {
		t.Errorf("an unlabelled Secret keeps %d data keys in the hub's cache (marked: %v)", len(c.Data), secretcache.Stripped(c))
	}
	if c := cached(own); string(c.Data["password"]) != "pw" || secretcache.Stripped(c) {
		t.Errorf("a Secret with a c5c3.io label lost its data in the cache: %v", c.Data)
	}

	read := func(want []byte) {
		t.Helper()
		var got corev1.Secret
		if err := mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(foreign), &got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Data["blob"], want) || secretcache.Stripped(&got) {
			t.Fatalf("the client read %d bytes (marked: %v), want the Secret's %d", len(got.Data["blob"]), secretcache.Stripped(&got), len(want))
		}
		var list corev1.SecretList
		if err := mgr.GetClient().List(ctx, &list, client.InNamespace("unrelated")); err != nil {
			t.Fatal(err)
		}
		if len(list.Items) != 1 || !bytes.Equal(list.Items[0].Data["blob"], want) {
			t.Fatalf("the client listed %d Secrets without the data", len(list.Items))
		}
	}
	read(big)

	edited := []byte("edited")
	foreign.Data = map[string][]byte{"blob": edited}
	if err := direct.Update(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	cached(foreign)
	read(edited)

	if err := direct.Delete(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "the deleted Secret reads NotFound", func() error {
		var got corev1.Secret
		err := mgr.GetClient().Get(ctx, client.ObjectKeyFromObject(foreign), &got)
		if client.IgnoreNotFound(err) != nil {
			return err
		}
		if err == nil {
			return fmt.Errorf("still read")
		}
		return nil
	})
}
