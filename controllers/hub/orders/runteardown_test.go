package orders

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
)

// teardownFixture is a KeystoneProject being deleted with two phases of
// children in the plane's namespace: Secrets, then ConfigMaps.
type teardownFixture struct {
	c        client.Client
	events   *events.FakeRecorder
	p        *Pass[testObj]
	written  [][]metav1.Condition
	released int
}

func newTeardown(t *testing.T, cluster string, plane bool) *teardownFixture {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, c5c3v1alpha1.AddToScheme} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	kp := project(testFinalizer)
	kp.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	ord := Order{Kind: KindKeystoneProject, Cluster: cluster, Namespace: kp.Namespace, Name: kp.Name}
	lbl := ChildLabels(ord)
	objs := []client.Object{kp,
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "openstack", Name: "s", Labels: lbl}},
		&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "openstack", Name: "m", Labels: lbl}}}
	f := &teardownFixture{events: events.NewFakeRecorder(10)}
	f.c = fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).
		WithIndex(&corev1.Secret{}, IndexOwner, ownerOf).WithIndex(&corev1.ConfigMap{}, IndexOwner, ownerOf).Build()
	var obj c5c3v1alpha1.KeystoneProject
	if err := f.c.Get(context.Background(), client.ObjectKeyFromObject(kp), &obj); err != nil {
		t.Fatal(err)
	}
	f.p = &Pass[testObj]{Order: ord, Client: f.c, Obj: &obj, PlaneNamespace: "openstack"}
	if plane {
		f.p.Plane = &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: "openstack", Name: "cp"}}
	}
	return f
}

func (f *teardownFixture) spec() Teardown[testObj] {
	return Teardown[testObj]{Finalizer: testFinalizer, WaitRequeue: 5 * time.Second,
		Phases: []Phase[testObj]{{Sets: []ChildSet{secrets}},
			{Sets: []ChildSet{{List: func() client.ObjectList { return &corev1.ConfigMapList{} }}}}},
		Waiting: func(_ *Pass[testObj], left int, _ error) []metav1.Condition {
			return []metav1.Condition{{Type: "Deleting", Status: metav1.ConditionFalse, Reason: "Deleting", Message: strings.Repeat("x", left)}}
		},
		Release: func(context.Context, *Pass[testObj]) error { f.released++; return nil }}
}

func (f *teardownFixture) io() TeardownIO[testObj] {
	return TeardownIO[testObj]{List: OwnerLister(f.c, ChildLabels(f.p.Order)), Local: f.c, Recorder: f.events,
		Write: func(_ context.Context, p *Pass[testObj], conds []metav1.Condition) error {
			if p != f.p {
				return errors.New("a status write for another pass")
			}
			f.written = append(f.written, conds)
			return nil
		}}
}

// exists reports whether obj (by key) is still stored.
func (f *teardownFixture) exists(t *testing.T, obj client.Object) bool {
	t.Helper()
	err := f.c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

var (
	phase1 = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "openstack", Name: "s"}}
	phase2 = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "openstack", Name: "m"}}
)

// TestRunTeardown_PhasesInOrder: with the plane, a later phase waits until
// the earlier one lists nothing; the order is released, its claims freed,
// only when nothing is listed.
func TestRunTeardown_PhasesInOrder(t *testing.T) {
	t.Parallel()
	f := newTeardown(t, "", true)
	ctx := context.Background()
	res, err := RunTeardown(ctx, f.spec(), f.io(), f.p)
	if err != nil || res.RequeueAfter != 5*time.Second {
		t.Fatalf("first pass = %+v, %v; want a wait of 5s", res, err)
	}
	if f.exists(t, phase1.DeepCopy()) || !f.exists(t, phase2.DeepCopy()) {
		t.Fatal("first pass: want the first phase deleted and the second kept")
	}
	if len(f.written) != 1 || f.written[0][0].Message != "x" || f.released != 0 {
		t.Fatalf("first pass wrote %v and released %d times; want the waiting condition for 1 child, no release", f.written, f.released)
	}
	if _, err := RunTeardown(ctx, f.spec(), f.io(), f.p); err != nil || f.exists(t, phase2.DeepCopy()) || f.released != 0 {
		t.Fatalf("second pass: %v, second phase exists %v, released %d; want it deleted and no release", err, f.exists(t, phase2.DeepCopy()), f.released)
	}
	if res, err := RunTeardown(ctx, f.spec(), f.io(), f.p); err != nil || res.RequeueAfter != 0 || f.released != 1 {
		t.Fatalf("third pass = %+v, %v, released %d; want the release", res, err, f.released)
	}
	if f.exists(t, project()) {
		t.Error("the order still exists: its finalizer was not removed")
	}
	if len(f.events.Events) != 0 {
		t.Errorf("events %v; want none with the plane present", <-f.events.Events)
	}
}

