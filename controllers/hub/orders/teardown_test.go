package orders

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

var secrets = ChildSet{List: func() client.ObjectList { return &corev1.SecretList{} }}

func TestDecideTeardown(t *testing.T) {
	t.Parallel()
	held := Held{"cred"}
	tests := []struct {
		name   string
		fin    bool
		held   Held
		plane  bool
		left   int
		failed bool
		want   TeardownStep
	}{
		{"no finalizer", false, held, true, 3, false, TeardownNone},
		{"held", true, held, true, 3, false, TeardownHold},
		{"held without plane", true, held, false, 3, false, TeardownHold},
		{"plane gone releases with children and failures", true, nil, false, 3, true, TeardownRelease},
		{"children listed", true, nil, true, 1, false, TeardownWait},
		{"a step failed", true, nil, true, 0, true, TeardownWait},
		{"done", true, nil, true, 0, false, TeardownRelease},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := DecideTeardown(tc.fin, tc.held, tc.plane, tc.left, tc.failed); got != tc.want {
				t.Errorf("DecideTeardown = %s, want %s", got, tc.want)
			}
		})
	}
}

func TestRequeueAfterAndCapTarget(t *testing.T) {
	t.Parallel()
	const resync, notReady = 1 * time.Hour, 30 * time.Second
	tests := []struct {
		name            string
		ready, onTarget bool
		want            time.Duration
	}{
		{"ready", true, false, resync},
		{"not ready", false, false, notReady},
		{"ready on a target cluster is capped", true, true, RequeueTarget},
		{"not ready on a target cluster keeps the shorter delay", false, true, notReady},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := RequeueAfter(tc.ready, tc.onTarget, resync, notReady); got != tc.want {
				t.Errorf("RequeueAfter = %s, want %s", got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		d        time.Duration
		onTarget bool
		want     time.Duration
	}{
		{0, false, 0},
		{0, true, RequeueTarget},
		{time.Minute, true, time.Minute},
		{2 * RequeueTarget, true, RequeueTarget},
		{2 * RequeueTarget, false, 2 * RequeueTarget},
	} {
		if got := CapTarget(tc.d, tc.onTarget); got != tc.want {
			t.Errorf("CapTarget(%s, %v) = %s, want %s", tc.d, tc.onTarget, got, tc.want)
		}
	}
}

// TestListChildren_UnlabelableSelector: an owner whose name is too long for
// a label value has no child (the API server refuses writing the label) and
// a list by its labels would be refused with 400, so ListChildren and
// Sweep answer "nothing left" without sending it, and the finalizer
// can be released.
func TestListChildren_UnlabelableSelector(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 64)
	lists := 0
	c := fake.NewClientBuilder().WithIndex(&corev1.Secret{}, IndexOwner, ownerOf).
		WithIndex(&corev1.ConfigMap{}, IndexOwner, ownerOf).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
			lists++
			var lo client.ListOptions
			lo.ApplyOptions(opts)
			// The API server parses the selector string the same way.
			if _, err := labels.Parse(lo.LabelSelector.String()); err != nil {
				return apierrors.NewBadRequest(err.Error())
			}
			return c.List(ctx, l, opts...)
		},
	}).Build()
	bad := ChildLabels(Order{Kind: KindKeystoneUser, Namespace: "tenant", Name: long})
	if got := UnlabelableValues(bad); !reflect.DeepEqual(got, []string{KindLabelKey(KindKeystoneUser, "name"), LabelOwnerName}) {
		t.Fatalf("UnlabelableValues = %v", got)
	}
	items, err := ListChildren(context.Background(), c, &corev1.SecretList{}, "plane", bad)
	if err != nil || len(items) != 0 {
		t.Fatalf("ListChildren with an over-long name: %v, %d items; want no error and nothing", err, len(items))
	}
	left, err := Sweep(context.Background(), OwnerLister(c, bad), c, "plane", "tenant", secrets, ChildSet{List: func() client.ObjectList { return &corev1.ConfigMapList{} }})
	if err != nil || left != 0 {
		t.Fatalf("Sweep with an over-long name: left %d, %v; want 0, nil", left, err)
	}
	if lists != 0 {
		t.Errorf("%d lists sent with an unlabelable selector", lists)
	}
	if got := DecideTeardown(true, nil, true, left, err != nil); got != TeardownRelease {
		t.Errorf("DecideTeardown = %s, want %s", got, TeardownRelease)
	}

	// A valid selector is sent, and the interceptor does refuse a bad one
	// (the test's premise).
	good := ChildLabels(Order{Kind: KindKeystoneUser, Namespace: "tenant", Name: long[:63]})
	if UnlabelableValues(good) != nil {
		t.Fatalf("UnlabelableValues(63-byte name) = %v", UnlabelableValues(good))
	}
	if _, err := ListChildren(context.Background(), c, &corev1.SecretList{}, "plane", good); err != nil || lists != 1 {
		t.Fatalf("ListChildren with a 63-byte name: %v after %d lists", err, lists)
	}
	if err := c.List(context.Background(), &corev1.SecretList{}, client.MatchingLabels(bad)); !apierrors.IsBadRequest(err) {
		t.Fatalf("the interceptor admits an unlabelable selector: %v", err)
	}
}

