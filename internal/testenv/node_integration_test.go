//go:build integration

package testenv

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// hostView is what a node changes on the machine, read the way a person
// would: `ip -o link`, /proc/mounts, `iptables -S` and `ip6tables -S` of the
// filter, nat and mangle tables, the sysctls the kubelet and the bridge plugin
// set, kubepods cgroups, the kubelet's fixed folders and the node's state file.
type hostView struct {
	links, mounts, rules, sysctls, cgroups, dirs []string
}

func readHost(t *testing.T) hostView {
	t.Helper()
	run := func(name string, args ...string) []string {
		bin, err := sbin(name)
		if err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command(bin, args...).Output()
		if err != nil {
			t.Fatalf("%s %v: %v", name, args, err)
		}
		return strings.Split(strings.TrimSpace(string(out)), "\n")
	}
	var v hostView
	for _, line := range run("ip", "-o", "link", "show") {
		if f := strings.Fields(line); len(f) > 1 {
			name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
			v.links = append(v.links, name)
		}
	}
	mounts, err := os.ReadFile("/proc/mounts")
	if err != nil {
		t.Fatal(err)
	}
	v.mounts = strings.Split(strings.TrimSpace(string(mounts)), "\n")
	for _, fam := range []string{"iptables", "ip6tables"} {
		for _, table := range ruleTables {
			for _, r := range run(fam, "-w", "-t", table, "-S") {
				v.rules = append(v.rules, fam+" -t "+table+" "+r)
			}
		}
	}
	for _, k := range nodeSysctls {
		b, _ := os.ReadFile(sysctlPath(k))
		v.sysctls = append(v.sysctls, k+"="+strings.TrimSpace(string(b)))
	}
	v.cgroups = kubepodsCgroups()
	for _, d := range append(append([]string{}, nodeFixedDirs...), nodeStateFile) {
		if _, err := os.Lstat(d); err == nil {
			v.dirs = append(v.dirs, d)
		}
	}
	return v
}

// added lists the entries of b that a lacks.
func added(a, b []string) []string {
	seen := map[string]int{}
	for _, x := range a {
		seen[x]++
	}
	var out []string
	for _, x := range b {
		if seen[x] > 0 {
			seen[x]--
			continue
		}
		out = append(out, x)
	}
	sort.Strings(out)
	return out
}

func contains(list []string, sub string) bool {
	for _, x := range list {
		if strings.Contains(x, sub) {
			return true
		}
	}
	return false
}

