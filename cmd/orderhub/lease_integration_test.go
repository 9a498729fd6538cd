//go:build integration

package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	kv1 "github.com/c5c3/orderhub/api/keystone/v1alpha1"
	rmqv1 "github.com/c5c3/orderhub/api/rabbitmq/v1alpha1"
	"github.com/c5c3/orderhub/internal/keystone"
	"github.com/c5c3/orderhub/internal/testenv"
	"github.com/c5c3/orderhub/webhooks"
)

// TestIntegration_Identity_TwoKeystonesOneNamespace runs two `orderhub
// identity` processes with leader election on in one namespace, each for its
// own Keystone (--keystone-ref-name keystone and keystone-b): each holds its
// own Lease, so both reconcile, and each Domain is Ready and created in its
// own Keystone only.
func TestIntegration_Identity_TwoKeystonesOneNamespace(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Kube: true, Keystone: true})
	second := testenv.ForTest(t, testenv.Options{Keystone: true})
	c := keystoneClient(t, st)
	ctx := context.Background()
	const ns = "identity-two"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	bin := orderhubBinary(t)
	startIdentityProcess(t, st, bin, "orderhub-identity-a", ns, st.Keystone.Env(), "--leader-elect=true", "--keystone-ref-name=keystone")
	startIdentityProcess(t, st, bin, "orderhub-identity-b", ns, second.Keystone.Env(), "--leader-elect=true", "--keystone-ref-name=keystone-b")

	da := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: ns}, Spec: kv1.DomainSpec{Name: "lease-a",
		CommonSpec: kv1.CommonSpec{KeystoneRef: &kv1.KeystoneRef{Name: "keystone"}}}}
	db := &kv1.Domain{ObjectMeta: metav1.ObjectMeta{Name: "b", Namespace: ns}, Spec: kv1.DomainSpec{Name: "lease-b",
		CommonSpec: kv1.CommonSpec{KeystoneRef: &kv1.KeystoneRef{Name: "keystone-b"}}}}
	for _, d := range []*kv1.Domain{da, db} {
		if err := c.Create(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	waitDomainReady(t, c, da, 2*time.Minute)
	waitDomainReady(t, c, db, 2*time.Minute)

	// Each domain is in its own Keystone, and only there.
	for _, k := range []struct {
		st         *testenv.Stack
		has, hasNo string
	}{{st, "lease-a", "lease-b"}, {second, "lease-b", "lease-a"}} {
		sess, err := keystone.NewSession(ctx, keystone.ConfigFromEnv(envLookupOf(k.st.Keystone.Env())))
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]int{k.has: 1, k.hasNo: 0} {
			pages, err := domains.List(sess.Identity, domains.ListOpts{Name: name}).AllPages(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got, err := domains.ExtractDomains(pages)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != want {
				t.Errorf("Keystone %s holds %d domains %s, want %d", k.st.Keystone.URL, len(got), name, want)
			}
		}
	}

	// Two Leases, each held.
	var leases coordinationv1.LeaseList
	if err := c.List(ctx, &leases, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, l := range leases.Items {
		if strings.HasPrefix(l.Name, "orderhub-identity-") && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" {
			held = append(held, l.Name)
		}
	}
	if len(held) != 2 {
		t.Errorf("held identity Leases in %s: %v, want two", ns, held)
	}
}

// TestIntegration_Topology_TwoClustersOneNamespace runs two `orderhub
// topology` processes with leader election on in one namespace, each for its
// own RABBITMQ_CLUSTER_NAME (the stack runs one broker, so the two differ in
// the cluster name they serve, not in the broker URL; TestLeaderElectionID
// covers two broker URLs): each holds its own Lease, so both reconcile and
// each Vhost is Ready and declared in the broker.
func TestIntegration_Topology_TwoClustersOneNamespace(t *testing.T) {
	st := testenv.ForTest(t, testenv.Options{Kube: true, RabbitMQ: true})
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = rmqv1.AddToScheme(scheme)
	c, err := client.New(st.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const ns = "topology-two"
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
		t.Fatal(err)
	}
	bin := orderhubBinary(t)
	r := st.RabbitMQ
	var vhosts []*rmqv1.Vhost
	for _, cluster := range []string{"broker-a", "broker-b"} {
		port, err := webhooks.FreePort("127.0.0.1")
		if err != nil {
			t.Fatal(err)
		}
		health := fmt.Sprintf("http://127.0.0.1:%d/healthz", port)
		sctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		logPath, err := st.StartProcess(sctx, "orderhub-topology-"+cluster, bin,
			[]string{"topology", "--namespace=" + ns, "--leader-elect=true", "--metrics-bind-address=0",
				fmt.Sprintf("--health-probe-bind-address=127.0.0.1:%d", port)},
			[]string{"KUBECONFIG=" + st.Kube.Kubeconfig, "RABBITMQ_HOST=" + r.Host, "RABBITMQ_PORT=" + strconv.Itoa(r.ManagementPort),
				"RABBITMQ_USERNAME=" + r.User, "RABBITMQ_PASSWORD=" + r.Password, "RABBITMQ_CLUSTER_NAME=" + cluster},
			func(ctx context.Context) error { return httpGetOK(ctx, health) })
		cancel()
		if err != nil {
			t.Fatalf("start topology for %s: %v (log %s)", cluster, err, logPath)
		}
		v := &rmqv1.Vhost{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cluster},
			Spec: rmqv1.VhostSpec{Name: "two-" + cluster, RabbitmqClusterReference: rmqv1.RabbitmqClusterReference{Name: cluster}}}
		if err := c.Create(ctx, v); err != nil {
			t.Fatal(err)
		}
		vhosts = append(vhosts, v)
	}
	for _, v := range vhosts {
		testenv.Eventually(t, 2*time.Minute, "Vhost "+v.Name+" Ready", func() error {
			if err := c.Get(ctx, client.ObjectKeyFromObject(v), v); err != nil {
				return err
			}
			cond := meta.FindStatusCondition(v.Status.Conditions, rmqv1.ConditionReady)
			if cond == nil || cond.Status != metav1.ConditionTrue {
				return fmt.Errorf("Ready = %v", cond)
			}
			return nil
		})
		req, err := http.NewRequest(http.MethodGet, r.URL+"/api/vhosts/"+url.PathEscape(v.Spec.Name), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.SetBasicAuth(r.User, r.Password)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("vhost %s in the broker: %s, want 200", v.Spec.Name, resp.Status)
		}
	}
	var leases coordinationv1.LeaseList
	if err := c.List(ctx, &leases, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, l := range leases.Items {
		if strings.HasPrefix(l.Name, "orderhub-topology-") && l.Spec.HolderIdentity != nil && *l.Spec.HolderIdentity != "" {
			held = append(held, l.Name)
		}
	}
	if len(held) != 2 {
		t.Errorf("held topology Leases in %s: %v, want two", ns, held)
	}
}

// httpGetOK is nil when url answers 200.
func httpGetOK(ctx context.Context, url string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s: %s", url, resp.Status)
	}
	return nil
}

// envLookupOf is a getenv over kvs (NAME=value).
func envLookupOf(kvs []string) func(string) string {
	return func(k string) string {
		for _, kv := range kvs {
			if name, v, _ := strings.Cut(kv, "="); name == k {
				return v
			}
		}
		return ""
	}
}
