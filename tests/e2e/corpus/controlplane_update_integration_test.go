//go:build integration

package corpus

import (
	"context"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	v1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/internal/testenv"
)

// warnings records the admission warnings the API server returns.
type warnings struct {
	mu   sync.Mutex
	seen []string
}

func (w *warnings) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seen = append(w.seen, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.seen
	w.seen = nil
	return out
}

// TestIntegration_ControlPlaneUpdateWarns: an update of a ControlPlane that
// consents a tenant namespace for KeystoneServices reaches the validating
// webhook, and the API server returns the documented consent warnings to the
// client (docs/reference/controlplane.md, "Warning: allowedNamespaces is
// admin consent"); an update touching neither list returns none.
func TestIntegration_ControlPlaneUpdateWarns(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Kube: true})
	c := startHubWebhooks(t, st.Kube.Config)
	ctx := context.Background()
	ns := newNamespace(t, c, "controlplane-update")

	rec := &warnings{}
	cfg := rest.CopyConfig(st.Kube.Config)
	cfg.WarningHandlerWithContext = rec
	wc, err := client.New(cfg, client.Options{Scheme: c.Scheme()})
	if err != nil {
		t.Fatal(err)
	}
	cp := &v1.ControlPlane{
		ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: ns},
		Spec: v1.ControlPlaneSpec{
			NamespaceAssignments: []v1.NamespaceAssignment{{Namespace: "tenant-a", AllowedRoles: []v1.KeystoneName{"member"}}},
		},
	}
	cp.Spec.Services.Keystone = &v1.ServiceKeystoneSpec{Mode: v1.KeystoneModeExternal,
		External: &v1.ExternalKeystoneSpec{AuthURL: "https://keystone.example.com:5000/v3"}}
	if err := wc.Create(ctx, cp); err != nil {
		t.Fatal(err)
	}
	if w := rec.take(); len(w) != 0 {
		t.Fatalf("a create without allowedNamespaces warned: %q", w)
	}
	cp.Spec.KORC.ServiceRegistrations.AllowedNamespaces = []string{"platform", "tenant-a"}
	if err := wc.Update(ctx, cp); err != nil {
		t.Fatal(err)
	}
	w := rec.take()
	if len(w) != 2 || !strings.Contains(w[0], "[platform, tenant-a]") || !strings.Contains(w[0], "cloud admin") ||
		!strings.Contains(w[1], `namespace "tenant-a" is a tenant namespace`) {
		t.Fatalf("update consenting tenant-a: warnings %q, want the cloud-admin and the tenant-namespace warning", w)
	}
	cp.Labels = map[string]string{"touched": "true"}
	if err := wc.Update(ctx, cp); err != nil {
		t.Fatal(err)
	}
	if w := rec.take(); len(w) != 0 {
		t.Fatalf("an update touching neither list warned: %q", w)
	}
}
