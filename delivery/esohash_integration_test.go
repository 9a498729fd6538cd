//go:build integration

package delivery_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/c5c3/orderhub/delivery/eso"
	"github.com/c5c3/orderhub/delivery/openbao"
)

// eso.CurrentResourceVersion is a copy of the pinned ESO's
// status.syncedResourceVersion computation (delivery/eso/status.go); ESO's Go
// packages do not build with orderhub's controller-runtime, so this test
// guards the copy: after each sync the real ESO records, the value ESO wrote
// equals the copy's, for labels and several annotations (map order, quoting,
// non-ASCII), and again after an annotation change. When the pinned ESO
// computes it differently the test fails naming both values.
func TestIntegration_ESOResourceVersionMatchesCopy(t *testing.T) {
	ctx := context.Background()
	c := kubeClient(t)
	ns := namespace(t, c, "esohash")
	store := secretStore(t, c, ns)
	path, err := openbao.ServiceAccountCredentialsPath(ns, "hash")
	if err != nil {
		t.Fatal(err)
	}
	data := map[string][]byte{openbao.PropertyPassword: []byte("p1"), openbao.PropertyCloudsYAML: []byte("clouds: {}\n")}
	mustCreate(t, c, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "hash-source", Namespace: ns}, Data: data})
	ps, err := eso.PushSecret{Name: "hash", Namespace: ns, StoreName: store, SourceSecretName: "hash-source",
		Labels: map[string]string{"z.example.com/last": "1", "app.kubernetes.io/name": "hash"},
		Annotations: map[string]string{eso.AnnotationContentHash: eso.ContentHash(data),
			"example.com/quoted": `a "b" {c}`, "example.com/text": "wért mit Leerzeichen, ünïcode", "a": ""},
		Data: []eso.PushData{{SecretKey: openbao.PropertyPassword, RemoteKey: path, Property: openbao.PropertyPassword}}}.Build()
	if err != nil {
		t.Fatal(err)
	}
	if err := eso.Apply(ctx, c, fieldOwner, ps); err != nil {
		t.Fatal(err)
	}
	first := waitSynced(t, c, ps, "")
	assertSameVersion(t, first)

	changed, err := eso.StampAnnotations(ctx, c, eso.PushSecretGVK, client.ObjectKeyFromObject(ps),
		map[string]string{eso.AnnotationForceSync: "second"})
	if err != nil || !changed {
		t.Fatalf("stamp an annotation: changed=%v err=%v", changed, err)
	}
	assertSameVersion(t, waitSynced(t, c, ps, eso.SyncedResourceVersion(first)))
}

// waitSynced waits until ESO reports Ready=True and a
// status.syncedResourceVersion other than before for the object's current
// generation, judged without the copied hash, and returns the object.
func waitSynced(t *testing.T, c client.Client, obj client.Object, before string) *unstructured.Unstructured {
	t.Helper()
	got := eso.New(eso.PushSecretGVK)
	eventually(t, 2*time.Minute, "PushSecret synced anew", func() error {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), got); err != nil {
			return err
		}
		s := eso.SyncedResourceVersion(got)
		if !eso.ReadyCondition(got).True() || s == before ||
			!strings.HasPrefix(s, fmt.Sprintf("%d-", got.GetGeneration())) {
			return fmt.Errorf("Ready %+v, synced %q (before %q)", eso.ReadyCondition(got), s, before)
		}
		return nil
	})
	return got
}

func assertSameVersion(t *testing.T, u *unstructured.Unstructured) {
	t.Helper()
	if got, want := eso.SyncedResourceVersion(u), eso.CurrentResourceVersion(u); got != want {
		t.Fatalf("the pinned ESO wrote syncedResourceVersion %q, delivery/eso computes %q for labels %v annotations %v: "+
			"update eso.CurrentResourceVersion to ESO's pkg/controllers/util.GetResourceVersion", got, want,
			u.GetLabels(), u.GetAnnotations())
	}
}