// TestRunTeardown_PlaneGoneFailsOpen: without the plane one pass deletes
// every phase, releases and records TeardownFailOpen, except for an order
// on a target cluster, whose events the management cluster cannot hold.
func TestRunTeardown_PlaneGoneFailsOpen(t *testing.T) {
	t.Parallel()
	for _, cluster := range []string{"", "edge-1"} {
		f := newTeardown(t, cluster, false)
		if res, err := RunTeardown(context.Background(), f.spec(), f.io(), f.p); err != nil || res.RequeueAfter != 0 {
			t.Fatalf("cluster %q: %+v, %v; want a release", cluster, res, err)
		}
		if f.exists(t, phase1.DeepCopy()) || f.exists(t, phase2.DeepCopy()) || f.released != 1 || f.exists(t, project()) {
			t.Fatalf("cluster %q: want every child deleted, one release and the order gone", cluster)
		}
		wantEvents := 1
		if cluster != "" {
			wantEvents = 0
		}
		if len(f.events.Events) != wantEvents {
			t.Fatalf("cluster %q: %d events, want %d", cluster, len(f.events.Events), wantEvents)
		}
		if wantEvents == 1 {
			if e := <-f.events.Events; !strings.Contains(e, EventTeardownFailOpen) || !strings.Contains(e, "2 children") {
				t.Errorf("event %q; want %s naming 2 children", e, EventTeardownFailOpen)
			}
		}
	}
}

// TestRunTeardown_HoldAndBefore: a hold writes its conditions through the
// pass and deletes nothing; a failing Before writes its conditions and
// deletes nothing; neither releases.
func TestRunTeardown_HoldAndBefore(t *testing.T) {
	t.Parallel()
	cond := []metav1.Condition{{Type: "Ready", Status: metav1.ConditionFalse, Reason: "Held"}}
	f := newTeardown(t, "edge-1", true)
	td := f.spec()
	td.Hold = func(context.Context, *Pass[testObj]) (Hold, error) {
		return Hold{Holding: true, Conditions: cond, Requeue: time.Hour}, nil
	}
	res, err := RunTeardown(context.Background(), td, f.io(), f.p)
	if err != nil || res.RequeueAfter != RequeueTarget {
		t.Fatalf("held = %+v, %v; want the hold's requeue capped on a target cluster (%s)", res, err, RequeueTarget)
	}
	if !f.exists(t, phase1.DeepCopy()) || len(f.written) != 1 || f.written[0][0].Reason != "Held" {
		t.Fatalf("held: want nothing deleted and the hold's condition written, wrote %v", f.written)
	}
	td = f.spec()
	refused := errors.New("keystone refused")
	td.Before = func(context.Context, *Pass[testObj]) ([]metav1.Condition, error) { return cond, refused }
	if _, err := RunTeardown(context.Background(), td, f.io(), f.p); !errors.Is(err, refused) {
		t.Fatalf("Before failed: %v; want its error", err)
	}
	if !f.exists(t, phase1.DeepCopy()) || len(f.written) != 2 || f.released != 0 {
		t.Fatal("Before failed: want nothing deleted, its condition written and no release")
	}
}
