package apply

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/utils/ptr"
)

// child is an applied K-ORC Project as sent; mutate edits a copy.
func child(mutate func(u *unstructured.Unstructured)) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "openstack.k-orc.cloud/v1alpha1", "kind": "Project",
		"spec": map[string]any{"resource": map[string]any{"description": "reports"}}}}
	u.SetNamespace("openstack")
	u.SetName("kp-tenant-a-reports-project")
	u.SetLabels(owned("KeystoneProject", "tenant-a", "reports", ""))
	u.SetAnnotations(map[string]string{"c5c3.io/grant": "u1/p1"})
	u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "owner-1", Controller: ptr.To(true)}})
	u.SetFinalizers([]string{"c5c3.io/test"})
	if mutate != nil {
		mutate(u)
	}
	return u
}

func digest(t *testing.T, owner string, u *unstructured.Unstructured) Digest {
	t.Helper()
	d, err := DigestOf(owner, u)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestAlreadyApplied(t *testing.T) {
	t.Parallel()
	sent := child(nil)
	d := digest(t, "orderhub-keystoneproject", sent)
	last := &Record{UID: "uid-1", ResourceVersion: "42", Digest: d}
	// cur is the object as that apply answered it: K-ORC had written its
	// status and stamped a label and an annotation of its own.
	cur := func(mutate func(u *unstructured.Unstructured)) *unstructured.Unstructured {
		return child(func(u *unstructured.Unstructured) {
			u.SetUID("uid-1")
			u.SetGeneration(3)
			u.SetResourceVersion("42")
			u.Object["status"] = map[string]any{"id": "p1"}
			l := u.GetLabels()
			l["k-orc.cloud/extra"] = "x"
			u.SetLabels(l)
			a := u.GetAnnotations()
			a["k-orc.cloud/extra"] = "y"
			u.SetAnnotations(a)
			if mutate != nil {
				mutate(u)
			}
		})
	}
	deleting := metav1.Now()
	for _, tc := range []struct {
		name string
		last *Record
		d    Digest
		cur  *unstructured.Unstructured
		want bool
	}{
		{"the cache shows the last apply", last, d, cur(nil), true},
		{"a precondition is not content", last, digest(t, "orderhub-keystoneproject", child(func(u *unstructured.Unstructured) {
			u.SetResourceVersion("7")
			u.SetUID("uid-1")
		})), cur(nil), true},
		// (1) the same desired object applied before by this process
		{"never applied by this process", nil, d, cur(nil), false},
		{"another desired object", last, digest(t, "orderhub-keystoneproject", child(func(u *unstructured.Unstructured) {
			_ = unstructured.SetNestedField(u.Object, "payroll", "spec", "resource", "description")
		})), cur(nil), false},
		{"another field owner", last, digest(t, "orderhub-keystoneuser", sent), cur(nil), false},
		// (2) the same object at the resourceVersion the apply answered
		{"absent", last, d, nil, false},
		{"deleted and created again", last, d, cur(func(u *unstructured.Unstructured) { u.SetUID("uid-2") }), false},
		{"written since (a spec edit, a status)", last, d, cur(func(u *unstructured.Unstructured) {
			u.SetGeneration(4)
			u.SetResourceVersion("43")
		}), false},
		{"the cache lags behind the apply", last, d, cur(func(u *unstructured.Unstructured) { u.SetResourceVersion("41") }), false},
		// (3) every label, annotation, owner reference and finalizer sent, as sent
		{"a label removed", last, d, cur(func(u *unstructured.Unstructured) {
			l := u.GetLabels()
			delete(l, "c5c3.io/owner-name")
			u.SetLabels(l)
		}), false},
		{"a label edited", last, d, cur(func(u *unstructured.Unstructured) {
			l := u.GetLabels()
			l["c5c3.io/owner-name"] = "other"
			u.SetLabels(l)
		}), false},
		{"an annotation edited", last, d, cur(func(u *unstructured.Unstructured) {
			u.SetAnnotations(map[string]string{"c5c3.io/grant": "u1/p2"})
		}), false},
		{"the owner reference removed", last, d, cur(func(u *unstructured.Unstructured) { u.SetOwnerReferences(nil) }), false},
		{"the owner reference no longer the controller", last, d, cur(func(u *unstructured.Unstructured) {
			u.SetOwnerReferences([]metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "o", UID: "owner-1"}})
		}), false},
		{"the finalizer removed", last, d, cur(func(u *unstructured.Unstructured) { u.SetFinalizers(nil) }), false},
		// (4) not being deleted
		{"being deleted", last, d, cur(func(u *unstructured.Unstructured) { u.SetDeletionTimestamp(&deleting) }), false},
	} {
		var curObj metav1.Object
		if tc.cur != nil {
			curObj = tc.cur
		}
		if got := AlreadyApplied(tc.last, tc.d, sent, curObj); got != tc.want {
			t.Errorf("%s: AlreadyApplied = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestMemory(t *testing.T) {
	t.Parallel()
	m := NewMemory(2)
	sent := child(nil)
	read := child(func(u *unstructured.Unstructured) {
		u.SetUID("uid-1")
		u.SetGeneration(1)
	})
	p, skip, err := m.Check("f", sent, read, child(nil))
	if err != nil || skip {
		t.Fatalf("first Check: skip %v, err %v; want an apply", skip, err)
	}
	answer := read.DeepCopy()
	p.Done(answer)
	into := child(nil)
	if _, skip, _ := m.Check("f", sent, read, into); !skip || into.GetUID() != "uid-1" {
		t.Fatalf("second Check of the same apply, the read showing its answer: skip %v, filled UID %q", skip, into.GetUID())
	}
	if _, skip, _ := m.Check("f", sent, nil, child(nil)); skip {
		t.Fatal("Check without a read object skipped")
	}
	// Two more children: the third record clears the memory first.
	for _, name := range []string{"b", "c"} {
		s := child(func(u *unstructured.Unstructured) { u.SetName(name) })
		p, _, _ := m.Check("f", s, nil, child(nil))
		p.Done(answer)
	}
	if n := m.Len(); n != 1 {
		t.Fatalf("Len = %d after a third record over a limit of 2, want 1 (cleared, then the third)", n)
	}
	if _, skip, _ := m.Check("f", sent, read, child(nil)); skip {
		t.Fatal("a cleared record still skipped")
	}
	c := m.Counts()
	if c[CountKey{"Project", OutcomeApplied}] != 3 || c[CountKey{"Project", OutcomeSkipped}] != 1 {
		t.Fatalf("Counts = %v, want 3 applied and 1 skipped", c)
	}
}

func TestFill(t *testing.T) {
	t.Parallel()
	dst := child(nil)
	src := child(func(u *unstructured.Unstructured) {
		u.Object["status"] = map[string]any{"id": "p1"}
		delete(u.Object, "apiVersion")
		delete(u.Object, "kind")
	})
	if err := Fill(dst, src); err != nil {
		t.Fatal(err)
	}
	if id, _, _ := unstructured.NestedString(dst.Object, "status", "id"); id != "p1" || dst.GetKind() != "Project" {
		t.Fatalf("Fill: status id %q, kind %q; want p1, Project", id, dst.GetKind())
	}
	if err := Fill(dst, &metav1.PartialObjectMetadata{}); err == nil {
		t.Fatal("Fill from another type: no error")
	}
}
