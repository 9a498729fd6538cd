//go:build integration

package multicluster

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/controllers/hub/keystoneapplicationcredential"
	"github.com/c5c3/orderhub/controllers/hub/keystoneproject"
	"github.com/c5c3/orderhub/controllers/hub/keystoneroleassignment"
	"github.com/c5c3/orderhub/controllers/hub/keystoneuser"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/secretcache"
	"github.com/c5c3/orderhub/internal/testenv"
)

// TestReasons_ClusterNameTooLong: a target cluster registered under a name
// longer than the 63 characters a label value carries (its registration
// Secret's name, a DNS subdomain, admits it). Orders of every kind on it are
// refused at the first gate, on each sub-condition, with ClusterNameTooLong (docs/reference/keystoneapplicationcredential.md,
// "Conditions"), nothing is projected onto the management cluster, and
// the orders can be deleted.
func TestReasons_ClusterNameTooLong(t *testing.T) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	hubStack := testenv.ForTest(t, testenv.HubStackOptions())
	target := testenv.ForTest(t, testenv.Options{Kube: true})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	longName := "edge-" + strings.Repeat("x", clusters.MaxClusterNameLength-4) // 64 characters

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
	mustCreate(t, hubKube, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hubNS}})
	if err := hubStack.SeedPlane(ctx, hubKube, testenv.PlaneSeed{Namespace: planeNS,
		PasswordSecret: controlplane.DefaultPasswordSecret, PasswordKey: controlplane.DefaultPasswordKey}); err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := os.ReadFile(target.Kube.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, hubKube, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: hubNS, Name: longName,
		Labels: map[string]string{clusters.DefaultSecretLabel: "true"}},
		Data: map[string][]byte{clusters.DefaultSecretKey: kubeconfig}})

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
	if err := keystoneuser.SetupWithManager(h, keystoneuser.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := keystoneproject.SetupWithManager(h, keystoneproject.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := keystoneroleassignment.SetupWithManager(h, keystoneroleassignment.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := keystoneapplicationcredential.SetupWithManager(h, keystoneapplicationcredential.Options{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- h.Manager.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("hub manager: %v", err)
		}
	}()

	ref := c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}
	mustCreate(t, targetKube, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenantNS}})
	ku := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "long-cluster-user"},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: ref}}
	ac := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "long-cluster-credential"},
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{ControlPlaneRef: ref,
			UserRef: c5c3v1alpha1.OrderRef{Name: ku.Name}, ProjectRef: c5c3v1alpha1.OrderRef{Name: "any-project"}}}
	kp := &c5c3v1alpha1.KeystoneProject{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "long-cluster-project"},
		Spec: c5c3v1alpha1.KeystoneProjectSpec{ControlPlaneRef: ref}}
	ra := &c5c3v1alpha1.KeystoneRoleAssignment{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "long-cluster-member"},
		Spec: c5c3v1alpha1.KeystoneRoleAssignmentSpec{ControlPlaneRef: ref, UserRef: c5c3v1alpha1.OrderRef{Name: ku.Name},
			ProjectRef: c5c3v1alpha1.OrderRef{Name: kp.Name}, Role: "member"}}
	// Every sub-condition of each kind reads the gate.
	for _, o := range []struct {
		obj   client.Object
		types []string
	}{
		{ku, []string{c5c3v1alpha1.ConditionUserReady, c5c3v1alpha1.ConditionDeliveryReady}},
		{ac, []string{c5c3v1alpha1.ConditionCredentialReady, c5c3v1alpha1.ConditionDeliveryReady}},
		{kp, []string{c5c3v1alpha1.ConditionProjectReady}},
		{ra, []string{c5c3v1alpha1.ConditionAssignmentReady}},
	} {
		mustCreate(t, targetKube, o.obj)
		for _, typ := range o.types {
			testenv.Eventually(t, timeout, o.obj.GetName()+" "+typ+" ClusterNameTooLong", func() error {
				if err := targetKube.Get(ctx, client.ObjectKeyFromObject(o.obj), o.obj); err != nil {
					return err
				}
				c := meta.FindStatusCondition(conditionsOf(o.obj), typ)
				if c == nil || c.Reason != c5c3v1alpha1.ReasonClusterNameTooLong || !strings.Contains(c.Message, longName) {
					return fmt.Errorf("%s is %+v", typ, c)
				}
				testenv.ObservedCondition(t, o.obj, *c)
				return nil
			})
		}
	}

	// Nothing projected: no Secret, K-ORC object or claim in the plane's
	// namespace names the orders.
	var secrets corev1.SecretList
	if err := hubKube.List(ctx, &secrets, client.InNamespace(planeNS)); err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets.Items {
		if strings.Contains(s.Name, "long-cluster") {
			t.Errorf("Secret %s projected for an order on the refused cluster", s.Name)
		}
	}

	for _, obj := range []client.Object{ac, ra, ku, kp} {
		if err := targetKube.Delete(ctx, obj); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, timeout, obj.GetName()+" deleted", func() error {
			err := targetKube.Get(ctx, client.ObjectKeyFromObject(obj), obj)
			if apierrors.IsNotFound(err) {
				return nil
			}
			return fmt.Errorf("still there (finalizers %v): %v", obj.GetFinalizers(), err)
		})
	}
}

