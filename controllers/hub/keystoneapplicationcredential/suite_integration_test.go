//go:build integration

package keystoneapplicationcredential

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	c5c3v1alpha1 "github.com/c5c3/orderhub/api/c5c3/v1alpha1"
	"github.com/c5c3/orderhub/controllers/hub/controlplane"
	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/testenv"
)

// The suite starts one real stack (Kubernetes with the garbage collector,
// Keystone, OpenBao, K-ORC and ESO) and runs the ControlPlane reconciler and
// this package's reconciler (on a multicluster manager without target
// clusters) in-process against it. One External ControlPlane "cp" in
// planeNS points at the stack's Keystone and assigns the tests' namespaces.
//
// The KeystoneUser, KeystoneProject and KeystoneRoleAssignment reconcilers
// do not run here: each test prepares their outcome by hand (world.go).

const (
	planeNS     = "openstack"
	hubNS       = "orderhub-system"
	tokenSecret = "openbao-token"
	waitTimeout = 3 * time.Minute
)

var (
	stack    *testenv.Stack
	kube     client.Client
	identity *gophercloud.ServiceClient // the tests' own admin view of Keystone
)

func TestMain(m *testing.M) { os.Exit(runSuite(m)) }

func runSuite(m *testing.M) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	startCtx, startCancel := context.WithTimeout(ctx, 10*time.Minute)
	defer startCancel()
	var err error
	stack, err = testenv.Start(startCtx, testenv.Options{Kube: true, ControllerManager: true, Keystone: true,
		OpenBao: true, KORC: true, ESO: true})
	if err != nil {
		fmt.Fprintf(os.Stderr, "starting the stack: %v\n", err)
		return 1
	}
	defer func() { _ = stack.Stop() }()

	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	scheme, err := testenv.HubScheme()
	must(err)
	kube, err = client.New(stack.Kube.Config, client.Options{Scheme: scheme})
	must(err)
	ks := stack.Keystone
	pc, err := openstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{IdentityEndpoint: ks.URL, Username: ks.AdminUser,
		Password: ks.AdminPassword, DomainName: ks.AdminUserDomain, AllowReauth: true,
		Scope: &gophercloud.AuthScope{ProjectName: ks.AdminProject, DomainName: ks.AdminProjectDomain}})
	must(err)
	identity, err = openstack.NewIdentityV3(pc, gophercloud.EndpointOpts{Region: ks.Region})
	must(err)
	token, err := stack.SeedOpenBaoToken(ctx, kube, hubNS, tokenSecret, controlplane.DefaultOpenBaoTokenKey)
	must(err)
	must(kube.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: planeNS}}))
	must(kube.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: controlplane.DefaultPasswordSecret, Namespace: planeNS},
		Data: map[string][]byte{controlplane.DefaultPasswordKey: []byte(ks.AdminPassword)}}))
	must(kube.Create(ctx, &c5c3v1alpha1.ControlPlane{ObjectMeta: metav1.ObjectMeta{Name: "cp", Namespace: planeNS},
		Spec: c5c3v1alpha1.ControlPlaneSpec{
			Services: c5c3v1alpha1.ServicesSpec{Keystone: &c5c3v1alpha1.ServiceKeystoneSpec{
				Mode: c5c3v1alpha1.KeystoneModeExternal, External: &c5c3v1alpha1.ExternalKeystoneSpec{AuthURL: ks.URL}}},
		}}))

	mgr, err := ctrl.NewManager(stack.Kube.Config, ctrl.Options{Scheme: scheme,
		Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0"})
	must(err)
	must(controlplane.SetupWithManager(mgr, controlplane.Options{RetryInterval: 2 * time.Second,
		OpenBao: &controlplane.OpenBao{Address: stack.OpenBao.Addr, Mount: stack.OpenBao.KVMount,
			TokenSecret: token}}))
	h, err := clusters.Wrap(ctx, mgr, nil)
	must(err)
	must(SetupWithManager(h, Options{}))
	return stack.RunTests(m, h.Manager)
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

// eventually waits on f with testenv.Eventually.
func eventually(t *testing.T, timeout time.Duration, what string, f func() error) {
	t.Helper()
	testenv.Eventually(t, timeout, what, f)
}

// planeReady waits until the ControlPlane's admin credential is ready, the
// shared gate every order reads.
func planeReady(t *testing.T) {
	t.Helper()
	eventually(t, waitTimeout, "ControlPlane cp AdminCredentialReady", func() error {
		var cp c5c3v1alpha1.ControlPlane
		if err := kube.Get(context.Background(), types.NamespacedName{Namespace: planeNS, Name: "cp"}, &cp); err != nil {
			return err
		}
		if !meta.IsStatusConditionTrue(cp.Status.Conditions, c5c3v1alpha1.ConditionAdminCredentialReady) {
			return fmt.Errorf("conditions %v", cp.Status.Conditions)
		}
		return nil
	})
}
