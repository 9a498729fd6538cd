package orders

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"
)

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
// SweepChildren answer "nothing left" without sending it, and the finalizer
// can be released.
func TestListChildren_UnlabelableSelector(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("n", 64)
	lists := 0
	c := fake.NewClientBuilder().WithInterceptorFuncs(interceptor.Funcs{
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
	left, err := SweepChildren(context.Background(), c, "plane", bad, &corev1.SecretList{}, &corev1.ConfigMapList{})
	if err != nil || left != 0 {
		t.Fatalf("SweepChildren with an over-long name: left %d, %v; want 0, nil", left, err)
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
