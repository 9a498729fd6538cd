//go:build integration

package multicluster

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/credentialrotation"
	"github.com/c5c3/orderhub/controllers/hub/keystoneapplicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/keystoneproject"
	"github.com/c5c3/orderhub/controllers/hub/keystoneroleassignment"
	"github.com/c5c3/orderhub/controllers/hub/keystoneservice"
	"github.com/c5c3/orderhub/controllers/hub/keystoneuser"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/secretcache"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/webhooks"
)

// Longest values the admission rules admit (docs/reference/*.md, the
// "Defaulting and Validation" and "orderhub: limits" sections): a namespace
// and a cluster name are label values (63), the order kinds' and the
// KeystoneService's metadata.name 63 (a label value on every child), a
// CredentialRotation's 253 (it projects nothing), OpenStackName 255,
// KeystoneName 64, a DNS-1123 label 63, an endpoint URL 225 characters
// (Keystone's bound), a project description 255; a KeystoneService with an
// account block 61 bytes (webhooks.MaxDeliveryNameLength: ESO's field
// manager of the consumer Secret).
const (
	longLabel        = validation.LabelValueMaxLength
	longObjectName   = validation.DNS1123SubdomainMaxLength
	longOpenStack    = 255
	longKeystoneName = 64
	longURL          = webhooks.MaxEndpointURLLength
	longDescription  = 255
)

// fill pads prefix with 'a' to n bytes.
func fill(prefix string, n int) string { return prefix + strings.Repeat("a", n-len(prefix)) }

// longOrder is one row of the generated table: an object built with the
// longest value every rule of its kind admits, the client of the cluster it
// is applied on, and where.
type longOrder struct {
	where string
	c     client.Client
	obj   client.Object
}

