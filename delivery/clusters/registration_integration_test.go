//go:build integration

package clusters_test

import (
	"context"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/multicluster-runtime/pkg/multicluster"

	"github.com/c5c3/orderhub/delivery/clusters"
	"github.com/c5c3/orderhub/internal/testenv"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/config"
)

// trap is a loopback TCP listener that accepts connections, counts them and
// never answers: an apiserver that hangs, or a server that must never be
// reached.
type trap struct {
	ln       net.Listener
	accepted atomic.Int64
}

func newTrap(t *testing.T) *trap {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tr := &trap{ln: ln}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			tr.accepted.Add(1)
			t.Cleanup(func() { _ = c.Close() })
		}
	}()
	return tr
}

func (tr *trap) url() string { return "https://" + tr.ln.Addr().String() }

// hungAPIServer proxies a real apiserver but holds every ConfigMap request
// until the caller gives up: an apiserver that hangs after discovery.
type hungAPIServer struct {
	srv    *httptest.Server
	caData string // base64 of the server's certificate, for a kubeconfig
	lists  atomic.Int64
}

func newHungAPIServer(t *testing.T, backend *rest.Config) *hungAPIServer {
	t.Helper()
	u, err := url.Parse(backend.Host)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := rest.TransportFor(backend)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.Transport = tr
	h := &hungAPIServer{}
	release := make(chan struct{})
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.Contains(r.URL.Path, "/configmaps") {
			h.lists.Add(1)
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		r.Header.Del("Authorization")
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { close(release); h.srv.Close() })
	h.caData = base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw}))
	return h
}

// TestIntegration_RegistrationGuards registers, on one hub, kubeconfigs that
// carry a refused field (each pointed at a trap listener), a cluster whose
// server hangs, and then a working target. Each refusal is a Warning event
// on its Secret naming the field, and nothing reaches the trap (the exec
// plugin never runs); the hung cluster times out with an event; the working
// target engages while the hung one is still being retried.
func TestIntegration_RegistrationGuards(t *testing.T) {
	ctrl.SetLogger(zap.New(zap.WriteTo(os.Stderr)))
	hub := testenv.ForTest(t, testenv.Options{Kube: true})
	target := testenv.ForTest(t, testenv.Options{Kube: true})
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(target.Kube.Kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := clientcmd.Load(good)
	if err != nil {
		t.Fatal(err)
	}
	caData := base64.StdEncoding.EncodeToString(raw.Clusters[raw.Contexts[raw.CurrentContext].Cluster].CertificateAuthorityData)
	hubDirect, err := client.New(hub.Kube.Config, client.Options{Scheme: scheme})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := hubDirect.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: hubNamespace}}); err != nil {
		t.Fatal(err)
	}

	h, err := clusters.New(ctx, hub.Kube.Config, manager.Options{
		Scheme: scheme, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		// TestIntegration_Clusters starts the same registration controller
		// in this process; controller-runtime refuses a second of one name.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	}, &clusters.Options{Namespace: hubNamespace, CacheSyncTimeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	// An index gives every target cluster's cache an informer to sync, as
	// the order reconcilers' indexes do.
	if err := h.IndexField(ctx, &corev1.ConfigMap{}, "metadata.name", func(o client.Object) []string {
		return []string{o.GetName()}
	}); err != nil {
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

	refusedTrap := newTrap(t)
	marker := filepath.Join(t.TempDir(), "exec-ran")
	refused := map[string]struct{ cluster, user, field string }{
		"refused-exec": {user: fmt.Sprintf("exec: {apiVersion: client.authentication.k8s.io/v1, command: /bin/sh, args: [-c, 'touch %s'], interactiveMode: Never}", marker),
			field: "users[u].user.exec"},
		"refused-token-file": {user: "tokenFile: /var/run/secrets/kubernetes.io/serviceaccount/token", field: "users[u].user.tokenFile"},
		"refused-insecure":   {cluster: "insecure-skip-tls-verify: true", user: "token: t", field: "clusters[c].cluster.insecure-skip-tls-verify"},
		"refused-proxy":      {cluster: "proxy-url: http://" + refusedTrap.ln.Addr().String(), user: "token: t", field: "clusters[c].cluster.proxy-url"},
		"refused-ca-file":    {cluster: "certificate-authority: /etc/ssl/certs/ca-certificates.crt", user: "token: t", field: "clusters[c].cluster.certificate-authority"},
	}
	for name, r := range refused {
		register(ctx, t, hubDirect, name, registrationKubeconfig(refusedTrap.url(), caData, r.cluster, r.user))
	}
	for name, r := range refused {
		waitEvent(t, hubDirect, name, clusters.EventKubeconfigRefused, r.field)
	}
	if n := refusedTrap.accepted.Load(); n != 0 {
		t.Errorf("a refused registration reached its server: %d connections", n)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Errorf("the exec plugin of a refused registration ran (%s: %v)", marker, err)
	}

	// A cluster whose server answers discovery but never a list: the hub is
	// waiting on its cache once a list has arrived.
	hung := newHungAPIServer(t, target.Kube.Config)
	register(ctx, t, hubDirect, "hung", registrationKubeconfig(hung.srv.URL, hung.caData, "", "token: t"))
	testenv.Eventually(t, time.Minute, "hub listing on the hung server", func() error {
		if hung.lists.Load() == 0 {
			return fmt.Errorf("no list yet")
		}
		return nil
	})
	register(ctx, t, hubDirect, targetName, good)
	testenv.Eventually(t, time.Minute, "working target engaged beside the hung one", func() error {
		if got := h.TargetClusters(); !slices.Equal(got, []multicluster.ClusterName{targetName}) {
			return fmt.Errorf("engaged target clusters %v", got)
		}
		return nil
	})
	waitEvent(t, hubDirect, "hung", clusters.EventCacheSyncTimeout, "did not sync")
}

// registrationKubeconfig renders a one-context kubeconfig for server with
// inline CA data and extra lines under the cluster and the user.
func registrationKubeconfig(server, caData, clusterExtra, userExtra string) []byte {
	var cl string
	if clusterExtra != "" {
		cl = "\n    " + clusterExtra
	}
	return []byte(`apiVersion: v1
kind: Config
current-context: t
contexts:
- name: t
  context: {cluster: c, user: u}
clusters:
- name: c
  cluster:
    server: ` + server + `
    certificate-authority-data: ` + caData + cl + `
users:
- name: u
  user:
    ` + userExtra + "\n")
}

func register(ctx context.Context, t *testing.T, cl client.Client, name string, kubeconfig []byte) {
	t.Helper()
	if err := cl.Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: hubNamespace, Name: name,
			Labels: map[string]string{clusters.DefaultSecretLabel: "true"}},
		Data: map[string][]byte{clusters.DefaultSecretKey: kubeconfig},
	}); err != nil {
		t.Fatal(err)
	}
}

// waitEvent waits for a Warning event of reason on the registration Secret
// name whose note contains want.
func waitEvent(t *testing.T, cl client.Client, name, reason, want string) {
	t.Helper()
	testenv.Eventually(t, time.Minute, reason+" event on "+name, func() error {
		var evs eventsv1.EventList
		if err := cl.List(context.Background(), &evs, client.InNamespace(hubNamespace)); err != nil {
			return err
		}
		for _, e := range evs.Items {
			if e.Regarding.Name == name && e.Reason == reason && e.Type == corev1.EventTypeWarning && strings.Contains(e.Note, want) {
				return nil
			}
		}
		return fmt.Errorf("no %s event naming %q on %s among %d events", reason, want, name, len(evs.Items))
	})
}
