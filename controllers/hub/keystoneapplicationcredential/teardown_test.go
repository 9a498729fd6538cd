package keystoneapplicationcredential

import (
	"context"
	"strings"
	"testing"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/orders"
)

// TestTeardown_UnlabelableSelector: an order whose labels no label value can
// carry (a name over 63 bytes, stored past the CRD rule) has no child, since
// the API server refuses writing such a label. Its teardown, run through the
// order loop's Teardown with the plane present, sends no list the API
// server would refuse (400 for the selector) and releases the finalizer, so
// the order is deleted.
func TestTeardown_UnlabelableSelector(t *testing.T) {
	t.Parallel()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, c5c3v1alpha1.AddToScheme, orcv1alpha1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	now := metav1.Now()
	ac := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{
		Namespace: "tenant", Name: strings.Repeat("n", 64), UID: "ac-uid",
		DeletionTimestamp: &now, Finalizers: []string{c5c3v1alpha1.FinalizerKeystoneApplicationCredentialTeardown}}}
	refused := 0
	c := fake.NewClientBuilder().WithScheme(scheme).WithObjects(ac).WithInterceptorFuncs(interceptor.Funcs{
		List: func(ctx context.Context, c client.WithWatch, l client.ObjectList, opts ...client.ListOption) error {
			var lo client.ListOptions
			lo.ApplyOptions(opts)
			// The API server parses the selector string the same way.
			if lo.LabelSelector != nil {
				if _, err := labels.Parse(lo.LabelSelector.String()); err != nil {
					refused++
					return apierrors.NewBadRequest(err.Error())
				}
			}
			return c.List(ctx, l, opts...)
		},
	}).Build()
	r := &Reconciler{Base: orders.Base{Local: c}, now: time.Now}
	var obj c5c3v1alpha1.KeystoneApplicationCredential
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(ac), &obj); err != nil {
		t.Fatal(err)
	}
	ord := orders.Order{Kind: orders.KindKeystoneApplicationCredential, Namespace: ac.Namespace, Name: ac.Name}
	if len(orders.UnlabelableValues(orders.ChildLabels(ord))) == 0 {
		t.Fatal("the test's premise: a 64-byte name is no label value")
	}
	plane := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: "plane", Name: "cp"}}
	res, err := r.loop().Teardown(context.Background(), &orders.Pass[orderObj]{Order: ord, Client: c, Obj: &obj, Plane: plane})
	if err != nil {
		t.Fatalf("Teardown: %v", err)
	}
	if res.RequeueAfter != 0 {
		t.Errorf("Teardown waits (RequeueAfter %s) for children that cannot exist", res.RequeueAfter)
	}
	if refused != 0 {
		t.Errorf("%d lists sent with a selector the API server refuses", refused)
	}
	if err := c.Get(context.Background(), client.ObjectKeyFromObject(ac), &obj); !apierrors.IsNotFound(err) {
		t.Errorf("the order is not gone after the teardown: %v, finalizers %v", err, obj.Finalizers)
	}
}