// TestIntegration_LongNames applies, for every hub kind, an object carrying
// the longest value each admission rule admits, on the management cluster
// and (for the order kinds) on a registered target cluster whose name is 63
// bytes (a KeystoneService at webhooks.NameBound), in namespaces of 63 bytes, under a ControlPlane of a 63-byte name
// in a 63-byte namespace, with a 64-character role name whose slug needs a
// hash. Each must reach Ready=True (no error condition); then each is
// deleted and must be gone. A KeystoneService stored with an 80-byte name
// (the CRD admits it; only the webhook, not served here, refuses it) can
// project no child, and its deletion must still complete: the teardown
// sends no selector the API server refuses.
func TestIntegration_LongNames(t *testing.T) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	hubStack := testenv.ForTest(t, testenv.HubStackOptions())
	target := testenv.ForTest(t, testenv.Options{Kube: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()

	scheme, err := testenv.HubScheme()
	if err != nil {
		t.Fatal(err)
	}
	hubKube, err := client.New(hubStack.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	targetKube, err := client.New(target.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	identity, err := hubStack.AdminIdentity(ctx)
	if err != nil {
		t.Fatal(err)
	}

	var (
		planeNS   = fill("plane-", longLabel)
		planeName = fill("cp-", longLabel)
		mgmtNS    = fill("mgmt-", longLabel)
		targetNS  = fill("tgt-", longLabel)
		cluster   = fill("edge-", longLabel)
		// Upper case and punctuation: korc.RoleSlug appends a hash, the
		// widest discriminator (assign-<slug>, 80 bytes).
		role = fill("Long_Role.", longKeystoneName)
	)
	if _, err := roles.Create(ctx, identity, roles.CreateOpts{Name: role}).Extract(); err != nil {
		t.Fatalf("create the Keystone role %q: %v", role, err)
	}

	mustCreate(t, hubKube, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hubNS}})
	mustCreate(t, hubKube, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: mgmtNS}})
	if err := hubStack.SeedPlane(ctx, hubKube, testenv.PlaneSeed{Namespace: planeNS, Name: planeName,
		PasswordSecret: controlplane.DefaultPasswordSecret, PasswordKey: controlplane.DefaultPasswordKey,
		Spec: c5c3v1alpha1.ControlPlaneSpec{
			NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{
				{Cluster: "", Namespace: mgmtNS, AllowedRoles: []c5c3v1alpha1.KeystoneName{c5c3v1alpha1.KeystoneName(role)},
					Domains: []c5c3v1alpha1.KeystoneName{controlplane.DefaultAdminDomain}},
				{Cluster: cluster, Namespace: targetNS, AllowedRoles: []c5c3v1alpha1.KeystoneName{c5c3v1alpha1.KeystoneName(role)},
					Domains: []c5c3v1alpha1.KeystoneName{controlplane.DefaultAdminDomain}},
			},
			KORC: c5c3v1alpha1.KORCSpec{ServiceRegistrations: c5c3v1alpha1.ServiceRegistrationsSpec{AllowedNamespaces: []string{mgmtNS}}},
		}}); err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := os.ReadFile(target.Kube.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, hubKube, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: hubNS, Name: cluster,
		Labels: map[string]string{clusters.DefaultSecretLabel: "true"}},
		Data: map[string][]byte{clusters.DefaultSecretKey: kubeconfig}})
	mustCreate(t, targetKube, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: targetNS}})

	// The hub as `orderhub hub` wires it: plane, KeystoneService and
	// CredentialRotation reconcilers on the management cluster, the order
	// reconcilers on the multicluster manager.
	mgr, err := testenv.NewManager(hubStack.Kube.Config, scheme)
	if err != nil {
		t.Fatal(err)
	}
	if err := controlplane.SetupWithManager(mgr, controlplane.Options{RetryInterval: 2 * time.Second,
		OpenBao: &controlplane.OpenBao{Address: hubStack.OpenBao.Addr, Mount: hubStack.OpenBao.KVMount,
			AuthMount: hubStack.OpenBao.AuthMount, Role: hubStack.OpenBao.Role, ServiceAccount: hubStack.OpenBao.ServiceAccount}}); err != nil {
		t.Fatal(err)
	}
	if err := keystoneservice.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	if err := credentialrotation.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	h, err := clusters.Wrap(ctx, mgr, &clusters.Options{Namespace: hubNS, Cluster: secretcache.ForCluster})
	if err != nil {
		t.Fatal(err)
	}
	for _, setup := range []func(*clusters.Hub) error{
		func(h *clusters.Hub) error { return keystoneuser.SetupWithManager(h, keystoneuser.Options{}) },
		func(h *clusters.Hub) error { return keystoneproject.SetupWithManager(h, keystoneproject.Options{}) },
		func(h *clusters.Hub) error {
			return keystoneroleassignment.SetupWithManager(h, keystoneroleassignment.Options{})
		},
		func(h *clusters.Hub) error {
			return keystoneapplicationcredential.SetupWithManager(h, keystoneapplicationcredential.Options{})
		},
	} {
		if err := setup(h); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan error, 1)
	go func() { done <- h.Manager.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("hub manager: %v", err)
		}
	}()

	// The plane itself, at its longest name in its longest namespace.
	plane := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Namespace: planeNS, Name: planeName}}
	waitCondition(t, hubKube, plane, "ControlPlane")

	// The generated table: every order kind on both clusters, the
	// KeystoneService and the CredentialRotation on the management cluster.
	ref := c5c3v1alpha1.ControlPlaneRefSpec{Name: planeName, Namespace: planeNS}
	var rows []longOrder
	for _, side := range []struct {
		where, ns, tag string
		c              client.Client
	}{{"management cluster", mgmtNS, "m", hubKube}, {"target cluster " + cluster, targetNS, "t", targetKube}} {
		project := fill("project-"+side.tag+"-", longLabel)
		user := fill("user-"+side.tag+"-", longLabel)
		om := func(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: side.ns, Name: name} }
		rows = append(rows,
			longOrder{side.where, side.c, &c5c3v1alpha1.KeystoneProject{ObjectMeta: om(project), Spec: c5c3v1alpha1.KeystoneProjectSpec{
				ControlPlaneRef: ref, ProjectName: c5c3v1alpha1.KeystoneName(fill("Project "+side.tag+" ", longKeystoneName)),
				Description: strings.Repeat("d", longDescription)}}},
			longOrder{side.where, side.c, &c5c3v1alpha1.KeystoneUser{ObjectMeta: om(user), Spec: c5c3v1alpha1.KeystoneUserSpec{
				ControlPlaneRef: ref, UserName: c5c3v1alpha1.OpenStackName(fill("User "+side.tag+" ", longOpenStack)),
				DefaultProjectRef: &c5c3v1alpha1.OrderRef{Name: project}}}},
			longOrder{side.where, side.c, &c5c3v1alpha1.KeystoneRoleAssignment{ObjectMeta: om(fill("assign-"+side.tag+"-", longLabel)),
				Spec: c5c3v1alpha1.KeystoneRoleAssignmentSpec{ControlPlaneRef: ref, UserRef: c5c3v1alpha1.OrderRef{Name: user},
					ProjectRef: c5c3v1alpha1.OrderRef{Name: project}, Role: c5c3v1alpha1.KeystoneName(role)}}},
			longOrder{side.where, side.c, &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: om(fill("appcred-"+side.tag+"-", longLabel)),
				Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{ControlPlaneRef: ref, UserRef: c5c3v1alpha1.OrderRef{Name: user},
					ProjectRef: c5c3v1alpha1.OrderRef{Name: project}}}},
		)
	}
	ksName := fill("svc-", webhooks.MaxDeliveryNameLength)
	url := func(iface string) string { return fill("https://"+iface+".example.test:8443/", longURL) }
	ks := &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Namespace: mgmtNS, Name: ksName},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{
			ControlPlaneRef: ref,
			Catalog: &c5c3v1alpha1.KeystoneServiceCatalogSpec{ServiceType: fill("type-", longLabel),
				ServiceName: c5c3v1alpha1.OpenStackName(fill("Service ", longOpenStack)),
				Endpoints: []c5c3v1alpha1.KeystoneServiceEndpointSpec{{Interface: "public", URL: url("public")},
					{Interface: "internal", URL: url("internal")}, {Interface: "admin", URL: url("admin")}}},
			Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{UserName: c5c3v1alpha1.OpenStackName(fill("Service user ", longOpenStack)),
				Project: c5c3v1alpha1.ServiceAccountProjectSpec{Name: c5c3v1alpha1.KeystoneName(fill("Service project ", longKeystoneName)), Create: true},
				Roles:   []c5c3v1alpha1.KeystoneName{c5c3v1alpha1.KeystoneName(role)}},
		}}
	// Without an account block no ExternalSecret is written: the bound is
	// the label value's, 63 bytes.
	catalogOnly := &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Namespace: mgmtNS, Name: fill("cat-", longLabel)},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{
			ControlPlaneRef: ref,
			Catalog: &c5c3v1alpha1.KeystoneServiceCatalogSpec{ServiceType: fill("cat-", longLabel),
				ServiceName: c5c3v1alpha1.OpenStackName(fill("Catalog ", longOpenStack)),
				Endpoints:   []c5c3v1alpha1.KeystoneServiceEndpointSpec{{Interface: "public", URL: url("public")}}},
		}}
	if got := webhooks.NameBound(catalogOnly); got != longLabel {
		t.Fatalf("webhooks.NameBound of a catalog-only KeystoneService = %d, want %d", got, longLabel)
	}
	for _, s := range []*c5c3v1alpha1.KeystoneService{ks, catalogOnly} {
		if _, err := (webhooks.KeystoneServiceValidator{}).ValidateCreate(ctx, s); err != nil {
			t.Fatalf("the webhook refuses the longest KeystoneService the test applies: %v", err)
		}
	}
	rows = append(rows, longOrder{"management cluster", hubKube, ks}, longOrder{"management cluster", hubKube, catalogOnly},
		longOrder{"management cluster", hubKube, &c5c3v1alpha1.CredentialRotation{
			ObjectMeta: metav1.ObjectMeta{Namespace: mgmtNS, Name: fill("rotate-", longObjectName)},
			Spec:       c5c3v1alpha1.CredentialRotationSpec{Target: c5c3v1alpha1.CredentialRotationTargetServiceAccountPassword, KeystoneService: ksName}}})

	// The stuck one: stored past the webhook's bound.
	stuck := &c5c3v1alpha1.KeystoneService{ObjectMeta: metav1.ObjectMeta{Namespace: mgmtNS, Name: fill("stuck-", 80)},
		Spec: c5c3v1alpha1.KeystoneServiceSpec{ControlPlaneRef: ref, Account: &c5c3v1alpha1.KeystoneServiceAccountSpec{
			UserName: "stuck-user", Project: c5c3v1alpha1.ServiceAccountProjectSpec{Name: "stuck-project", Create: true}}}}
	if _, err := (webhooks.KeystoneServiceValidator{}).ValidateCreate(ctx, stuck); err == nil {
		t.Fatal("the webhook admits an 80-byte KeystoneService name")
	}

	start := time.Now()
	for _, r := range rows {
		mustCreate(t, r.c, r.obj)
	}
	mustCreate(t, hubKube, stuck)
	for _, r := range rows {
		waitCondition(t, r.c, r.obj, r.where)
	}
	t.Logf("%d objects at their longest admitted values Ready in %s", len(rows), time.Since(start).Round(time.Second))

	// The children on the management cluster carry the target's 63-byte
	// cluster name and the orders' 63-byte names as label values.
	var users orcv1alpha1.UserList
	if err := hubKube.List(ctx, &users, client.InNamespace(planeNS), client.MatchingLabels{
		orders.LabelOwnerCluster: cluster, orders.LabelOwnerNamespace: targetNS}); err != nil {
		t.Fatal(err)
	}
	if len(users.Items) == 0 {
		t.Errorf("no K-ORC User labelled with the 63-byte cluster name in %s", planeNS)
	}

	// The stuck KeystoneService carries the finalizer (the reconciler took
	// it on) and has no child: the API server refuses its label value.
	testenv.Eventually(t, timeout, "the 80-byte KeystoneService carries its finalizer", func() error {
		if err := hubKube.Get(ctx, client.ObjectKeyFromObject(stuck), stuck); err != nil {
			return err
		}
		if len(stuck.Finalizers) == 0 {
			return fmt.Errorf("no finalizer yet; conditions %+v", stuck.Status.Conditions)
		}
		return nil
	})

	// Delete everything at once (the credential orders release the user
	// and project as they go) and wait until each is gone.
	start = time.Now()
	if err := hubKube.Delete(ctx, stuck); err != nil {
		t.Fatal(err)
	}
	for _, r := range rows {
		if err := r.c.Delete(ctx, r.obj); err != nil && !apierrors.IsNotFound(err) {
			t.Fatalf("delete %T %s: %v", r.obj, r.obj.GetName(), err)
		}
	}
	waitGone(t, hubKube, stuck, "management cluster (stored past the bound)")
	for _, r := range rows {
		waitGone(t, r.c, r.obj, r.where)
	}
	t.Logf("%d objects and the stuck KeystoneService deleted and gone in %s", len(rows), time.Since(start).Round(time.Second))
	var left orcv1alpha1.UserList
	if err := hubKube.List(ctx, &left, client.InNamespace(planeNS)); err != nil {
		t.Fatal(err)
	}
	if len(left.Items) != 0 {
		t.Errorf("%d K-ORC Users left in the plane's namespace after the teardown", len(left.Items))
	}

	// Last, the plane.
	if err := hubKube.Delete(ctx, plane); err != nil {
		t.Fatal(err)
	}
	waitGone(t, hubKube, plane, "ControlPlane")
}