// passManagedAuthURL is the ControlPlane Verifier of
// TestReasons_KeystoneNotPublished: it passes the admin check of a plane
// whose authURL is managedURL without asking Keystone, and asks the stack's
// Keystone otherwise.
type passManagedAuthURL struct{ managedURL string }

func (v passManagedAuthURL) Verify(ctx context.Context, r controlplane.TokenRequest) error {
	if r.AuthURL == v.managedURL {
		return nil
	}
	return controlplane.KeystoneVerifier{}.Verify(ctx, r)
}

// TestReasons_KeystoneNotPublished: a KeystoneUser on a registered target
// cluster whose ControlPlane is Managed and publishes neither
// spec.services.keystone.publicEndpoint nor a gateway: the target cannot
// reach the in-cluster Keystone Service, so DeliveryReady says
// KeystoneNotPublished naming the remedy (docs/reference/keystoneuser.md)
// and no Secret is delivered on the target; a KeystoneApplicationCredential
// of that user says the same before any credential exists
// (docs/reference/keystoneapplicationcredential.md, "Delivered Secret
// contract"); the orders delete.
//
// Fault injection inside the hub: the stack runs no Managed Keystone, so
// the plane's in-cluster authURL (http://cp-keystone.<ns>.svc:5000/v3)
// resolves nowhere and its admin check would fail (EndpointUnreachable),
// closing the order's gate first. The hub's ControlPlane Verifier passes
// that one URL (passManagedAuthURL), standing in for the in-cluster
// Keystone the hub reaches on a real management cluster; the refusal
// itself is the hub's reading of the real plane and cluster.
func TestReasons_KeystoneNotPublished(t *testing.T) {
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
	mustCreate(t, hubKube, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hubNS}})
	managed := &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: planeNS},
		Spec: c5c3v1alpha1.ControlPlaneSpec{Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
			Mode: c5c3v1alpha1.KeystoneModeManaged}},
			NamespaceAssignments: []c5c3v1alpha1.NamespaceAssignment{{Cluster: targetName, Namespace: tenantNS,
				Domains: []c5c3v1alpha1.KeystoneName{controlplane.DefaultAdminDomain}}}}}
	if err := hubStack.SeedPlane(ctx, hubKube, testenv.PlaneSeed{Namespace: planeNS,
		PasswordSecret: controlplane.DefaultPasswordSecret, PasswordKey: controlplane.DefaultPasswordKey, Spec: managed.Spec}); err != nil {
		t.Fatal(err)
	}
	kubeconfig, err := os.ReadFile(target.Kube.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	mustCreate(t, hubKube, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: hubNS, Name: targetName,
		Labels: map[string]string{clusters.DefaultSecretLabel: "true"}},
		Data: map[string][]byte{clusters.DefaultSecretKey: kubeconfig}})

	mgr, err := testenv.NewManager(hubStack.Kube.Config, scheme)
	if err != nil {
		t.Fatal(err)
	}
	if err := controlplane.SetupWithManager(mgr, controlplane.Options{RetryInterval: 2 * time.Second,
		Verifier: passManagedAuthURL{managedURL: controlplane.AuthURL(managed)},
		OpenBao: &controlplane.OpenBao{Address: hubStack.OpenBao.Addr, Mount: hubStack.OpenBao.KVMount,
			AuthMount: hubStack.OpenBao.AuthMount, Role: hubStack.OpenBao.Role, ServiceAccount: hubStack.OpenBao.ServiceAccount}}); err != nil {
		t.Fatal(err)
	}
	h, err := clusters.Wrap(ctx, mgr, &clusters.Options{Namespace: hubNS, Cluster: secretcache.ForCluster})
	if err != nil {
		t.Fatal(err)
	}
	if err := keystoneuser.SetupWithManager(h, keystoneuser.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := keystoneapplicationcredential.SetupWithManager(h, keystoneapplicationcredential.Options{}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- h.Manager.Start(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("hub manager: %v", err)
		}
	}()
	testenv.Eventually(t, timeout, "the Managed plane is AdminCredentialReady", func() error {
		var cp c5c3v1alpha1.ControlPlane
		if err := hubKube.Get(ctx, client.ObjectKeyFromObject(managed), &cp); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady) {
			return fmt.Errorf("conditions %v", cp.Status.Conditions)
		}
		return nil
	})

	mustCreate(t, targetKube, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: tenantNS}})
	ku := &c5c3v1alpha1.KeystoneUser{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "unpublished-user"},
		Spec: c5c3v1alpha1.KeystoneUserSpec{ControlPlaneRef: c5c3v1alpha1.ControlPlaneRefSpec{Name: "cp", Namespace: planeNS}}}
	mustCreate(t, targetKube, ku)
	testenv.Eventually(t, timeout, ku.Name+" DeliveryReady KeystoneNotPublished", func() error {
		if err := targetKube.Get(ctx, client.ObjectKeyFromObject(ku), ku); err != nil {
			return err
		}
		c := meta.FindStatusCondition(ku.Status.Conditions, c5c3v1alpha1.ConditionDeliveryReady)
		if c == nil || c.Reason != c5c3v1alpha1.ReasonKeystoneNotPublished || !strings.Contains(c.Message, "publicEndpoint") {
			return fmt.Errorf("DeliveryReady is %+v", c)
		}
		testenv.ObservedCondition(t, ku, *c)
		return nil
	})
	// A credential order names the missing endpoint before any credential
	// exists (its project is not even ordered).
	ac := &c5c3v1alpha1.KeystoneApplicationCredential{ObjectMeta: metav1.ObjectMeta{Namespace: tenantNS, Name: "unpublished-credential"},
		Spec: c5c3v1alpha1.KeystoneApplicationCredentialSpec{ControlPlaneRef: ku.Spec.ControlPlaneRef,
			UserRef: c5c3v1alpha1.OrderRef{Name: ku.Name}, ProjectRef: c5c3v1alpha1.OrderRef{Name: "any-project"}}}
	mustCreate(t, targetKube, ac)
	testenv.Eventually(t, timeout, ac.Name+" DeliveryReady KeystoneNotPublished", func() error {
		if err := targetKube.Get(ctx, client.ObjectKeyFromObject(ac), ac); err != nil {
			return err
		}
		c := meta.FindStatusCondition(ac.Status.Conditions, c5c3v1alpha1.ConditionDeliveryReady)
		if c == nil || c.Reason != c5c3v1alpha1.ReasonKeystoneNotPublished || !strings.Contains(c.Message, "publicEndpoint") {
			return fmt.Errorf("DeliveryReady is %+v", c)
		}
		testenv.ObservedCondition(t, ac, *c)
		return nil
	})
	var secrets corev1.SecretList
	if err := targetKube.List(ctx, &secrets, client.InNamespace(tenantNS)); err != nil {
		t.Fatal(err)
	}
	for _, s := range secrets.Items {
		if strings.HasPrefix(s.Name, ku.Name) || strings.HasPrefix(s.Name, ac.Name) {
			t.Errorf("Secret %s delivered on the target although Keystone is not published", s.Name)
		}
	}
	if err := targetKube.Delete(ctx, ac); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, ac.Name+" deleted", func() error {
		err := targetKube.Get(ctx, client.ObjectKeyFromObject(ac), ac)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (finalizers %v): %v", ac.GetFinalizers(), err)
	})
	if err := targetKube.Delete(ctx, ku); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, timeout, ku.Name+" deleted", func() error {
		err := targetKube.Get(ctx, client.ObjectKeyFromObject(ku), ku)
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (finalizers %v): %v", ku.GetFinalizers(), err)
	})
}
