package lifecycle

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// A pass that changes nothing sends no status patch, with or without the
// optimistic lock; a pass that changes something sends one.
func TestPatchStatusSkipsNoChange(t *testing.T) {
	t.Parallel()
	s := runtime.NewScheme()
	if err := c5c3v1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	kp := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant-a", Name: "p"}}
	patches := 0
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(kp).WithStatusSubresource(kp).
		WithInterceptorFuncs(interceptor.Funcs{SubResourcePatch: func(ctx context.Context, c client.Client, sub string, obj client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
			patches++
			return c.SubResource(sub).Patch(ctx, obj, p, opts...)
		}}).Build()
	ctx := context.Background()
	for _, lock := range []bool{false, true} {
		var cur c5c3v1alpha1.KeystoneProject
		if err := c.Get(ctx, client.ObjectKeyFromObject(kp), &cur); err != nil {
			t.Fatal(err)
		}
		before := patches
		if err := PatchStatus(ctx, c, &cur, cur.DeepCopy(), "KeystoneProject", lock); err != nil {
			t.Fatal(err)
		}
		if patches != before {
			t.Fatalf("optimistic lock %v: an unchanged status sent %d patches, want none", lock, patches-before)
		}
		base := cur.DeepCopy()
		cur.Status.ProjectID = fmt.Sprintf("id-%v", lock)
		if err := PatchStatus(ctx, c, &cur, base, "KeystoneProject", lock); err != nil {
			t.Fatal(err)
		}
		var got c5c3v1alpha1.KeystoneProject
		if err := c.Get(ctx, client.ObjectKeyFromObject(kp), &got); err != nil {
			t.Fatal(err)
		}
		if patches != before+1 || got.Status.ProjectID != cur.Status.ProjectID {
			t.Fatalf("optimistic lock %v: a changed status sent %d patches (want 1), stored projectID %q", lock, patches-before, got.Status.ProjectID)
		}
	}
}

// Write records the events of conditions.Events against the conditions
// stored before it: a wait that passes to True records the Normal event of
// Ready alone, and the same write again records nothing.
func TestWriteRecordsReadyEvents(t *testing.T) {
	t.Parallel()
	s := runtime.NewScheme()
	if err := c5c3v1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	waiting := []metav1.Condition{
		{Type: c5c3v1alpha1.ConditionProjectReady, Status: metav1.ConditionFalse, Reason: c5c3v1alpha1.ReasonWaitingForKeystoneProject, Message: "w"},
		{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionFalse, Reason: c5c3v1alpha1.ReasonNotAllReady, Message: "w"},
	}
	done := []metav1.Condition{
		{Type: c5c3v1alpha1.ConditionProjectReady, Status: metav1.ConditionTrue, Reason: c5c3v1alpha1.ReasonProjectProvisioned, Message: "p"},
		{Type: c5c3v1alpha1.ConditionReady, Status: metav1.ConditionTrue, Reason: c5c3v1alpha1.ReasonAllReady, Message: "all"},
	}
	kp := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Namespace: "tenant-a", Name: "p"}}
	kp.Status.Conditions = waiting
	c := fake.NewClientBuilder().WithScheme(s).WithObjects(kp).WithStatusSubresource(kp).Build()
	rec := events.NewFakeRecorder(8)
	w := StatusWriter[*c5c3v1alpha1.KeystoneProject, c5c3v1alpha1.KeystoneProjectStatus]{Kind: "KeystoneProject", Recorder: rec,
		Fields: func(o *c5c3v1alpha1.KeystoneProject) (*c5c3v1alpha1.KeystoneProjectStatus, *[]metav1.Condition, *int64) {
			return &o.Status, &o.Status.Conditions, &o.Status.ObservedGeneration
		}}
	ctx := context.Background()
	for i, want := range []int{1, 0} {
		var cur c5c3v1alpha1.KeystoneProject
		if err := c.Get(ctx, client.ObjectKeyFromObject(kp), &cur); err != nil {
			t.Fatal(err)
		}
		if err := w.Write(ctx, c, &cur, StatusUpdate[c5c3v1alpha1.KeystoneProjectStatus]{Conditions: done, Now: metav1.Now()}); err != nil {
			t.Fatal(err)
		}
		if got := len(rec.Events); got != want {
			t.Fatalf("write %d recorded %d events, want %d", i, got, want)
		}
		if want == 1 {
			if e := <-rec.Events; e != "Normal AllReady Ready=True: all" {
				t.Errorf("event %q", e)
			}
		}
	}
}
