//go:build integration

package multicluster

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	orcv1alpha1 "github.com/k-orc/openstack-resource-controller/v2/api/v1alpha1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/keystoneapplicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/keystoneproject"
	"github.com/c5c3/orderhub/controllers/hub/keystoneroleassignment"
	"github.com/c5c3/orderhub/controllers/hub/keystoneuser"
	"github.com/c5c3/orderhub/controllers/hub/orders"
	"github.com/c5c3/orderhub/delivery/cloudsyaml"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/secretcache"
	"github.com/c5c3/orderhub/internal/testenv"
)

const (
	planeNS    = "openstack"
	hubNS      = "orderhub-system"
	targetName = "edge-1"
	tenantNS   = "tenant-a"
	frozenNS   = "tenant-unassigned"
	timeout    = 4 * time.Minute
)

// TestIntegration_Multicluster_ControlPlanePlacement runs the hub against a
// management cluster (the full stack: Kubernetes with the garbage
// collector, Keystone, OpenBao, K-ORC, ESO) and a registered target cluster
// (a second, bare kube-apiserver). A service owner on the target orders a
// user, a project, a role on it and an application credential; the test
// proves that the delivered Secrets appear on the target cluster and
// authenticate against Keystone, that the children stay in the plane's
// namespace on the management cluster labelled with the target's name, and
// that an order in a namespace the plane does not assign on the target is
// frozen at NamespaceNotAssigned with nothing projected.
func TestIntegration_Multicluster_ControlPlanePlacement(t *testing.T) {
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
	ks := hubStack.Keystone

	// The management cluster: the hub namespace, the plane, its admin
	// password, and the target's registration Secret.
	mustCreate(t, hubKube, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hubNS}})
	if err := hubStack.SeedPlane(ctx, hubKube, testenv.PlaneSeed{Namespace: planeNS,
		PasswordSecret: controlplane.DefaultPasswordSecret, PasswordKey: controlplane.DefaultPasswordKey,
		Spec: c5c3v1alpha1.ControlPlaneSpec{NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{
			{Cluster: targetName, Namespace: tenantNS, AllowedRoles: []c5c3v1alpha1.KeystoneName{"member"},
				Domains: []c5c3v1alpha1.KeystoneName{controlplane.DefaultAdminDomain}}}}}); err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := os.ReadFile(target.Kube.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, hubKube, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: hubNS, Name: targetName,
		Labels: map[string]string{clusters.DefaultSecretLabel: "true"}},
		Data: map[string][]byte{clusters.DefaultSecretKey: kubeconfig}})

	// The hub: the plane reconciler on the management cluster, the order
	// reconcilers on the multicluster manager, as `orderhub hub` wires them.
	mgr, err := testenv.NewManager(hubStack.Kube.Config, scheme)
	if err != nil {
		t.Fatal(err)
	}
	if err := controlplane.SetupWithManager(mgr, controlplane.Options{RetryInterval: 2 * time.Second,
		OpenBao: &controlplane.OpenBao{Address: hubStack.OpenBao.Addr, Mount: hubStack.OpenBao.KVMount,
			AuthMount: hubStack.OpenBao.AuthMount, Role: hubStack.OpenBao.Role, ServiceAccount: hubStack.OpenBao.ServiceAccount}}); err != nil {
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

	// The target cluster: a service owner's orders.
	ref := c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}
	for _, ns := range []string{tenantNS, frozenNS} {
		mustCreate(t, targetKube, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	mustCreate(t, targetKube, &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "edge-svc"},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: ref, DefaultProjectRef: &c5c3v1alpha1.OrderRef{Name: "edge-project"}}})
	mustCreate(t, targetKube, &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "edge-project"},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: ref}})
	mustCreate(t, targetKube, &c5c3v1alpha1.KeystoneRoleAssignment{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "edge-member"},
		Spec: c5c3v1alpha1.KeystoneRoleAssignmentSpec{ControlPlaneRef: ref, UserRef: c5c3v1alpha1.OrderRef{Name: "edge-svc"},
			ProjectRef: c5c3v1alpha1.OrderRef{Name: "edge-project"}, Role: "member"}})
	mustCreate(t, targetKube, &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "edge-appcred"},
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{ControlPlaneRef: ref, UserRef: c5c3v1alpha1.OrderRef{Name: "edge-svc"},
			ProjectRef: c5c3v1alpha1.OrderRef{Name: "edge-project"}}})
	mustCreate(t, targetKube, &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Namespace: frozenNS, Name: "edge-svc"},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: ref}})

	// Every order on the target reaches Ready.
	start := time.Now()
	for _, o := range []client.Object{
		&c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "edge-project"}},
		&c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "edge-svc"}},
		&c5c3v1alpha1.KeystoneRoleAssignment{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "edge-member"}},
		&c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "edge-appcred"}},
	} {
		waitReady(t, targetKube, o)
	}
	t.Logf("four orders on the target cluster Ready in %s", time.Since(start).Round(time.Second))

	// The delivered Secrets are on the target cluster, owned by their
	// orders, and authenticate against Keystone.
	for _, d := range []struct {
		secret, cloud string
		authType      cloudsyaml.AuthType
	}{
		{"edge-svc-credentials", "edge-svc", ""},
		{"edge-appcred-credentials", "edge-appcred", cloudsyaml.AuthTypeV3ApplicationCredential},
	} {
		var s corev1.Secret
		if err := targetKube.Get(ctx, types.NamespacedName{Namespace: tenantNS, Name: d.secret}, &s); err != nil {
			t.Fatalf("delivered Secret %s on the target cluster: %v", d.secret, err)
		}
		if len(s.OwnerReferences) != 1 || s.OwnerReferences[0].Controller == nil || !*s.OwnerReferences[0].Controller {
			t.Errorf("%s: want one controller owner reference to its order, got %+v", d.secret, s.OwnerReferences)
		}
		cloud, err := cloudsyaml.ParseCloud(s.Data["clouds.yaml"], d.cloud)
		if err != nil {
			t.Fatalf("%s: clouds.yaml: %v", d.secret, err)
		}
		if d.authType != "" && cloud.AuthType != d.authType {
			t.Errorf("%s: auth_type %q, want %q", d.secret, cloud.AuthType, d.authType)
		}
		if cloud.AuthInfo.AuthURL != ks.URL {
			t.Errorf("%s: auth URL %q, want the External plane's %q", d.secret, cloud.AuthInfo.AuthURL, ks.URL)
		}
		if _, err := testenv.Authenticate(ctx, cloud); err != nil {
			t.Errorf("%s does not authenticate: %v", d.secret, err)
		}
	}

	// The children live on the management cluster, in the plane's
	// namespace, labelled with the target cluster's name; nothing of the
	// orders' own namespace exists there.
	var users orcv1alpha1.UserList
	if err := hubKube.List(ctx, &users, client.InNamespace(planeNS), client.MatchingLabels{
		orders.LabelOwnerCluster: targetName, orders.LabelOwnerNamespace: tenantNS, orders.LabelOwnerName: "edge-svc"}); err != nil {
		t.Fatal(err)
	}
	if len(users.Items) == 0 {
		t.Errorf("no K-ORC User of the target's order in %s on the management cluster", planeNS)
	}
	var appcreds orcv1alpha1.ApplicationCredentialList
	if err := hubKube.List(ctx, &appcreds, client.InNamespace(planeNS), client.MatchingLabels{
		orders.KindLabelKey(orders.KindKeystoneApplicationCredential, "cluster"): targetName}); err != nil {
		t.Fatal(err)
	}
	if len(appcreds.Items) != 1 {
		t.Errorf("want exactly one K-ORC ApplicationCredential labelled with cluster %s, got %d", targetName, len(appcreds.Items))
	}
	if err := hubKube.Get(ctx, types.NamespacedName{Name: tenantNS}, &corev1.Namespace{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace %s must not exist on the management cluster (err %v)", tenantNS, err)
	}

	// The order in a namespace the plane does not assign on the target is
	// frozen, and nothing is projected for it.
	frozen := &c5c3v1alpha1.KeystoneUser{}
	testenv.Eventually(t, timeout, "the unassigned order reads NamespaceNotAssigned", func() error {
		if err := targetKube.Get(ctx, types.NamespacedName{Namespace: frozenNS, Name: "edge-svc"}, frozen); err != nil {
			return err
		}
		c := meta.FindStatusCondition(frozen.Status.Conditions, c5c3v1alpha1.ConditionReady)
		u := meta.FindStatusCondition(frozen.Status.Conditions, c5c3v1alpha1.ConditionUserReady)
		if c == nil || u == nil || u.Reason != c5c3v1alpha1.ReasonNamespaceNotAssigned {
			return fmt.Errorf("UserReady %+v", u)
		}
		return nil
	})
	var frozenChildren orcv1alpha1.UserList
	if err := hubKube.List(ctx, &frozenChildren, client.InNamespace(planeNS), client.MatchingLabels{
		orders.LabelOwnerCluster: targetName, orders.LabelOwnerNamespace: frozenNS}); err != nil {
		t.Fatal(err)
	}
	if len(frozenChildren.Items) != 0 {
		t.Errorf("a frozen order projected %d K-ORC Users", len(frozenChildren.Items))
	}
	if err := targetKube.Get(ctx, types.NamespacedName{Namespace: frozenNS, Name: "edge-svc-credentials"}, &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Errorf("a frozen order delivered a Secret (err %v)", err)
	}
}

func mustCreate(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(context.Background(), obj); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}

// waitReady waits until obj's Ready condition is True, naming its
// conditions on timeout.
func waitReady(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	testenv.Eventually(t, timeout, obj.GetNamespace()+"/"+obj.GetName()+" Ready", func() error {
		if err := c.Get(context.Background(), client.ObjectKeyFromObject(obj), obj); err != nil {
			return err
		}
		conds := conditionsOf(obj)
		if !meta.IsStatusConditionTrue(conds, c5c3v1alpha1.ConditionReady) {
			return fmt.Errorf("conditions %+v", conds)
		}
		return nil
	})
}

func conditionsOf(obj client.Object) []metav1.Condition {
	switch o := obj.(type) {
	case *c5c3v1alpha1.KeystoneUser:
		return o.Status.Conditions
	case *c5c3v1alpha1.KeystoneProject:
		return o.Status.Conditions
	case *c5c3v1alpha1.KeystoneRoleAssignment:
		return o.Status.Conditions
	case *c5c3v1alpha1.KeystoneApplicationCredential:
		return o.Status.Conditions
	}
	return nil
}
