package testenv

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// Kube is a running etcd + kube-apiserver.
type Kube struct {
	// Config authenticates as a system:masters user with a bearer token.
	Config *rest.Config
	// Kubeconfig is the path of a kubeconfig file holding the same credentials.
	Kubeconfig string
	// URL is the apiserver's https address.
	URL string
	// CAFile is the apiserver's self-signed serving CA bundle.
	CAFile string
	// AuditLog is the apiserver's audit log (Options.AuditLog): one
	// audit.k8s.io/v1 Event per line; empty without it.
	AuditLog string
}

// auditPolicy logs every request at the Metadata level, once it is answered
// (and when a watch's response starts).
const auditPolicy = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: Metadata
`

func (s *Stack) startKube(ctx context.Context) error {
	dir := filepath.Join(s.Dir, "kube")
	if err := need(filepath.Join(s.tools.k8sDir, "kube-apiserver"), "k8s"); err != nil {
		return err
	}
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	etcdPort, peerPort, apiPort := ports[0], ports[1], ports[2]
	for _, d := range []string{"etcd", "certs"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return err
		}
	}
	etcdURL := fmt.Sprintf("http://127.0.0.1:%d", etcdPort)
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", peerPort)
	etcd, err := s.startProc("etcd", filepath.Join(s.tools.k8sDir, "etcd"), []string{
		"--data-dir=" + filepath.Join(dir, "etcd"),
		"--listen-client-urls=" + etcdURL, "--advertise-client-urls=" + etcdURL,
		"--listen-peer-urls=" + peerURL, "--initial-advertise-peer-urls=" + peerURL,
		"--initial-cluster=default=" + peerURL,
		"--unsafe-no-fsync=true", "--log-level=warn",
	}, nil, dir)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, "etcd", etcd, time.Minute, func(ctx context.Context) error {
		return httpOK(ctx, http.DefaultClient, etcdURL+"/health", nil)
	}); err != nil {
		return err
	}

	token := randomHex(16)
	tokenFile := filepath.Join(dir, "tokens.csv")
	tokens := token + `,orderhub-admin,orderhub-admin,"system:masters"` + "\n"
	if s.opts.Node {
		// The kubelet's identity: the Node authorizer and NodeRestriction
		// recognize a node by this user name and group.
		s.nodeToken = randomHex(16)
		tokens += fmt.Sprintf("%s,system:node:%s,system:node:%s,\"system:nodes\"\n", s.nodeToken, NodeName, NodeName)
	}
	if err := os.WriteFile(tokenFile, []byte(tokens), 0o600); err != nil {
		return err
	}
	saKey := filepath.Join(dir, "certs", "sa.key")
	if err := writeRSAKey(saKey); err != nil {
		return err
	}
	url := fmt.Sprintf("https://127.0.0.1:%d", apiPort)
	admission := []string{"--authorization-mode=RBAC", "--disable-admission-plugins=ServiceAccount"}
	if s.opts.Node {
		// With a node, pods run: they get ServiceAccount tokens, the kubelet is
		// confined to its own node's objects, and the apiserver reaches the
		// kubelet (logs, exec) with a client certificate the kubelet trusts.
		kc, err := writeKubeletClientCerts(filepath.Join(dir, "certs"))
		if err != nil {
			return err
		}
		s.kubeletClientCA = kc.caFile
		admission = []string{"--authorization-mode=Node,RBAC", "--enable-admission-plugins=NodeRestriction",
			"--kubelet-client-certificate=" + kc.certFile, "--kubelet-client-key=" + kc.keyFile,
			"--kubelet-preferred-address-types=InternalIP",
			// Webhooks and aggregated APIs behind a Service are dialled at
			// their endpoints' addresses: there is no kube-proxy for Service IPs.
			"--enable-aggregator-routing=true"}
	}
	var auditLog string
	if s.opts.AuditLog {
		policy := filepath.Join(dir, "audit-policy.yaml")
		if err := os.WriteFile(policy, []byte(auditPolicy), 0o600); err != nil {
			return err
		}
		auditLog = filepath.Join(dir, "audit.log")
		admission = append(admission, "--audit-policy-file="+policy, "--audit-log-path="+auditLog,
			"--audit-log-format=json")
	}
	api, err := s.startProc("kube-apiserver", filepath.Join(s.tools.k8sDir, "kube-apiserver"), append([]string{
		"--etcd-servers=" + etcdURL,
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		// No "kubernetes" Service endpoints: 1.37 refuses a loopback address there.
		"--endpoint-reconciler-type=none",
		"--secure-port=" + strconv.Itoa(apiPort),
		// The apiserver writes a self-signed serving certificate here.
		"--cert-dir=" + filepath.Join(dir, "certs"),
		"--token-auth-file=" + tokenFile,
		"--service-account-issuer=" + url,
		"--service-account-key-file=" + saKey,
		"--service-account-signing-key-file=" + saKey,
		"--service-cluster-ip-range=" + serviceCIDR,
		"--allow-privileged=true",
		"--v=0",
	}, admission...), nil, dir)
	if err != nil {
		return err
	}
	caFile := filepath.Join(dir, "certs", "apiserver.crt")
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // readiness only
	if err := waitFor(ctx, "kube-apiserver", api, 2*time.Minute, func(ctx context.Context) error {
		return httpOK(ctx, insecure, url+"/readyz", map[string]string{"Authorization": "Bearer " + token})
	}); err != nil {
		return err
	}
	ca, err := os.ReadFile(caFile)
	if err != nil {
		return err
	}
	cfg := &rest.Config{Host: url, BearerToken: token, TLSClientConfig: rest.TLSClientConfig{CAData: ca},
		QPS: 200, Burst: 400}
	kubeconfig := filepath.Join(s.Dir, "kubeconfig")
	if err := writeKubeconfig(kubeconfig, url, token, ca); err != nil {
		return err
	}
	s.Kube = &Kube{Config: cfg, Kubeconfig: kubeconfig, URL: url, CAFile: caFile, AuditLog: auditLog}

	paths := s.opts.CRDPaths
	if paths == nil {
		paths = []string{filepath.Join(s.tools.repo, "config", "crd", "bases")}
	}
	if s.opts.KORC {
		paths = append(paths, filepath.Join(s.tools.korcDir, "crds"))
	}
	if s.opts.ESO {
		paths = append(paths, filepath.Join(s.tools.esoDir, "crds"))
	}
	if _, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{Paths: paths, MaxTime: 2 * time.Minute}); err != nil {
		return fmt.Errorf("install CRDs from %v: %w", paths, err)
	}
	return nil
}

// startControllerManager runs kube-controller-manager with only the garbage
// collector, namespace and ClusterRole aggregation controllers: owner-reference
// GC, namespace deletion and the aggregated admin/edit/view ClusterRoles,
// which envtest lacks; with Options.WorkloadControllers also the workload
// controllers; with a node, also the controllers pods need.
func (s *Stack) startControllerManager(ctx context.Context) error {
	port, err := freePort()
	if err != nil {
		return err
	}
	controllers := []string{"--controllers=garbagecollector,namespace,clusterrole-aggregation"}
	if s.opts.WorkloadControllers {
		controllers = []string{"--controllers=garbagecollector,namespace,clusterrole-aggregation,deployment,replicaset,statefulset,daemonset"}
	}
	if s.opts.Node {
		// Pods run: the workload controllers, each namespace's default
		// ServiceAccount and the kube-root-ca.crt ConfigMap its token volume
		// mounts (the apiserver's self-signed serving CA).
		controllers = []string{"--controllers=garbagecollector,namespace,clusterrole-aggregation,deployment,replicaset,statefulset,daemonset," +
			"job,cronjob,disruption,podgc,endpoints-controller,endpointslice,serviceaccount,root-ca-cert-publisher,nodelifecycle",
			"--root-ca-file=" + s.Kube.CAFile}
	}
	args := append([]string{"--kubeconfig=" + s.Kube.Kubeconfig}, controllers...)
	args = append(args,
		"--leader-elect=false",
		"--use-service-account-credentials=false",
		"--bind-address=127.0.0.1",
		"--secure-port="+strconv.Itoa(port),
		"--authentication-skip-lookup=true",
		"--concurrent-gc-syncs=5",
		"--v=0",
	)
	p, err := s.startProc("kube-controller-manager", filepath.Join(s.tools.k8sDir, "kube-controller-manager"), args, nil, s.Dir)
	if err != nil {
		return err
	}
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // readiness only
	return waitFor(ctx, "kube-controller-manager", p, 2*time.Minute, func(ctx context.Context) error {
		return httpOK(ctx, insecure, fmt.Sprintf("https://127.0.0.1:%d/healthz", port), nil)
	})
}

func writeKubeconfig(path, url, token string, ca []byte) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["orderhub"] = &clientcmdapi.Cluster{Server: url, CertificateAuthorityData: ca}
	cfg.AuthInfos["orderhub-admin"] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["orderhub"] = &clientcmdapi.Context{Cluster: "orderhub", AuthInfo: "orderhub-admin", Namespace: "default"}
	cfg.CurrentContext = "orderhub"
	return clientcmd.WriteToFile(*cfg, path)
}

func writeRSAKey(path string) error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// httpOK GETs url and succeeds on a 2xx answer.
func httpOK(ctx context.Context, c *http.Client, url string, header map[string]string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}
