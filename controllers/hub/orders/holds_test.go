package orders

import (
	"context"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/event"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestHeldBy(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	if err := c5c3v1alpha1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	ac := func(ns, name, user, project string) *c5c3v1alpha1.KeystoneApplicationCredential {
		return &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
			Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{UserRef: c5c3v1alpha1.OrderRef{Name: user},
				ProjectRef: c5c3v1alpha1.OrderRef{Name: project}}}
	}
	b := fake.NewClientBuilder().WithScheme(scheme)
	for _, ix := range ReferenceIndexes() {
		b = b.WithIndex(ix.Object, ix.Field, ix.Extract)
	}
	c := b.WithObjects(
		ac("tenant-a", "z-cred", "workflow", "p1"),
		ac("tenant-a", "a-cred", "workflow", "p2"),
		ac("tenant-a", "other", "someone", "p1"),
		ac("tenant-b", "elsewhere", "workflow", "p1"),
	).Build()
	for _, tc := range []struct {
		name string
		refs CredentialRefs
		want string
	}{
		{"the user is held by every credential of it, sorted", CredentialRefs{User: "workflow"}, "a-cred,z-cred"},
		{"the project by every credential scoped to it", CredentialRefs{Project: "p1"}, "other,z-cred"},
		{"an assignment by the credentials of its user and project", CredentialRefs{User: "workflow", Project: "p2"}, "a-cred"},
		{"nothing references an unknown user", CredentialRefs{User: "nobody"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, err := HeldBy(context.Background(), c, "tenant-a", tc.refs)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(h, ","); got != tc.want {
				t.Fatalf("HeldBy = %q, want %q", got, tc.want)
			}
			if h.Holding() != (tc.want != "") {
				t.Fatalf("Holding() = %v for %q", h.Holding(), tc.want)
			}
		})
	}
	msg := Held{"a-cred"}.Message(KindKeystoneUser, "workflow")
	for _, want := range []string{"KeystoneUser workflow", "a-cred", "delete the credential order first"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q does not name %q", msg, want)
		}
	}
}

// A credential order's status write wakes nothing; its deletion start and a
// spec change do.
func TestHoldChanged(t *testing.T) {
	t.Parallel()
	base := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant-a", Name: "cred", Generation: 1}}
	status := base.DeepCopy()
	status.Status.Conditions = []metav1.Condition{{Type: "Ready", Status: metav1.ConditionTrue}}
	deleting := base.DeepCopy()
	now := metav1.Now()
	deleting.DeletionTimestamp = &now
	spec := base.DeepCopy()
	spec.Generation = 2
	for _, tc := range []struct {
		name string
		cur  *c5c3v1alpha1.KeystoneApplicationCredential
		want bool
	}{{"status only", status, false}, {"deletion starts", deleting, true}, {"spec changed", spec, true}} {
		if got := HoldChanged.Update(event.UpdateEvent{ObjectOld: base, ObjectNew: tc.cur}); got != tc.want {
			t.Errorf("%s: HoldChanged = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !HoldChanged.Create(event.CreateEvent{Object: base}) || !HoldChanged.Delete(event.DeleteEvent{Object: base}) {
		t.Error("a credential order's creation and disappearance must pass")
	}
}