// A stack with a node runs pods: the Node is Ready, a Deployment whose pod
// runs under its own ServiceAccount becomes Available, Jobs under the same
// account complete (on the pod network and with hostNetwork), each pod
// reaching the apiserver through the kubernetes Service with its token and
// RBAC granting and denying as its Role says, the apiserver reads the Jobs'
// logs from the kubelet,
// a second node on the machine is refused, and after teardown the machine
// shows no bridge, veth, mount, iptables rule, cgroup, sysctl change or folder
// of the node.
func TestNode_PodsRunAndTeardownLeavesNothing(t *testing.T) {
	before := readHostWithoutNode(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	t0 := time.Now()
	st, err := Start(ctx, Options{Node: true, NodeWait: 20 * time.Minute, Logf: t.Logf})
	if err != nil {
		t.Fatalf("start a stack with a node: %v", err)
	}
	t.Logf("stack with node %s Ready after %s", NodeName, time.Since(t0).Round(100*time.Millisecond))
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			if t.Failed() {
				for name, path := range st.Logs() {
					t.Logf("%s log (last lines of %s):\n%s", name, path, tail(path, 20))
				}
			}
			_ = st.Stop()
		}
	})
	cs, err := kubernetes.NewForConfig(st.Kube.Config)
	if err != nil {
		t.Fatal(err)
	}

	node, err := cs.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ready := false
	for _, c := range node.Status.Conditions {
		ready = ready || (c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue)
	}
	var internalIP string
	for _, a := range node.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			internalIP = a.Address
		}
	}
	if !ready || internalIP != st.Node.IP {
		t.Fatalf("node %s: Ready=%v InternalIP=%q (want %s); conditions %+v", NodeName, ready, internalIP, st.Node.IP, node.Status.Conditions)
	}

	// One node per machine: a second stack asking for one is refused.
	if second, err := Start(ctx, Options{Node: true}); err == nil {
		_ = second.Stop()
		t.Fatal("a second stack with a node started beside the first")
	} else if !strings.Contains(err.Error(), "a node already runs on this machine") {
		t.Fatalf("second node refused with an unclear error: %v", err)
	}

	// The workload image: nodeprobe, built static, on an empty base.
	work := t.TempDir()
	bin := filepath.Join(work, "nodeprobe")
	build := exec.Command("go", "build", "-trimpath", "-o", bin, "./nodeprobe")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build nodeprobe: %v: %s", err, out)
	}
	const image = "localhost/orderhub/nodeprobe:test"
	tarball := filepath.Join(work, "nodeprobe.tar")
	if err := st.BuildImage(ctx, image, tarball, map[string]string{"nodeprobe": bin}, []string{"/nodeprobe"}); err != nil {
		t.Fatal(err)
	}
	if err := st.Node.ImportImage(ctx, tarball); err != nil {
		t.Fatal(err)
	}

	// A namespace, a ServiceAccount whose Role reads one ConfigMap, and that ConfigMap.
	const ns, sa, cm = "node-test", "probe", "probe-config"
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}))
	must(cs.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: sa}}, metav1.CreateOptions{}))
	must(cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: cm}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{}))
	must(cs.RbacV1().Roles(ns).Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: sa},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, ResourceNames: []string{cm}, Verbs: []string{"get"}}}},
		metav1.CreateOptions{}))
	must(cs.RbacV1().RoleBindings(ns).Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: sa},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: sa},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: ns}}}, metav1.CreateOptions{}))

	podSpec := func(app, mode string, restart corev1.RestartPolicy, hostNetwork bool) corev1.PodTemplateSpec {
		return corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
			Spec: corev1.PodSpec{
				HostNetwork:                   hostNetwork,
				ServiceAccountName:            sa,
				RestartPolicy:                 restart,
				TerminationGracePeriodSeconds: ptr.To[int64](5),
				Containers: []corev1.Container{{
					Name: "probe", Image: image, ImagePullPolicy: corev1.PullNever,
					Command: []string{"/nodeprobe", mode},
					Env:     []corev1.EnvVar{{Name: "PROBE_SERVICE_ACCOUNT", Value: sa}, {Name: "PROBE_CONFIGMAP", Value: cm}},
					ReadinessProbe: func() *corev1.Probe {
						if mode != "serve" {
							return nil
						}
						return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(8080)}},
							PeriodSeconds: 1}
					}(),
					SecurityContext: &corev1.SecurityContext{RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To[int64](65532),
						AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
						Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}},
				}},
			},
		}
	}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "probe", Namespace: ns},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "probe-serve"}},
			Template: podSpec("probe-serve", "serve", corev1.RestartPolicyAlways, false)}}
	t1 := time.Now()
	must(cs.AppsV1().Deployments(ns).Create(ctx, dep, metav1.CreateOptions{}))
	// Two Jobs: one on the pod network, one in the node's network namespace
	// (hostNetwork: the kubernetes Service is reached through the OUTPUT DNAT).
	for name, host := range map[string]bool{"probe": false, "probe-host": true} {
		job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
			Spec: batchv1.JobSpec{BackoffLimit: ptr.To[int32](0), Template: podSpec(name+"-check", "check", corev1.RestartPolicyNever, host)}}
		must(cs.BatchV1().Jobs(ns).Create(ctx, job, metav1.CreateOptions{}))
	}

	Eventually(t, 3*time.Minute, "Deployment probe Available", func() error {
		d, err := cs.AppsV1().Deployments(ns).Get(ctx, "probe", metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range d.Status.Conditions {
			if c.Type == appsv1.DeploymentAvailable && c.Status == corev1.ConditionTrue && d.Status.AvailableReplicas == 1 {
				return nil
			}
		}
		return fmt.Errorf("status %+v", d.Status)
	})
	t.Logf("Deployment probe Available %s after it was created", time.Since(t1).Round(100*time.Millisecond))
	for _, name := range []string{"probe", "probe-host"} {
		Eventually(t, 3*time.Minute, "Job "+name+" Complete", func() error {
			j, err := cs.BatchV1().Jobs(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			for _, c := range j.Status.Conditions {
				if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
					t.Fatalf("Job %s failed: %s; pod log:\n%s", name, c.Message, jobLogs(ctx, cs, ns, name+"-check"))
				}
				if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
					return nil
				}
			}
			return fmt.Errorf("status %+v", j.Status)
		})
		t.Logf("Job %s Complete %s after the Deployment was created", name, time.Since(t1).Round(100*time.Millisecond))
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pods.Items {
		ip := st.podIPIn(p.Status.PodIP)
		if p.Spec.HostNetwork {
			ip = p.Status.PodIP == st.Node.IP
		}
		if p.Spec.NodeName != NodeName || p.Spec.ServiceAccountName != sa || !ip {
			t.Fatalf("pod %s: node %q, serviceAccount %q, IP %q (want %s, %s, in %s)", p.Name, p.Spec.NodeName,
				p.Spec.ServiceAccountName, p.Status.PodIP, NodeName, sa, st.Node.PodCIDR)
		}
	}
	// The apiserver reads the log from the kubelet (its client certificate,
	// the kubelet's webhook authorization): the probe's own account of the checks.
	for _, app := range []string{"probe-check", "probe-host-check"} {
		logs := jobLogs(ctx, cs, ns, app)
		for _, want := range []string{"identity system:serviceaccount:" + ns + ":" + sa + " via https://" + kubernetesService + ":443",
			"get configmap " + cm + " allowed", "list secrets forbidden"} {
			if !strings.Contains(logs, want) {
				t.Fatalf("pod %s: log lacks %q:\n%s", app, want, logs)
			}
		}
	}

	// While it runs, the node's host changes are there to be undone.
	during := readHost(t)
	for what, ok := range map[string]bool{
		"bridge " + nodeBridge:                 contains(during.links, nodeBridge),
		"bridge " + podBridge:                  contains(during.links, podBridge),
		"a veth":                               contains(added(before.links, during.links), "veth"),
		"the DNAT rule":                        contains(during.rules, "iptables -t nat -A PREROUTING -d "+kubernetesService+"/32"),
		"the FORWARD rule":                     contains(during.rules, "iptables -t filter -A FORWARD -s "+podCIDR),
		"the kubelet's KUBE-FIREWALL chain":    contains(during.rules, "-N KUBE-FIREWALL"),
		"mounts under the node folder":         contains(added(before.mounts, during.mounts), filepath.Join(st.Dir, "node")),
		"kubepods cgroups":                     len(during.cgroups) > 0,
		"the node state file " + nodeStateFile: contains(during.dirs, nodeStateFile),
	} {
		if !ok {
			t.Errorf("while the node runs, the host shows no %s", what)
		}
	}

	stopped = true
	t2 := time.Now()
	if err := st.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	t.Logf("teardown took %s", time.Since(t2).Round(100*time.Millisecond))
	assertHostAsBefore(t, before, readHost(t))
	if _, err := os.Stat(st.Dir); !os.IsNotExist(err) {
		t.Errorf("stack folder %s is still there (%v)", st.Dir, err)
	}
}

