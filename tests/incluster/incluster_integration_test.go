//go:build integration

// Package incluster installs orderhub into the local stack's node the way a
// user does: the image from hack/image.sh imported into the node's
// containerd, `helm install` of charts/orderhub, and an order served by the
// hub running in its pod (docs/local-stack.md). The backends (Keystone,
// RabbitMQ, the OpenBao-compatible server, K-ORC, ESO) stay host processes on
// loopback; the controllers' pods reach them through hostNetwork.
package incluster

import (
	"bytes"
	"context"
	"fmt"
	"net"
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
// Available under their own ServiceAccounts; the sample ControlPlane and
// KeystoneService are admitted through the hub's webhook Service
// (failurePolicy Fail, the hub's own rotated certificate) and the
// KeystoneService reaches Ready, reconciled by the hub in its pod: no
// orderhub process runs on the host.
func TestInCluster_HelmInstallAndAnOrderThroughTheHubPod(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancel()
	st, err := testenv.Start(ctx, testenv.Options{Node: true, NodeWait: 20 * time.Minute, Keystone: true, RabbitMQ: true, OpenBao: true,
		KORC: true, ESO: true, CRDPaths: []string{}, Logf: t.Logf}) // the chart installs orderhub's CRDs
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

	// The image, as `make image` builds it, into the node's containerd.
	tarball := filepath.Join(t.TempDir(), "orderhub-image.tar")
	run(t, repo, []string{"ORDERHUB_CRANE=" + st.ToolPath("ORDERHUB_CRANE")}, filepath.Join(repo, "hack", "image.sh"),
		version, "localhost/orderhub", tarball)
	if err := st.Node.ImportImage(ctx, tarball); err != nil {
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
		"image.repository=localhost/orderhub", "image.tag=" + version, "image.pullPolicy=IfNotPresent",
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
	installed := time.Now()
	run(t, repo, []string{"HELM_CACHE_HOME=" + t.TempDir(), "HELM_CONFIG_HOME=" + t.TempDir(), "HELM_DATA_HOME=" + t.TempDir()},
		helm, args...)

	want := []string{release + "-hub", release + "-identity", release + "-topology"}
	testenv.Eventually(t, 5*time.Minute, "the three Deployments Available", func() error {
		for _, name := range want {
			d, err := cs.AppsV1().Deployments(releaseNS).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			ok := false
			for _, c := range d.Status.Conditions {
				ok = ok || (c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue)
			}
			if !ok || d.Status.AvailableReplicas < 1 {
				return fmt.Errorf("%s: %+v", name, d.Status)
			}
		}
		return nil
	})
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

	// The order: the sample ControlPlane (pointed at the stack's Keystone) and
	// the sample KeystoneService, whose account needs the role "service".
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
	sample, err := os.ReadFile(filepath.Join(repo, "config", "samples", "hub", "c5c3_v1alpha1_controlplane.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	plane := regexp.MustCompile(`(?m)^(\s*authURL:).*$`).ReplaceAll(sample, []byte("${1} "+ks.URL))
	apply := func(what string, doc []byte) {
		t.Helper()
		// The webhooks (failurePolicy Fail) answer once the hub has put its
		// CA into their configurations: until then an apply is refused.
		var last string
		testenv.Eventually(t, 3*time.Minute, "apply "+what+" through the hub's webhooks", func() error {
			cmd := exec.Command(kubectl, "apply", "-f", "-")
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
	}
	apply("the ControlPlane", plane)
	service, err := os.ReadFile(filepath.Join(repo, "config", "samples", "hub", "c5c3_v1alpha1_keystoneservice.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	applied := time.Now()
	apply("the KeystoneService", service)
	testenv.Eventually(t, 5*time.Minute, "KeystoneService openstack/workflow Ready", func() error {
		out, err := exec.Command(kubectl, "--kubeconfig", st.Kube.Kubeconfig, "-n", "openstack", "get", "keystoneservice", "workflow",
			"-o", `jsonpath={range .status.conditions[*]}{.type}={.status} {.reason}: {.message}{"\n"}{end}`).CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		if !regexp.MustCompile(`(?m)^Ready=True `).Match(out) {
			return fmt.Errorf("conditions:\n%s", out)
		}
		return nil
	})
	t.Logf("KeystoneService apply -> Ready in %s, reconciled by the hub pod", time.Since(applied).Round(100*time.Millisecond))
	// Who reconciled it: an `orderhub hub` process in the node's kubepods
	// cgroup (the pod), and none on the host pointed at this stack.
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
	if inPod != 1 {
		t.Fatalf("%d orderhub hub processes in the node's pods, want 1", inPod)
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
}
