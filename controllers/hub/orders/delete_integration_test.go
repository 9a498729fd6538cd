//go:build integration

package orders

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestDeleteIfExists_HeldMetadataOfKindOutsideScheme: the teardown deletes
// an order's PushSecret through its metadata (the hub's scheme holds no ESO
// types) while a finalizer keeps it. The delete reports no error, and the
// apiserver shows the PushSecret being deleted; once the finalizer goes and
// it is gone, deleting it again is no error either.
func TestDeleteIfExists_HeldMetadataOfKindOutsideScheme(t *testing.T) {
	ctx := context.Background()
	stack, err := testenv.Start(ctx, testenv.Options{Kube: true, ESO: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stack.Stop() })
	scheme, err := testenv.HubScheme()
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(stack.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	const ns, name, hold = "delete-held", "backup", "test.c5c3.io/hold"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	ps := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{
		"secretStoreRefs": []any{map[string]any{"name": "none", "kind": "SecretStore"}},
		"selector":        map[string]any{"secret": map[string]any{"name": "none"}},
	}}}
	ps.SetGroupVersionKind(eso.PushSecretGVK)
	ps.SetNamespace(ns)
	ps.SetName(name)
	ps.SetFinalizers([]string{hold})
	if err := c.Create(ctx, ps); err != nil {
		t.Fatal(err)
	}

	meta := eso.NewMetadata(eso.PushSecretGVK)
	meta.Namespace, meta.Name = ns, name
	if err := DeleteIfExists(ctx, c, meta); err != nil {
		t.Fatalf("delete a PushSecret a finalizer holds, through its metadata: %v", err)
	}
	got := &unstructured.Unstructured{}
	got.SetGroupVersionKind(eso.PushSecretGVK)
	if err := c.Get(ctx, client.ObjectKeyFromObject(ps), got); err != nil {
		t.Fatal(err)
	}
	if got.GetDeletionTimestamp() == nil {
		t.Fatal("the apiserver shows the PushSecret not being deleted")
	}

	// A merge patch, not an update: ESO writes the PushSecret's status
	// meanwhile, which would make an update of the read object conflict.
	if err := c.Patch(ctx, got, client.RawPatch(types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`))); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 30*time.Second, "the PushSecret is gone", func() error {
		switch err := c.Get(ctx, client.ObjectKeyFromObject(ps), got); {
		case apierrors.IsNotFound(err):
			return nil
		case err != nil:
			return err
		}
		return fmt.Errorf("still there, finalizers %v", got.GetFinalizers())
	})
	if err := DeleteIfExists(ctx, c, meta); err != nil {
		t.Fatalf("delete a PushSecret that is gone: %v", err)
	}
}