// assertHostAsBefore fails t for every node trace in after that before lacks.
// readHostWithoutNode waits until no stack on the machine runs a node (the
// node lock is free), undoes what a dead node owner left, and reads the host
// while it holds the lock: a snapshot taken while another stack's node runs,
// or before a killed one's changes are undone, would hold that node's
// sysctls, bridges and rules, which the teardown under test then removes.
// Stacks take the lock one at a time (NodeWait), so this wait ends when the
// other stack stops.
func readHostWithoutNode(t *testing.T) hostView {
	t.Helper()
	var h hostView
	Eventually(t, 20*time.Minute, "no other stack runs the node", func() error {
		l, err := net.Listen("unix", nodeLockName)
		if err != nil {
			return err
		}
		defer l.Close()
		if r, ok := reapNodeHeld(); ok {
			t.Logf("reaper: %s", r)
		}
		h = readHost(t)
		return nil
	})
	return h
}

// takeNodeLock takes the node lock as soon as it is free, for up to
// 10 seconds, so a killed owner's node stays as it left it: every other
// stack's Start reaps a dead owner's node once it holds the lock.
func takeNodeLock(t *testing.T) net.Listener {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; {
		l, err := net.Listen("unix", nodeLockName)
		if err == nil {
			return l
		}
		if time.Now().After(deadline) {
			t.Fatalf("the killed child's node lock is still held: %v", err)
		}
		time.Sleep(time.Millisecond) // the child's exit releases it at once
	}
}

func assertHostAsBefore(t *testing.T, before, after hostView) {
	t.Helper()
	for what, diff := range map[string][]string{
		"interfaces (ip -o link)":                          added(before.links, after.links),
		"mounts (/proc/mounts)":                            added(before.mounts, after.mounts),
		"iptables rules or chains (iptables/ip6tables -S)": added(before.rules, after.rules),
		"sysctls":                 added(before.sysctls, after.sysctls),
		"kubepods cgroups":        added(before.cgroups, after.cgroups),
		"folders and state files": added(before.dirs, after.dirs),
	} {
		if len(diff) > 0 {
			t.Errorf("after teardown the machine still has %s: %v", what, diff)
		}
	}
}

func (s *Stack) podIPIn(ip string) bool { return ip != "" && cidrContains(s.Node.PodCIDR, ip) }