// TestListChildren_OwnOrderOnly: the children are read through IndexOwner,
// and only the order's own are listed and swept: not another order's of
// the same name in another namespace or cluster, nor an unlabelled object.
func TestListChildren_OwnOrderOnly(t *testing.T) {
	t.Parallel()
	own := Order{Kind: KindKeystoneUser, Namespace: "tenant", Name: "nova"}
	others := []Order{
		{Kind: KindKeystoneUser, Namespace: "other", Name: "nova"},
		{Kind: KindKeystoneUser, Cluster: "east", Namespace: "tenant", Name: "nova"},
		{Kind: KindKeystoneProject, Namespace: "tenant", Name: "nova"},
	}
	secret := func(name string, lbl map[string]string) client.Object {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "plane", Name: name, Labels: lbl}}
	}
	objs := []client.Object{secret("own", ChildLabels(own)), secret("unlabelled", nil),
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "elsewhere", Name: "own", Labels: ChildLabels(own)}}}
	for i, o := range others {
		objs = append(objs, secret(fmt.Sprintf("other-%d", i), ChildLabels(o)))
	}
	fields := 0
	c := fake.NewClientBuilder().WithIndex(&corev1.Secret{}, IndexOwner, ownerOf).WithObjects(objs...).
		WithInterceptorFuncs(interceptor.Funcs{
			List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
				var lo client.ListOptions
				lo.ApplyOptions(opts)
				if lo.FieldSelector == nil {
					return c.List(ctx, l, opts...)
				}
				if v, ok := lo.FieldSelector.RequiresExactMatch(IndexOwner); ok && v == OwnerKey(own) {
					fields++
				}
				return c.List(ctx, l, opts...)
			},
		}).Build()
	items, err := ListChildren(context.Background(), c, &corev1.SecretList{}, "plane", ChildLabels(own))
	if err != nil || len(items) != 1 || items[0].GetName() != "own" {
		t.Fatalf("ListChildren = %v, %v; want the order's one Secret", items, err)
	}
	left, err := Sweep(context.Background(), OwnerLister(c, ChildLabels(own)), c, "plane", "tenant", secrets)
	if err != nil || left != 1 {
		t.Fatalf("Sweep = %d, %v; want 1 listed", left, err)
	}
	var rest corev1.SecretList
	if err := c.List(context.Background(), &rest); err != nil || len(rest.Items) != len(objs)-1 {
		t.Fatalf("after the sweep %d Secrets are left (%v), want %d", len(rest.Items), err, len(objs)-1)
	}
	for _, s := range rest.Items {
		if s.Namespace == "plane" && s.Name == "own" {
			t.Errorf("the order's child was not deleted")
		}
	}
	if fields != 2 {
		t.Errorf("%d lists selected IndexOwner=%s, want 2", fields, OwnerKey(own))
	}
	if _, err := ListChildren(context.Background(), c, &corev1.SecretList{}, "plane", map[string]string{"app": "x"}); err == nil {
		t.Errorf("ListChildren with labels naming no order: no error")
	}
}

// recordingIndexer records the objects IndexChildren indexes.
type recordingIndexer struct{ objs []client.Object }

func (r *recordingIndexer) IndexLocalField(_ context.Context, obj client.Object, field string, _ client.IndexerFunc) error {
	if field != IndexOwner {
		return fmt.Errorf("field %q", field)
	}
	r.objs = append(r.objs, obj)
	return nil
}

// TestIndexChildren_ItemKinds: each list's item kind is indexed, a typed
// list by its Go type and an unstructured one by its kind, and a list whose
// kind the scheme lacks is refused; a metadata-only list is indexed on
// the kind's metadata informer.
func TestIndexChildren_ItemKinds(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	pushes := &unstructured.UnstructuredList{}
	pushes.SetGroupVersionKind(schema.GroupVersionKind{Group: "external-secrets.io", Version: "v1alpha1", Kind: "PushSecretList"})
	metas := &metav1.PartialObjectMetadataList{}
	metas.SetGroupVersionKind(schema.GroupVersionKind{Group: "external-secrets.io", Version: "v1alpha1", Kind: "PushSecretList"})
	var idx recordingIndexer
	if err := IndexChildren(context.Background(), &idx, scheme, &corev1.SecretList{}, pushes, metas); err != nil {
		t.Fatal(err)
	}
	if len(idx.objs) != 3 {
		t.Fatalf("indexed %d kinds, want 3", len(idx.objs))
	}
	if m, ok := idx.objs[2].(*metav1.PartialObjectMetadata); !ok || m.GroupVersionKind().Kind != "PushSecret" {
		t.Errorf("a metadata-only PushSecretList indexed %#v, want metadata-only PushSecrets", idx.objs[2])
	}
	if _, ok := idx.objs[0].(*corev1.Secret); !ok {
		t.Errorf("SecretList indexed %T, want *v1.Secret", idx.objs[0])
	}
	u, ok := idx.objs[1].(*unstructured.Unstructured)
	if want := (schema.GroupVersionKind{Group: "external-secrets.io", Version: "v1alpha1", Kind: "PushSecret"}); !ok ||
		u.GroupVersionKind() != want {
		t.Errorf("PushSecretList indexed %#v, want an unstructured %s", idx.objs[1], want)
	}
	if err := IndexChildren(context.Background(), &idx, runtime.NewScheme(), &corev1.SecretList{}); err == nil {
		t.Errorf("a list of a kind outside the scheme was indexed")
	}
}
