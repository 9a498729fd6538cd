//go:build integration

// Package incluster installs orderhub into the local stack's node the way a
// user does: the image index from hack/image.sh imported into the node's
// containerd, `helm install` of charts/orderhub, and an order served by the
// hub running in its pod (docs/local-stack.md). The backends (Keystone,
// RabbitMQ, the OpenBao-compatible server, K-ORC, ESO) stay host processes on
// loopback; the controllers' pods reach them through hostNetwork.
package incluster

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"

	"github.com/c5c3/orderhub/internal/testenv"
)

const (
	release   = "orderhub"
	releaseNS = "orderhub-system"
	version   = "v0.0.0-incluster"
)

// freePorts returns n distinct free loopback ports (released before use).
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports
}

func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", filepath.Base(name), strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// The chart installs on the node; hub, identity and topology become
// Available under their own ServiceAccounts; the live chainsaw suites
// keystone-service and keystone-user pass against the hub in its pod (its
// webhooks through their Service, failurePolicy Fail, the hub's own rotated
// certificate); the sample ControlPlane and KeystoneService, the identity
// sample (config/samples/identity) and the topology sample
// (config/samples/topology) reach Ready, reconciled by the controllers in
// their pods: no orderhub process runs on the host. `helm upgrade` with a
// changed value replaces the pods; the ServiceAccounts' API calls, read from
// the apiserver's audit log, were never refused (leastPrivilege); `helm
// uninstall` leaves the custom resources and their Keystone and broker objects
// in place.
func TestInCluster_HelmInstallSuitesSamplesUpgradeUninstall(t *testing.T) {
	chainsaw := testenv.ChainsawBin(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Minute)
	defer cancel()
	st, err := testenv.Start(ctx, testenv.Options{Node: true, NodeWait: 20 * time.Minute, Keystone: true, RabbitMQ: true, OpenBao: true,
		KORC: true, ESO: true, AuditLog: true, CRDPaths: []string{}, Logf: t.Logf}) // the chart installs orderhub's CRDs
	if err != nil {
		t.Fatalf("start the stack with a node: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			for name, path := range st.Logs() {
				b, _ := os.ReadFile(path)
				lines := strings.Split(strings.TrimSpace(string(b)), "\n")
				if len(lines) > 15 {
					lines = lines[len(lines)-15:]
				}
				t.Logf("%s log (%s):\n%s", name, path, strings.Join(lines, "\n"))
			}
		}
		if err := st.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	})
	repo, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(st.Kube.Config)
	if err != nil {
		t.Fatal(err)
	}
	kubectl := filepath.Join(st.ToolPath("ORDERHUB_K8S_DIR"), "kubectl")
	kenv := []string{"KUBECONFIG=" + st.Kube.Kubeconfig}

	// The image index, as `make image` builds it, into the node's containerd
	// (which imports its own platform); the chart runs it by the index digest.
	tarball := filepath.Join(t.TempDir(), "orderhub-image.tar")
	run(t, repo, nil, filepath.Join(repo, "hack", "image.sh"), version, "localhost/orderhub", tarball)
	if err := st.Node.ImportIndex(ctx, tarball, "localhost/orderhub"); err != nil {
		t.Fatal(err)
	}
	digest, err := os.ReadFile(tarball + ".digest")
	if err != nil {
		t.Fatal(err)
	}

	// What the chart's values name: the Keystone admin openrc Secret, the
	// broker's admin Secret. No OpenBao token: the SecretStores log in with
	// OpenBao's Kubernetes auth, which the stack set up.
	ks, rmq := st.Keystone, st.RabbitMQ
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: releaseNS}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]map[string]string{
		"keystone-keystone-admin": {"OS_AUTH_URL": ks.URL, "OS_USERNAME": ks.AdminUser, "OS_PASSWORD": ks.AdminPassword,
			"OS_USER_DOMAIN_NAME": ks.AdminUserDomain, "OS_PROJECT_NAME": ks.AdminProject,
			"OS_PROJECT_DOMAIN_NAME": ks.AdminProjectDomain, "OS_REGION_NAME": ks.Region, "OS_INTERFACE": "public"},
		"rabbitmq-admin-user": {"RABBITMQ_ADMIN_USERNAME": rmq.User, "RABBITMQ_ADMIN_PASSWORD": rmq.Password},
	} {
		if _, err := cs.CoreV1().Secrets(releaseNS).Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name},
			StringData: data}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// helm install. hostNetwork pods bind on the machine: free ports for each.
	p := freePorts(t, 7)
	set := []string{
		"image.repository=localhost/orderhub", "image.tag=" + version, "image.digest=" + strings.TrimSpace(string(digest)),
		"image.pullPolicy=IfNotPresent",
		"hub.hostNetwork=true", "identity.hostNetwork=true", "topology.hostNetwork=true",
		"hub.ports.health=" + strconv.Itoa(p[0]), "hub.ports.metrics=" + strconv.Itoa(p[1]), "hub.ports.webhook=" + strconv.Itoa(p[2]),
		"identity.ports.health=" + strconv.Itoa(p[3]), "identity.ports.metrics=" + strconv.Itoa(p[4]),
		"topology.ports.health=" + strconv.Itoa(p[5]), "topology.ports.metrics=" + strconv.Itoa(p[6]),
		"openbao.address=" + st.OpenBao.Addr, "openbao.kvMount=" + st.OpenBao.KVMount,
		"openbao.authMount=" + st.OpenBao.AuthMount, "openbao.role=" + st.OpenBao.Role,
		"openbao.serviceAccount=" + st.OpenBao.ServiceAccount,
		"topology.rabbitmq.host=127.0.0.1", "topology.rabbitmq.port=" + strconv.Itoa(rmq.ManagementPort),
	}
	args := []string{"install", release, filepath.Join(repo, "charts", "orderhub"), "--namespace", releaseNS,
		"--kubeconfig", st.Kube.Kubeconfig}
	for _, s := range set {
		args = append(args, "--set", s)
	}
	helm := st.ToolPath("ORDERHUB_HELM")
	helmEnv := []string{"HELM_CACHE_HOME=" + t.TempDir(), "HELM_CONFIG_HOME=" + t.TempDir(), "HELM_DATA_HOME=" + t.TempDir()}
	installed := time.Now()
	run(t, repo, helmEnv, helm, args...)

	deployments := []string{release + "-hub", release + "-identity", release + "-topology"}
	waitRolledOut(ctx, t, cs, deployments, "the three Deployments Available")
	t.Logf("helm install -> the three Deployments Available in %s", time.Since(installed).Round(100*time.Millisecond))
	pods, err := cs.CoreV1().Pods(releaseNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, pod := range pods.Items {
		if pod.Spec.NodeName != testenv.NodeName || !strings.HasPrefix(pod.Spec.ServiceAccountName, release+"-") {
			t.Fatalf("pod %s: node %q, serviceAccount %q", pod.Name, pod.Spec.NodeName, pod.Spec.ServiceAccountName)
		}
	}
	// The roles the chart grants, as rendered for this release.
	manifest := run(t, repo, helmEnv, helm, "get", "manifest", release, "--namespace", releaseNS, "--kubeconfig", st.Kube.Kubeconfig)

	kubectlGet := func(ns string, args ...string) ([]byte, error) {
		a := append([]string{"--kubeconfig", st.Kube.Kubeconfig, "-n", ns, "get"}, args...)
		out, err := exec.Command(kubectl, a...).CombinedOutput()
		if err != nil {
			return nil, fmt.Errorf("kubectl get %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return out, nil
	}
	// getObjects reads objects named as kubectl names them (<resource>.<group>/<name>).
	getObjects := func(ns string, objs []string) ([]unstructured.Unstructured, error) {
		out, err := kubectlGet(ns, append(append([]string{}, objs...), "-o", "json")...)
		if err != nil {
			return nil, err
		}
		var u unstructured.Unstructured
		if err := u.UnmarshalJSON(out); err != nil {
			return nil, err
		}
		if !u.IsList() {
			return []unstructured.Unstructured{u}, nil
		}
		l, err := u.ToList()
		if err != nil {
			return nil, err
		}
		return l.Items, nil
	}
	apply := func(t *testing.T, ns, what string, doc []byte, extra ...string) []string {
		t.Helper()
		// The webhooks (failurePolicy Fail) answer once the hub has put its
		// CA into their configurations: until then an apply is refused.
		var last string
		testenv.Eventually(t, 3*time.Minute, "apply "+what+" through the hub's webhooks", func() error {
			cmd := exec.Command(kubectl, append([]string{"-n", ns, "apply", "-f", "-"}, extra...)...)
			cmd.Env = append(os.Environ(), kenv...)
			cmd.Stdin = bytes.NewReader(doc)
			out, err := cmd.CombinedOutput()
			last = string(out)
			if err != nil {
				return fmt.Errorf("%v: %s", err, out)
			}
			return nil
		})
		t.Logf("%s", strings.TrimSpace(last))
		// "<resource>.<group>/<name> created|configured|unchanged"
		var applied []string
		for _, line := range strings.Split(strings.TrimSpace(last), "\n") {
			if f := strings.Fields(line); len(f) >= 2 {
				applied = append(applied, f[0])
			}
		}
		return applied
	}
	// waitReady waits until every object (kubectl's <resource>.<group>/<name>)
	// has Ready=True for its current generation.
	waitReady := func(ns, what string, objs []string) {
		t.Helper()
		begin := time.Now()
		testenv.Eventually(t, 5*time.Minute, what+" Ready", func() error {
			items, err := getObjects(ns, objs)
			if err != nil {
				return err
			}
			if len(items) != len(objs) {
				return fmt.Errorf("%d of %d objects", len(items), len(objs))
			}
			for _, o := range items {
				gen := o.GetGeneration()
				obs, _, _ := unstructured.NestedInt64(o.Object, "status", "observedGeneration")
				conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
				ready := false
				for _, c := range conds {
					m, _ := c.(map[string]any)
					cobs, _ := m["observedGeneration"].(int64)
					if m["type"] == "Ready" && m["status"] == "True" && (obs == gen || cobs == gen) {
						ready = true
					}
				}
				if !ready {
					return fmt.Errorf("%s/%s not Ready for generation %d: %v", o.GetKind(), o.GetName(), gen, conds)
				}
			}
			return nil
		})
		t.Logf("%s: %d objects Ready in %s", what, len(objs), time.Since(begin).Round(100*time.Millisecond))
	}

	// The sample ControlPlane (pointed at the stack's Keystone) in openstack:
	// admitted through the webhooks, so they serve before the suites start.
	ic, err := st.AdminIdentity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := roles.Create(ctx, ic, roles.CreateOpts{Name: "service"}).Extract(); err != nil {
		t.Fatalf("create role service: %v", err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "openstack"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Secrets("openstack").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "keystone-admin"},
		StringData: map[string]string{"password": ks.AdminPassword}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sample := func(parts ...string) []byte {
		t.Helper()
		b, err := os.ReadFile(filepath.Join(append([]string{repo, "config", "samples"}, parts...)...))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	plane := regexp.MustCompile(`(?m)^(\s*authURL:).*$`).ReplaceAll(sample("hub", "c5c3_v1alpha1_controlplane.yaml"), []byte("${1} "+ks.URL))
	apply(t, "openstack", "the ControlPlane", plane)

	// The live suites, against the hub in its pod. They clean up after
	// themselves (their namespaces and Keystone rows).
	for _, suite := range []string{"keystone-service", "keystone-user"} {
		if !t.Run("chainsaw/"+suite, func(t *testing.T) {
			st.RunChainsaw(t, chainsaw, filepath.Join(repo, "tests", "e2e", "c5c3", suite))
		}) {
			t.FailNow()
		}
	}

	// The sample KeystoneService, whose account needs the role "service".
	applied := time.Now()
	apply(t, "openstack", "the KeystoneService", sample("hub", "c5c3_v1alpha1_keystoneservice.yaml"))
	testenv.Eventually(t, 5*time.Minute, "KeystoneService openstack/workflow Ready", func() error {
		out, err := kubectlGet("openstack", "keystoneservice", "workflow",
			"-o", `jsonpath={range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}`)
		if err != nil {
			return err
		}
		if !regexp.MustCompile(`(?m)^Ready=True `).Match(out) {
			return fmt.Errorf("conditions:\n%s", out)
		}
		return nil
	})
	t.Logf("KeystoneService apply -> Ready in %s, reconciled by the hub pod", time.Since(applied).Round(100*time.Millisecond))
	if n := hubProcesses(t, st); n != 1 {
		t.Fatalf("%d orderhub hub processes in the node's pods, want 1", n)
	}

	// The webhooks were served through the Service with the hub's certificate.
	for _, kind := range []string{"mutatingwebhookconfigurations", "validatingwebhookconfigurations"} {
		out := run(t, repo, kenv, kubectl, "get", kind, "-o",
			`jsonpath={range .items[*].webhooks[*]}{.name} {.clientConfig.service.namespace}/{.clientConfig.service.name} {.failurePolicy} {.clientConfig.caBundle}{"\n"}{end}`)
		found := false
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			f := strings.Fields(line)
			if len(f) == 4 && strings.HasPrefix(f[1], releaseNS+"/") && f[2] == "Fail" && f[3] != "" {
				found = true
			}
		}
		if !found {
			t.Fatalf("%s: no webhook through a Service in %s with failurePolicy Fail and a caBundle:\n%s", kind, releaseNS, out)
		}
	}

	// The identity sample (OpenStack-Helm's Cinder set) and the topology
	// sample (a service's messaging account), in the release namespace the
	// two controllers serve.
	identityObjs := filterOut(apply(t, releaseNS, "the identity sample",
		append(append(sample("identity", "cinder-keystone-user-secret.yaml"), []byte("\n---\n")...), sample("identity", "cinder.yaml")...)), "secret/")
	topologyDoc := regexp.MustCompile(`(?m)^(\s*namespace:) openstack$`).ReplaceAll(sample("topology", "keystone-messaging-account.yaml"),
		[]byte("${1} "+releaseNS))
	topologyObjs := filterOut(apply(t, releaseNS, "the topology sample", topologyDoc), "secret/")
	waitReady(releaseNS, "the identity sample", identityObjs)
	waitReady(releaseNS, "the topology sample", topologyObjs)

	// helm upgrade to the same chart with a changed value: every pod is
	// replaced and runs with it.
	before := podUIDs(ctx, t, cs)
	upgraded := time.Now()
	run(t, repo, helmEnv, helm, "upgrade", release, filepath.Join(repo, "charts", "orderhub"), "--namespace", releaseNS,
		"--kubeconfig", st.Kube.Kubeconfig, "--reuse-values", "--set", "logLevel=debug")
	waitRolledOut(ctx, t, cs, deployments, "the three Deployments rolled out with logLevel=debug")
	t.Logf("helm upgrade -> the three Deployments rolled out in %s", time.Since(upgraded).Round(100*time.Millisecond))
	// A rolled-out Deployment no longer counts its old pods, but they are
	// still listed while they terminate (terminationGracePeriodSeconds 15):
	// every one of them must be gone before the new ones are checked.
	testenv.Eventually(t, 2*time.Minute, "the pods from before the upgrade gone", func() error {
		if pods, err = cs.CoreV1().Pods(releaseNS).List(ctx, metav1.ListOptions{}); err != nil {
			return err
		}
		for _, pod := range pods.Items {
			if before[pod.UID] {
				return fmt.Errorf("pod %s from before the upgrade: deletionTimestamp %v", pod.Name, pod.DeletionTimestamp)
			}
		}
		return nil
	})
	for _, pod := range pods.Items {
		if pod.DeletionTimestamp != nil {
			t.Fatalf("pod %s, started by the upgrade, is being deleted", pod.Name)
		}
		if args := strings.Join(pod.Spec.Containers[0].Args, " "); !strings.Contains(args, "--zap-log-level=debug") {
			t.Fatalf("pod %s after the upgrade: args %s", pod.Name, args)
		}
	}
	// The new hub pod serves the webhooks and reconciles: a new
	// generation of the sample KeystoneService (a third endpoint), admitted
	// through the webhooks, is Ready.
	waitReady("openstack", "the KeystoneService before its change", []string{"keystoneservice.c5c3.io/workflow"})
	testenv.Eventually(t, 3*time.Minute, "patch the KeystoneService through the new hub pod's webhooks", func() error {
		out, err := exec.Command(kubectl, "--kubeconfig", st.Kube.Kubeconfig, "-n", "openstack", "patch", "keystoneservice", "workflow",
			"--type=json", "-p", `[{"op":"add","path":"/spec/catalog/endpoints/-","value":{"interface":"admin","url":"http://workflow-admin.example.com:8989/v2"}}]`).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	})
	waitReady("openstack", "the KeystoneService after the upgrade", []string{"keystoneservice.c5c3.io/workflow"})
	waitReady(releaseNS, "the identity sample after the upgrade", identityObjs)
	waitReady(releaseNS, "the topology sample after the upgrade", topologyObjs)

	// Least privilege: every API call the controllers' ServiceAccounts made.
	leastPrivilege(t, st, manifest)

	// HA: two hub replicas, the leader deleted during a rotation.
	t.Run("ha", func(t *testing.T) {
		haRotationTakeover(ctx, t, haEnv{st: st, cs: cs,
			upgrade: func(t *testing.T, set ...string) {
				t.Helper()
				args := []string{"upgrade", release, filepath.Join(repo, "charts", "orderhub"), "--namespace", releaseNS,
					"--kubeconfig", st.Kube.Kubeconfig, "--reuse-values"}
				for _, s := range set {
					args = append(args, "--set", s)
				}
				run(t, repo, helmEnv, helm, args...)
			},
			apply: func(t *testing.T, ns, what string, doc []byte) { apply(t, ns, what, doc) },
		})
	})

	// helm uninstall: the controllers go; the CRDs (helm.sh/resource-policy:
	// keep), the custom resources and what they made in Keystone and the
	// broker (nothing deletes them: retain policies, no controller) stay.
	run(t, repo, helmEnv, helm, "uninstall", release, "--namespace", releaseNS, "--kubeconfig", st.Kube.Kubeconfig, "--wait")
	testenv.Eventually(t, 3*time.Minute, "the controllers' pods gone", func() error {
		pods, err := cs.CoreV1().Pods(releaseNS).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if len(pods.Items) > 0 {
			return fmt.Errorf("%d pods left, e.g. %s", len(pods.Items), pods.Items[0].Name)
		}
		return nil
	})
	for _, d := range deployments {
		if _, err := cs.AppsV1().Deployments(releaseNS).Get(ctx, d, metav1.GetOptions{}); err == nil {
			t.Fatalf("Deployment %s is still there after helm uninstall", d)
		}
	}
	out := run(t, repo, kenv, kubectl, "get", "crd", "-o", "name")
	for _, crd := range []string{"keystoneservices.c5c3.io", "controlplanes.c5c3.io", "users.keystone.osh.openstack.org", "vhosts.rabbitmq.osh.openstack.org"} {
		if !strings.Contains(out, "customresourcedefinition.apiextensions.k8s.io/"+crd+"\n") {
			t.Fatalf("CRD %s is gone after helm uninstall:\n%s", crd, out)
		}
	}
	for ns, objs := range map[string][]string{"openstack": {"controlplane.c5c3.io/cp", "keystoneservice.c5c3.io/workflow"},
		releaseNS: append(append([]string{}, identityObjs...), topologyObjs...)} {
		items, err := getObjects(ns, objs)
		if err != nil {
			t.Fatalf("after helm uninstall: %v", err)
		}
		for _, o := range items {
			if o.GetDeletionTimestamp() != nil {
				t.Fatalf("after helm uninstall, %s/%s is being deleted", o.GetKind(), o.GetName())
			}
		}
		if len(items) != len(objs) {
			t.Fatalf("after helm uninstall, %d of %d custom resources in %s", len(items), len(objs), ns)
		}
	}
	adm := func(args ...string) string {
		t.Helper()
		return run(t, repo, []string{"OS_CLIENT_CONFIG_FILE=" + ks.CloudsYAML}, "openstack", append([]string{"--os-cloud", "admin"}, args...)...)
	}
	if eps := adm("endpoint", "list", "--service", "workflow", "-f", "value", "-c", "Interface"); len(strings.Fields(eps)) != 3 {
		t.Fatalf("workflow endpoints after helm uninstall: %q", eps)
	}
	adm("user", "show", "--domain", "Default", "workflow")
	adm("project", "show", "--domain", "Default", "service-workflow")
	adm("user", "show", "--domain", "service", "cinder")
	adm("service", "show", "cinderv3")
	adm("role", "assignment", "list", "--user", "cinder", "--user-domain", "service", "--project", "service", "--project-domain", "service")
	if eps := adm("endpoint", "list", "--service", "cinderv3", "-f", "value", "-c", "Interface"); len(strings.Fields(eps)) != 3 {
		t.Fatalf("cinderv3 endpoints after helm uninstall: %q", eps)
	}
	for _, path := range []string{"/api/vhosts/keystone", "/api/users/keystone", "/api/permissions/keystone/keystone",
		"/api/policies/keystone/ha_ttl_keystone"} {
		if err := brokerGet(rmq, path); err != nil {
			t.Fatalf("after helm uninstall: %v", err)
		}
	}
	t.Logf("after helm uninstall: the CRDs, the custom resources, their Keystone rows and broker objects are in place")
}

// waitRolledOut waits until each Deployment has rolled out its current
// spec: observed, every replica updated and available, no old replica left.
func waitRolledOut(ctx context.Context, t *testing.T, cs kubernetes.Interface, names []string, what string) {
	t.Helper()
	testenv.Eventually(t, 5*time.Minute, what, func() error {
		for _, name := range names {
			d, err := cs.AppsV1().Deployments(releaseNS).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			ok := false
			for _, c := range d.Status.Conditions {
				ok = ok || (c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue)
			}
			want := *d.Spec.Replicas
			if !ok || d.Status.ObservedGeneration != d.Generation || d.Status.UpdatedReplicas != want ||
				d.Status.AvailableReplicas != want || d.Status.Replicas != want {
				return fmt.Errorf("%s: %+v", name, d.Status)
			}
		}
		return nil
	})
}

func podUIDs(ctx context.Context, t *testing.T, cs kubernetes.Interface) map[types.UID]bool {
	t.Helper()
	pods, err := cs.CoreV1().Pods(releaseNS).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m := map[types.UID]bool{}
	for _, p := range pods.Items {
		m[p.UID] = true
	}
	return m
}

func filterOut(objs []string, prefix string) []string {
	var out []string
	for _, o := range objs {
		if !strings.HasPrefix(o, prefix) {
			out = append(out, o)
		}
	}
	return out
}

// hubProcesses counts the `orderhub hub` processes in the node's kubepods
// cgroup (the pods) and fails when one on the host is pointed at this stack.
func hubProcesses(t *testing.T, st *testenv.Stack) int {
	t.Helper()
	inPod := 0
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		args := strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
		if filepath.Base(args[0]) != "orderhub" || len(args) < 2 || args[1] != "hub" {
			continue
		}
		cg, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cgroup"))
		if strings.Contains(string(cg), "/kubepods/") {
			inPod++
			continue
		}
		environ, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if strings.Contains(string(cmdline)+string(environ), st.Dir) {
			t.Fatalf("an orderhub hub on the host (pid %s) uses this stack: %q", e.Name(), args)
		}
	}
	return inPod
}

// brokerGet GETs a management API path of the stack's broker as its admin.
func brokerGet(r *testenv.RabbitMQ, path string) error {
	req, err := http.NewRequest(http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d%s", r.ManagementPort, path), nil)
	if err != nil {
		return err
	}
	req.SetBasicAuth(r.User, r.Password)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("broker GET %s: %s %s", path, resp.Status, b)
	}
	return nil
}