// waitCondition waits until obj reads Ready=True, naming its conditions on
// timeout.
func waitCondition(t *testing.T, c client.Client, obj client.Object, where string) {
	t.Helper()
	what := fmt.Sprintf("%T %s/%s (%d-byte name) on the %s Ready", obj, obj.GetNamespace(), obj.GetName(), len(obj.GetName()), where)
	testenv.Eventually(t, timeout, what, func() error {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		conds, err := statusConditions(obj)
		if err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(conds, c5c3v1alpha1.ConditionReady) {
			return fmt.Errorf("conditions %+v", conds)
		}
		return nil
	})
}

// waitGone waits until obj is not found.
func waitGone(t *testing.T, c client.Client, obj client.Object, where string) {
	t.Helper()
	what := fmt.Sprintf("%T %s/%s (%d-byte name) on the %s gone", obj, obj.GetNamespace(), obj.GetName(), len(obj.GetName()), where)
	testenv.Eventually(t, timeout, what, func() error {
		err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj)
		if apierrors.IsNotFound(err) {
			return nil
		}
		if err != nil {
			return err
		}
		conds, _ := statusConditions(obj)
		return fmt.Errorf("still there, finalizers %v, conditions %+v", obj.GetFinalizers(), conds)
	})
}

// statusConditions reads status.conditions of any hub kind.
func statusConditions(obj client.Object) ([]metav1.Condition, error) {
	u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	var out struct {
		Status struct {
			Conditions []metav1.Condition `json:"conditions"`
		} `json:"status"`
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u, &out); err != nil {
		return nil, err
	}
	return out.Status.Conditions, nil
}
