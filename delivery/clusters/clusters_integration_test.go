//go:build integration

package clusters_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	mcbuilder "sigs.k8s.io/multicluster-runtime/pkg/builder"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"
	mcreconcile "sigs.k8s.io/multicluster-runtime/pkg/reconcile"

	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/testenv"
)

const (
	hubNamespace = "orderhub-system"
	workNS       = "default"
	targetName   = "target-a"
	echoLabel    = "test.orderhub/echo"
	// clusterKey is the echo Secret's key naming the cluster the reconciler
	// was asked about (req.ClusterName; "" is the management cluster).
	clusterKey = "cluster"
)

// TestIntegration_Clusters starts two apiservers: the hub (management
// cluster) and a target registered by a labelled kubeconfig Secret in the
// hub namespace. A multicluster ConfigMap reconciler engaged on both writes
// an echo Secret beside each labelled ConfigMap, on the cluster the request
// came from. Deleting the registration Secret disengages the target.
func TestIntegration_Clusters(t *testing.T) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	hub := testenv.ForTest(t, testenv.Options{Kube: true})
	target := testenv.ForTest(t, testenv.Options{Kube: true})

	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}

	// The target's kubeconfig file names a loopback apiserver and works from
	// this (the hub's) process: the bytes registered are exactly these.
	kubeconfig, err := os.ReadFile(target.Kube.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := clientcmd.Load(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	server := raw.Clusters[raw.Contexts[raw.CurrentContext].Cluster].Server
	u, err := url.Parse(server)
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(u.Hostname()); (ip == nil || !ip.IsLoopback()) && u.Hostname() != "localhost" {
		t.Fatalf("target kubeconfig server %s is not a loopback address", server)
	}
	restFromFile, err := clientcmd.RESTConfigFromKubeConfig(kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	targetDirect, err := client.New(restFromFile, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	hubDirect, err := client.New(hub.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := targetDirect.List(ctx, &corev1.NamespaceList{}); err != nil {
		t.Fatalf("the target kubeconfig (server %s) does not work from the hub process: %v", server, err)
	}

	// Register the target.
	if err := hubDirect.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hubNamespace}}); err != nil {
		t.Fatal(err)
	}
	reg := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: hubNamespace, Name: targetName,
			Labels: map[string]string{clusters.DefaultSecretLabel: "true"}},
		Data: map[string][]byte{clusters.DefaultSecretKey: kubeconfig},
	}
	if err := hubDirect.Create(ctx, reg); err != nil {
		t.Fatal(err)
	}

	h, err := clusters.New(ctx, hub.Kube.Config, manager.Options{
		Scheme:                 scheme,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
	}, &clusters.Options{Namespace: hubNamespace})
	if err != nil {
		t.Fatal(err)
	}
	if err := mcbuilder.ControllerManagedBy(h.Manager).Named("echo").
		For(&corev1.ConfigMap{}, mcbuilder.WithEngageWithLocalCluster(true)).
		Complete(mcreconcile.Func(func(ctx context.Context, req mcreconcile.Request) (ctrl.Result, error) {
			return ctrl.Result{}, echo(ctx, h, req)
		})); err != nil {
		t.Fatal(err)
	}
	mgrDone := make(chan error, 1)
	mgrCtx, stopMgr := context.WithCancel(ctx)
	go func() { mgrDone <- h.Manager.Start(mgrCtx) }()
	t.Cleanup(func() {
		stopMgr()
		if err := <-mgrDone; err != nil {
			t.Errorf("manager: %v", err)
		}
	})

	testenv.Eventually(t, time.Minute, "target cluster engaged", func() error {
		if got := h.TargetClusters(); !slices.Equal(got, []multicluster.ClusterName{targetName}) {
			return fmt.Errorf("engaged target clusters %v", got)
		}
		return nil
	})

	// An object on the target is reconciled by the hub and its output is
	// written on the target; a local object is still reconciled, locally.
	if err := targetDirect.Create(ctx, echoConfigMap("on-target")); err != nil {
		t.Fatal(err)
	}
	if err := hubDirect.Create(ctx, echoConfigMap("on-hub")); err != nil {
		t.Fatal(err)
	}
	waitEcho(t, targetDirect, "on-target", targetName)
	waitEcho(t, hubDirect, "on-hub", string(clusters.LocalCluster))
	// Each echo was written once, where its ConfigMap lives: the other
	// cluster holds no Secret of that name (the reconciler has already run).
	for _, c := range []struct {
		cl   client.Client
		name string
	}{{hubDirect, "on-target-echo"}, {targetDirect, "on-hub-echo"}} {
		if err := c.cl.Get(ctx, client.ObjectKey{Namespace: workNS, Name: c.name}, &corev1.Secret{}); !apierrors.IsNotFound(err) {
			t.Fatalf("Secret %s on the wrong cluster: %v", c.name, err)
		}
	}
	if _, err := h.Client(ctx, "not-registered"); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Fatalf("Client of an unregistered cluster: %v, want ErrClusterNotFound", err)
	}

	// Deregister: the target is disengaged and its name no longer resolves.
	if err := hubDirect.Delete(ctx, reg); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "target cluster disengaged", func() error {
		if got := h.TargetClusters(); len(got) != 0 {
			return fmt.Errorf("engaged target clusters %v", got)
		}
		if _, err := h.Manager.GetCluster(ctx, targetName); !errors.Is(err, multicluster.ErrClusterNotFound) {
			return fmt.Errorf("GetCluster(%s): %v", targetName, err)
		}
		return nil
	})
	if _, err := h.Client(ctx, targetName); !errors.Is(err, multicluster.ErrClusterNotFound) {
		t.Fatalf("Client(%s) after deregistration: %v, want ErrClusterNotFound", targetName, err)
	}
	// The management cluster is still served after the target is gone.
	if err := hubDirect.Create(ctx, echoConfigMap("on-hub-after")); err != nil {
		t.Fatal(err)
	}
	waitEcho(t, hubDirect, "on-hub-after", string(clusters.LocalCluster))
}

// echo writes <name>-echo beside a ConfigMap labelled echoLabel=true, on the
// cluster the request names, with that cluster's name under clusterKey.
func echo(ctx context.Context, h *clusters.Hub, req mcreconcile.Request) error {
	if err := clusters.ValidateClusterName(req.ClusterName); err != nil {
		return err
	}
	cl, err := h.Client(ctx, req.ClusterName)
	if err != nil {
		return err // wraps ErrClusterNotFound: the builder's wrapper drops the request
	}
	var cm corev1.ConfigMap
	if err := cl.Get(ctx, req.NamespacedName, &cm); err != nil {
		return client.IgnoreNotFound(err)
	}
	if cm.Labels[echoLabel] != "true" {
		return nil
	}
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name + "-echo"},
		Data: map[string][]byte{clusterKey: []byte(req.ClusterName)}}
	return client.IgnoreAlreadyExists(cl.Create(ctx, s))
}

func echoConfigMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: workNS, Name: name,
		Labels: map[string]string{echoLabel: "true"}}}
}

// waitEcho waits for <cm>-echo on cl and checks it names cluster.
func waitEcho(t *testing.T, cl client.Client, cm, cluster string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, "echo of "+cm, func() error {
		var s corev1.Secret
		if err := cl.Get(context.Background(), client.ObjectKey{Namespace: workNS, Name: cm + "-echo"}, &s); err != nil {
			return err
		}
		if got := string(s.Data[clusterKey]); got != cluster {
			return fmt.Errorf("echo of %s names cluster %q, want %q", cm, got, cluster)
		}
		return nil
	})
}
