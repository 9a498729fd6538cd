package lifecycle

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

func TestConditionEvents(t *testing.T) {
	t.Parallel()
	changed := []metav1.Condition{
		{Type: "UserReady", Status: metav1.ConditionTrue, Reason: "UserReady", Message: "user is ready"},
		{Type: "Ready", Status: metav1.ConditionFalse, Reason: "NotAllReady", Message: "waiting"},
		{Type: "Odd", Status: metav1.ConditionUnknown, Reason: "Unknown", Message: ""},
	}
	want := []ConditionEvent{
		{Type: corev1.EventTypeNormal, Reason: "UserReady", Note: "UserReady=True: user is ready"},
		{Type: corev1.EventTypeWarning, Reason: "NotAllReady", Note: "Ready=False: waiting"},
		{Type: corev1.EventTypeWarning, Reason: "Unknown", Note: "Odd=Unknown: "},
	}
	if got := ConditionEvents(changed); !reflect.DeepEqual(got, want) {
		t.Errorf("ConditionEvents =\n%+v\nwant\n%+v", got, want)
	}
	if got := ConditionEvents(nil); len(got) != 0 {
		t.Errorf("ConditionEvents(nil) = %+v, want none", got)
	}
}

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