func jobLogs(ctx context.Context, cs kubernetes.Interface, ns, app string) string {
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=" + app})
	if err != nil || len(pods.Items) == 0 {
		return fmt.Sprintf("(no Job pod: %v)", err)
	}
	b, err := cs.CoreV1().Pods(ns).GetLogs(pods.Items[0].Name, &corev1.PodLogOptions{}).Do(ctx).Raw()
	if err != nil {
		return fmt.Sprintf("(logs of %s: %v)", pods.Items[0].Name, err)
	}
	return string(b)
}

// nodeChildDirEnv makes the test binary the owner of a stack with a node and
// one running pod, for TestNode_KilledRunIsUndone: it reports ready and waits
// to be killed.
const nodeChildDirEnv = "ORDERHUB_TESTENV_NODE_CHILD_DIR"

func runNodeChild(dir string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	st, err := Start(ctx, Options{Node: true, NodeWait: 20 * time.Minute, Dir: dir})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cs, err := kubernetes.NewForConfig(st.Kube.Config)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	// A pod of the sandbox image itself (it blocks until SIGTERM): its shim,
	// its processes, veth, mounts and cgroups are what a killed run leaves.
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "left-behind", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: st.tools.env["ORDERHUB_PAUSE_IMAGE"],
			ImagePullPolicy: corev1.PullNever, Command: []string{"/pause"}}}}}
	if err := waitFor(ctx, "pod left-behind Running", nil, 3*time.Minute, func(ctx context.Context) error {
		got, err := cs.CoreV1().Pods("default").Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			// Created once the default ServiceAccount exists (admission needs it).
			_, cerr := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
			return fmt.Errorf("get: %v; create: %v", err, cerr)
		}
		if got.Status.Phase != corev1.PodRunning {
			return fmt.Errorf("phase %s", got.Status.Phase)
		}
		return nil
	}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := os.WriteFile(filepath.Join(dir, "child-ready"), nil, 0o644); err != nil {
		return 1
	}
	select {} // until killed
}

// When the owner of a stack with a node is SIGKILLed mid-run, its pod's shim
// and processes, bridges, veth, mounts, iptables rules and cgroups stay; the
// next run's reaper (ReapOrphans, as every Start and `hack/stack down` call
// it) undoes all of it.
func TestNode_KilledRunIsUndone(t *testing.T) {
	before := readHostWithoutNode(t)
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), nodeChildDirEnv+"="+dir)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tools, err := findTools()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		ReapOrphans(tools.cache) // whatever happened, the node does not outlive the test
	})
	Eventually(t, 5*time.Minute, "child stack with a running pod", func() error {
		select {
		case err := <-done:
			t.Fatalf("child exited early: %v", err)
		default:
		}
		_, err := os.Stat(filepath.Join(dir, "child-ready"))
		return err
	})
	_ = cmd.Process.Signal(syscall.SIGKILL)
	<-done
	// Hold the lock the child held, so no other stack on the machine reaps
	// its node before the checks below.
	lock := takeNodeLock(t)
	defer lock.Close()

	// The owner is gone; what its node did to the host is still there, and
	// so is the pod's shim (containerd's shims outlive containerd by design).
	left := readHost(t)
	for what, ok := range map[string]bool{
		"bridge " + podBridge:   contains(left.links, podBridge),
		"the DNAT rule":         contains(left.rules, "--comment "+ruleComment),
		"the node's mounts":     contains(added(before.mounts, left.mounts), filepath.Join(dir, "node")),
		"kubepods cgroups":      len(left.cgroups) > 0,
		"a shim of the node":    len(nodeShims(filepath.Join(dir, "node"))) > 0,
		"the node's state file": contains(left.dirs, nodeStateFile),
	} {
		if !ok {
			t.Errorf("right after the kill, the host shows no %s", what)
		}
	}

	for _, r := range ReapOrphans(tools.cache) {
		t.Logf("reaper: %s", r)
	}
	if r, ok := reapNodeHeld(); ok { // ReapOrphans leaves a node whose lock is held
		t.Logf("reaper: %s", r)
	}
	assertHostAsBefore(t, before, readHost(t))
	if shims := nodeShims(filepath.Join(dir, "node")); len(shims) > 0 {
		t.Errorf("shims of the killed node still run: %v", shims)
	}
}

// nodeShims lists the pids of containerd shims serving the node in nodeDir.
func nodeShims(nodeDir string) []int {
	var pids []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(cmd, "containerd-shim-runc-v2") && strings.Contains(cmd, nodeDir) {
			var pid int
			fmt.Sscan(e.Name(), &pid)
			if isAlive(pid) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}
