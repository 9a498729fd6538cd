package orders

import (
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"sigs.k8s.io/controller-runtime/pkg/client"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestReferenceFields(t *testing.T) {
	var o client.ListOptions
	ReferenceFields("", "").ApplyToList(&o)
	if o.FieldSelector != nil {
		t.Fatalf("no reference selects on %v; the cache refuses a selector without requirements", o.FieldSelector)
	}
	o = client.ListOptions{}
	ReferenceFields("workflow", "p1").ApplyToList(&o)
	if got, want := o.FieldSelector.Requirements(), 2; len(got) != want ||
		!o.FieldSelector.Matches(fields.Set{IndexUserRef: "workflow", IndexProjectRef: "p1"}) ||
		o.FieldSelector.Matches(fields.Set{IndexUserRef: "workflow", IndexProjectRef: "p2"}) {
		t.Fatalf("selector %q, want the user and the project", o.FieldSelector)
	}
	o = client.ListOptions{}
	ReferenceFields("", "p1").ApplyToList(&o)
	if got, want := o.FieldSelector.String(), IndexProjectRef+"=p1"; got != want {
		t.Fatalf("selector %q, want %q", got, want)
	}
}

func TestReferenceIndexes(t *testing.T) {
	values := func(obj client.Object, field string) []string {
		for _, ix := range ReferenceIndexes() {
			if ix.Field == field && fmt.Sprintf("%T", ix.Object) == fmt.Sprintf("%T", obj) {
				return ix.Extract(obj)
			}
		}
		t.Fatalf("no index %s for %T", field, obj)
		return nil
	}
	ac := &c5c3v1alpha1.KeystoneApplicationCredential{Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{
		UserRef: c5c3v1alpha1.OrderRef{Name: "u"}, ProjectRef: c5c3v1alpha1.OrderRef{Name: "p"}}}
	if v := values(ac, IndexUserRef); len(v) != 1 || v[0] != "u" {
		t.Errorf("credential userRef: %v", v)
	}
	if v := values(ac, IndexProjectRef); len(v) != 1 || v[0] != "p" {
		t.Errorf("credential projectRef: %v", v)
	}
	ra := &c5c3v1alpha1.KeystoneRoleAssignment{ObjectMeta: metav1.ObjectMeta{Name: "ra"}}
	ra.Spec.UserRef.Name = "u"
	if v := values(ra, IndexUserRef); len(v) != 1 || v[0] != "u" {
		t.Errorf("assignment userRef: %v", v)
	}
	if v := values(ra, IndexProjectRef); v != nil {
		t.Errorf("an empty projectRef is indexed: %v", v)
	}
	ku := &c5c3v1alpha1.KeystoneUser{}
	if v := values(ku, IndexDefaultProjectRef); v != nil {
		t.Errorf("a user without defaultProjectRef is indexed: %v", v)
	}
	ku.Spec.DefaultProjectRef = &c5c3v1alpha1.OrderRef{Name: "p"}
	if v := values(ku, IndexDefaultProjectRef); len(v) != 1 || v[0] != "p" {
		t.Errorf("user defaultProjectRef: %v", v)
	}
}
