package testenv

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// The node (Options.Node): kube-scheduler, containerd and a kubelet that
// registers as Node NodeName, so pods run on this machine. docs/local-stack.md
// describes the set-up and what teardown undoes. The node changes the host
// (two bridges, iptables rules, sysctls the kubelet and the CNI bridge plugin
// set, kubepods cgroups, mounts, a few fixed folders), so only one stack on the
// machine runs a node at a time: it holds an abstract unix socket
// (nodeLockName, released by the kernel when its owner dies) and records every
// host change in nodeStateFile before making it. Whoever next takes the lock
// (a node start, any Start through ReapOrphans, `hack/stack down`) undoes what
// a dead owner recorded.

// NodeName is the name the kubelet registers; its API identity is
// system:node:<NodeName> in group system:nodes.
const NodeName = "orderhub-node"

const (
	nodeLockName  = "@orderhub-node"
	nodeStateFile = "/run/orderhub-node.json"
	// nodeBridge carries the node IP: the kubelet refuses a loopback node IP
	// and this kind of kernel has no dummy interface driver.
	nodeBridge = "ohnode0"
	nodeIP     = "10.254.254.1"
	// podBridge is the CNI bridge, created by the stack so its route_localnet
	// can be set before the first pod; the bridge plugin adopts it.
	podBridge  = "ohcni0"
	podCIDR    = "10.244.0.0/24"
	podGateway = "10.244.0.1"
	// serviceCIDR is the apiserver's service range; the kubernetes Service
	// takes its first address.
	serviceCIDR       = "10.0.0.0/24"
	kubernetesService = "10.0.0.1"
	// ruleComment marks every iptables rule the node adds.
	ruleComment = "orderhub-node"
)

// Sysctls the kubelet (kernel.*, vm.*) and the CNI bridge plugin
// (ip_forward) change on the host; restored at teardown.
var nodeSysctls = []string{"kernel.panic", "kernel.panic_on_oops", "vm.overcommit_memory", "vm.panic_on_oom",
	"kernel.keys.root_maxkeys", "kernel.keys.root_maxbytes", "net.ipv4.ip_forward"}

// Host folders the kubelet, containerd's shims and the CNI plugins create
// whatever their flags say; removed at teardown when the node created them.
var nodeFixedDirs = []string{"/var/lib/kubelet", "/var/log/containers", "/run/containerd", "/var/lib/cni"}

// Node is a running node of the stack.
type Node struct {
	// Name is the Node object's name (NodeName).
	Name string
	// IP is the node's InternalIP, on a bridge the stack created.
	IP string
	// PodCIDR is the pods' network (a CNI bridge the stack created).
	PodCIDR string
	// ContainerdAddress is containerd's socket; Ctr is the matching ctr binary.
	ContainerdAddress string
	Ctr               string

	iptables string
}

// Expose makes a server the stack binds on 127.0.0.1:port reachable at the
// node IP on the same port, from pods on the pod network (PREROUTING, the pod
// bridge has route_localnet) and from the host (OUTPUT), so one URL,
// http://<IP>:<port>, serves pods and host processes alike. The DNAT rules
// are tagged like the node's others and removed at teardown.
func (n *Node) Expose(port int) error {
	p := strconv.Itoa(port)
	for _, rule := range [][]string{
		{"PREROUTING", "-s", podCIDR, "-d", nodeIP + "/32", "-p", "tcp", "--dport", p},
		{"OUTPUT", "-d", nodeIP + "/32", "-p", "tcp", "--dport", p},
	} {
		args := append(append([]string{"-w", "-t", "nat", "-A"}, rule...),
			"-m", "comment", "--comment", ruleComment, "-j", "DNAT", "--to-destination", "127.0.0.1:"+p)
		if out, err := exec.Command(n.iptables, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("iptables %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	return nil
}

// ImportImage loads an image tarball (docker save or OCI layout, as `crane
// pull` or `crane append -o` write it) into the node's containerd, where pods
// with imagePullPolicy Never or IfNotPresent find it by its tag.
func (n *Node) ImportImage(ctx context.Context, tarball string) error {
	out, err := exec.CommandContext(ctx, n.Ctr, "--address", n.ContainerdAddress, "-n", "k8s.io",
		"images", "import", tarball).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ctr images import %s: %v: %s", tarball, err, out)
	}
	return nil
}

// ImportIndex loads an OCI layout tarball of an image index (make image)
// into the node's containerd with `ctr images import --local --base-name
// repository --digests`: the node's own platform, named by the layout's
// io.containerd.image.name and also repository@<index digest>, so pods
// that name the image by digest (the chart's image.digest) find it.
// --local: through the transfer service (ctr's default) the digest name
// is that of a platform-filtered index, not the index's own digest
// (https://github.com/containerd/containerd/blob/main/client/import.go).
func (n *Node) ImportIndex(ctx context.Context, tarball, repository string) error {
	out, err := exec.CommandContext(ctx, n.Ctr, "--address", n.ContainerdAddress, "-n", "k8s.io",
		"images", "import", "--local", "--base-name", repository, "--digests", tarball).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ctr images import %s: %v: %s", tarball, err, out)
	}
	return nil
}

// nodeState is what the node changed on the host, written to nodeStateFile
// before each change so a later run can undo a dead one's.
type nodeState struct {
	Owner            int               `json:"owner"`
	Dir              string            `json:"dir"`
	ContainerdSocket string            `json:"containerdSocket"`
	Bridges          []string          `json:"bridges"`
	Sysctls          map[string]string `json:"sysctls"`
	// CreatedDirs are the nodeFixedDirs that did not exist before.
	CreatedDirs []string `json:"createdDirs"`
	// CgroupsExisted is true when a kubepods cgroup was there before.
	CgroupsExisted bool `json:"cgroupsExisted"`
	// Chains are the iptables chains there before, by "<family> <table>":
	// the kubelet adds KUBE-FIREWALL, KUBE-KUBELET-CANARY and KUBE-IPTABLES-HINT
	// chains (and jumps to them) in both families whatever its flags say.
	Chains map[string][]string `json:"chains"`
}

// ruleTables are the iptables tables the node and the kubelet write to.
var ruleTables = []string{"filter", "nat", "mangle"}

// nodeRuntime is the node's private part of a Stack.
type nodeRuntime struct {
	lock  net.Listener
	state nodeState
	bins  nodeBins
	dir   string
	// started: the state file was written, so teardown has host changes to undo.
	started bool
}

type nodeBins struct {
	kubelet, scheduler, containerd, shimDir, ctr, pauseTar, pauseImage string
	runc, ip, iptables, ip6tables                                      string
}

func (b nodeBins) families() []string {
	var out []string
	for _, f := range []string{b.iptables, b.ip6tables} {
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

// chains lists the chains of one table ("-N" lines of iptables -S).
func chains(family, table string) ([]string, error) {
	out, err := exec.Command(family, "-w", "-t", table, "-S").Output()
	if err != nil {
		return nil, fmt.Errorf("%s -t %s -S: %w", family, table, err)
	}
	cs := []string{}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "-N" {
			cs = append(cs, f[1])
		}
	}
	return cs, nil
}

// acquireNode takes the machine's node lock, undoes what a dead node owner
// left, and checks that everything the node needs is installed.
func (s *Stack) acquireNode(env map[string]string) error {
	if os.Geteuid() != 0 {
		return errors.New("the node needs root (bridges, iptables, mounts, cgroups)")
	}
	b := nodeBins{
		kubelet:    filepath.Join(env["ORDERHUB_KUBE_NODE_DIR"], "kubelet"),
		scheduler:  filepath.Join(env["ORDERHUB_KUBE_NODE_DIR"], "kube-scheduler"),
		containerd: filepath.Join(env["ORDERHUB_CONTAINERD_DIR"], "containerd"),
		shimDir:    env["ORDERHUB_CONTAINERD_DIR"],
		ctr:        filepath.Join(env["ORDERHUB_CONTAINERD_DIR"], "ctr"),
		pauseTar:   env["ORDERHUB_PAUSE_TAR"],
		pauseImage: env["ORDERHUB_PAUSE_IMAGE"],
	}
	for _, p := range []string{b.kubelet, b.scheduler, b.containerd, filepath.Join(b.shimDir, "containerd-shim-runc-v2"), b.ctr, b.pauseTar} {
		if err := need(p, "node"); err != nil {
			return err
		}
	}
	var err error
	for name, dst := range map[string]*string{"runc": &b.runc, "ip": &b.ip, "iptables": &b.iptables, "ip6tables": &b.ip6tables} {
		if *dst, err = sbin(name); err != nil {
			return fmt.Errorf("%w: run hack/tools.sh node", err)
		}
	}
	for _, plugin := range []string{"bridge", "host-local", "loopback"} {
		if err := need(filepath.Join("/usr/lib/cni", plugin), "node"); err != nil {
			return err
		}
	}
	l, err := takeLock(nodeLockName)
	if err != nil && s.opts.NodeWait > 0 {
		s.logf("another stack runs the node; waiting up to %s for it to stop", s.opts.NodeWait)
	}
	for deadline := time.Now().Add(s.opts.NodeWait); err != nil && time.Now().Before(deadline); {
		time.Sleep(2 * time.Second)
		l, err = takeLock(nodeLockName)
	}
	if err != nil {
		owner := "unknown"
		if st, rerr := readNodeState(); rerr == nil {
			owner = fmt.Sprintf("pid %d, folder %s", st.Owner, st.Dir)
		}
		return fmt.Errorf("a node already runs on this machine (owner: %s); one stack at a time runs a node: stop that stack first (%v)", owner, err)
	}
	s.node = &nodeRuntime{lock: l, bins: b, dir: filepath.Join(s.Dir, "node")}
	if st, err := readNodeState(); err == nil {
		s.logf("undoing the host changes of a dead run's node (pid %d, %s)", st.Owner, st.Dir)
		if err := cleanNodeHost(st, b, s.logf); err != nil {
			return fmt.Errorf("undo a dead run's node: %w", err)
		}
	}
	// What the node is about to use must be free: a leftover or foreign
	// interface or address here would be changed or removed by teardown.
	for _, br := range []string{nodeBridge, podBridge} {
		if exec.Command(b.ip, "link", "show", br).Run() == nil {
			return fmt.Errorf("interface %s already exists and no node state (%s) says whose it is: remove it (ip link del %s) if it is a leftover", br, nodeStateFile, br)
		}
	}
	out, err := exec.Command(b.ip, "-o", "addr", "show").Output()
	if err != nil {
		return fmt.Errorf("ip addr show: %w", err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 {
			continue
		}
		dev := strings.TrimSuffix(f[1], ":")
		ip, _, _ := strings.Cut(f[3], "/")
		if dev == nodeBridge || dev == podBridge || ip == nodeIP || cidrContains(podCIDR, ip) || cidrContains(serviceCIDR, ip) {
			return fmt.Errorf("the node's network is in use on this machine (%s): %s", dev, strings.TrimSpace(line))
		}
	}
	return nil
}

func cidrContains(cidr, ip string) bool {
	_, n, err := net.ParseCIDR(cidr)
	return err == nil && n.Contains(net.ParseIP(ip))
}

// sbin finds a system tool whether or not PATH has the sbin folders.
func sbin(name string) (string, error) {
	if p, err := exec.LookPath(name); err == nil {
		return p, nil
	}
	for _, d := range []string{"/usr/sbin", "/sbin", "/usr/bin", "/bin"} {
		if st, err := os.Stat(filepath.Join(d, name)); err == nil && !st.IsDir() {
			return filepath.Join(d, name), nil
		}
	}
	return "", fmt.Errorf("%s is not installed", name)
}

// startNode sets up the host network, then starts containerd, kube-scheduler
// and the kubelet, and waits until the Node is Ready.
func (s *Stack) startNode(ctx context.Context) error {
	n, b := s.node, s.node.bins
	dirs := map[string]string{}
	for _, d := range []string{"containerd/root", "containerd/state", "runc", "cni/net.d", "cni/ipam", "kubelet/pki", "pod-logs", "etc"} {
		dirs[d] = filepath.Join(n.dir, d)
		if err := os.MkdirAll(dirs[d], 0o755); err != nil {
			return err
		}
	}
	sock := filepath.Join(n.dir, "containerd", "containerd.sock")
	st := nodeState{Owner: os.Getpid(), Dir: n.dir, ContainerdSocket: sock, Bridges: []string{podBridge, nodeBridge},
		Sysctls: map[string]string{}}
	for _, k := range nodeSysctls {
		if v, err := os.ReadFile(sysctlPath(k)); err == nil {
			st.Sysctls[k] = strings.TrimSpace(string(v))
		}
	}
	for _, d := range nodeFixedDirs {
		if _, err := os.Lstat(d); errors.Is(err, os.ErrNotExist) {
			st.CreatedDirs = append(st.CreatedDirs, d)
		}
	}
	st.CgroupsExisted = len(kubepodsCgroups()) > 0
	st.Chains = map[string][]string{}
	for _, fam := range b.families() {
		for _, table := range ruleTables {
			cs, err := chains(fam, table)
			if err != nil {
				return err
			}
			st.Chains[filepath.Base(fam)+" "+table] = cs
		}
	}
	n.state = st
	if err := writeNodeState(st); err != nil {
		return err
	}
	n.started = true

	// Network: the node IP on its own bridge, the pods' bridge with
	// route_localnet (pods reach the apiserver on 127.0.0.1 through the DNAT
	// rule), and a rule that keeps pod traffic from being forwarded off the
	// machine.
	apiPort := strings.TrimPrefix(s.Kube.URL[strings.LastIndex(s.Kube.URL, ":"):], ":")
	for _, args := range [][]string{
		{"link", "add", nodeBridge, "type", "bridge"},
		{"addr", "add", nodeIP + "/32", "dev", nodeBridge},
		{"link", "set", nodeBridge, "up"},
		{"link", "add", podBridge, "type", "bridge"},
		{"link", "set", podBridge, "up"},
	} {
		if out, err := exec.Command(b.ip, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	if err := os.WriteFile(sysctlPath("net.ipv4.conf."+podBridge+".route_localnet"), []byte("1"), 0o644); err != nil {
		return err
	}
	for _, rule := range nodeRules(apiPort) {
		args := append([]string{"-w", "-t", rule[0], "-A"}, rule[1:]...)
		if out, err := exec.Command(b.iptables, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("iptables %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	conflist := fmt.Sprintf(`{
  "cniVersion": "1.0.0",
  "name": "orderhub",
  "plugins": [
    {"type": "bridge", "bridge": %q, "isGateway": true, "ipMasq": false, "hairpinMode": true,
     "ipam": {"type": "host-local", "dataDir": %q, "ranges": [[{"subnet": %q, "gateway": %q}]], "routes": [{"dst": "0.0.0.0/0"}]}}
  ]
}
`, podBridge, dirs["cni/ipam"], podCIDR, podGateway)
	if err := os.WriteFile(filepath.Join(dirs["cni/net.d"], "10-orderhub.conflist"), []byte(conflist), 0o644); err != nil {
		return err
	}

	// containerd: private root, state and socket; cgroupfs; the sandbox
	// image pinned to the local pause image; runc may not raise its own
	// oom_score_adj (this kind of VM lacks CAP_SYS_RESOURCE in the bounding set).
	cfg := fmt.Sprintf(`version = 4
root = %q
state = %q
imports = []
disabled_plugins = ['io.containerd.internal.v1.opt', 'io.containerd.nri.v1.nri', 'io.containerd.image-verifier.v1.bindir',
  'io.containerd.tracing.processor.v1.otlp', 'io.containerd.internal.v1.tracing']

[plugins]
  [plugins.'io.containerd.server.v1.grpc']
    address = %q
  [plugins.'io.containerd.server.v1.ttrpc']
    address = %q
  [plugins.'io.containerd.cri.v1.images']
    snapshotter = 'overlayfs'
    [plugins.'io.containerd.cri.v1.images'.pinned_images]
      sandbox = %q
  [plugins.'io.containerd.cri.v1.runtime']
    restrict_oom_score_adj = true
    netns_mounts_under_state_dir = true
    cdi_spec_dirs = []
    [plugins.'io.containerd.cri.v1.runtime'.cni]
      bin_dirs = ['/usr/lib/cni']
      conf_dir = %q
    [plugins.'io.containerd.cri.v1.runtime'.containerd]
      default_runtime_name = 'runc'
      [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc]
        runtime_type = 'io.containerd.runc.v2'
        [plugins.'io.containerd.cri.v1.runtime'.containerd.runtimes.runc.options]
          BinaryName = %q
          Root = %q
          SystemdCgroup = false
  [plugins.'io.containerd.grpc.v1.cri']
    stream_server_address = '127.0.0.1'
    stream_server_port = '0'
`, dirs["containerd/root"], dirs["containerd/state"], sock, sock+".ttrpc", b.pauseImage,
		dirs["cni/net.d"], b.runc, dirs["runc"])
	cfgFile := filepath.Join(dirs["etc"], "containerd.toml")
	if err := os.WriteFile(cfgFile, []byte(cfg), 0o644); err != nil {
		return err
	}
	path := "PATH=" + b.shimDir + ":/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
	cd, err := s.startProc("containerd", b.containerd, []string{"--config", cfgFile, "--log-level", "warn"}, []string{path}, n.dir)
	if err != nil {
		return err
	}
	if err := waitFor(ctx, "containerd", cd, time.Minute, func(ctx context.Context) error {
		out, err := exec.CommandContext(ctx, b.ctr, "--address", sock, "version").CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, out)
		}
		return nil
	}); err != nil {
		return err
	}
	s.Node = &Node{Name: NodeName, IP: nodeIP, PodCIDR: podCIDR, ContainerdAddress: sock, Ctr: b.ctr, iptables: b.iptables}
	if err := s.Node.ImportImage(ctx, b.pauseTar); err != nil {
		return err
	}

	// kube-scheduler.
	ports, err := freePorts(3)
	if err != nil {
		return err
	}
	schedPort, kubeletPort, healthzPort := ports[0], ports[1], ports[2]
	sched, err := s.startProc("kube-scheduler", b.scheduler, []string{
		"--kubeconfig=" + s.Kube.Kubeconfig, "--leader-elect=false",
		"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(schedPort), "--v=0",
	}, nil, n.dir)
	if err != nil {
		return err
	}
	insecure := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}} // readiness only
	if err := waitFor(ctx, "kube-scheduler", sched, 2*time.Minute, func(ctx context.Context) error {
		return httpOK(ctx, insecure, fmt.Sprintf("https://127.0.0.1:%d/healthz", schedPort), nil)
	}); err != nil {
		return err
	}

	// The kubelet.
	kubeletKubeconfig := filepath.Join(dirs["etc"], "kubelet.kubeconfig")
	ca, err := os.ReadFile(s.Kube.CAFile)
	if err != nil {
		return err
	}
	if err := writeKubeconfig(kubeletKubeconfig, s.Kube.URL, s.nodeToken, ca); err != nil {
		return err
	}
	kcfg := fmt.Sprintf(`apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: %s
port: %d
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: %d
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: %q}
authorization: {mode: Webhook}
containerRuntimeEndpoint: unix://%s
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
podLogsDir: %q
resolvConf: ""
clusterDomain: cluster.local
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: "50Mi", nodefs.available: "1%%", nodefs.inodesFree: "1%%", imagefs.available: "1%%", imagefs.inodesFree: "1%%"}
registerNode: true
`, nodeIP, kubeletPort, healthzPort, s.kubeletClientCA, sock, dirs["pod-logs"])
	kcfgFile := filepath.Join(dirs["etc"], "kubelet.yaml")
	if err := os.WriteFile(kcfgFile, []byte(kcfg), 0o644); err != nil {
		return err
	}
	kubelet, err := s.startProc("kubelet", b.kubelet, []string{
		"--config=" + kcfgFile, "--kubeconfig=" + kubeletKubeconfig,
		"--hostname-override=" + NodeName, "--node-ip=" + nodeIP,
		"--root-dir=" + filepath.Join(n.dir, "kubelet"), "--cert-dir=" + dirs["kubelet/pki"], "--v=0",
	}, []string{path}, n.dir)
	if err != nil {
		return err
	}
	cs, err := kubernetes.NewForConfig(s.Kube.Config)
	if err != nil {
		return err
	}
	return waitFor(ctx, "node "+NodeName+" Ready", kubelet, 3*time.Minute, func(ctx context.Context) error {
		node, err := cs.CoreV1().Nodes().Get(ctx, NodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady {
				if c.Status == corev1.ConditionTrue {
					return nil
				}
				return fmt.Errorf("Ready=%s: %s", c.Status, c.Message)
			}
		}
		return errors.New("no Ready condition yet")
	})
}

// nodeRules are the iptables rules of the node, as {table, chain, match...}:
// the DNAT that makes the kubernetes Service reach the apiserver on loopback
// (there is no kube-proxy), for pods on the pod network (PREROUTING) and for
// hostNetwork pods (OUTPUT), and a drop of pod traffic routed anywhere but the
// pod network.
func nodeRules(apiPort string) [][]string {
	dnat := []string{"-d", kubernetesService + "/32", "-p", "tcp", "--dport", "443",
		"-m", "comment", "--comment", ruleComment, "-j", "DNAT", "--to-destination", "127.0.0.1:" + apiPort}
	return [][]string{
		append([]string{"nat", "PREROUTING"}, dnat...),
		append([]string{"nat", "OUTPUT"}, dnat...),
		{"filter", "FORWARD", "-s", podCIDR, "!", "-d", podCIDR, "-m", "comment", "--comment", ruleComment, "-j", "DROP"},
	}
}

// stopNode drains the node while the apiserver still runs, stops the
// kubelet, the scheduler and containerd, and undoes every host change.
func (s *Stack) stopNode() error {
	n := s.node
	if n == nil {
		return nil
	}
	defer func() {
		_ = releaseLock(n.lock)
		s.node = nil
	}()
	byName := map[string]*proc{}
	for _, p := range s.procs {
		byName[p.name] = p
	}
	if p := byName["kube-scheduler"]; p != nil {
		_ = p.stop(10 * time.Second)
	}
	// Delete the node's pods while the kubelet runs, so it stops them the
	// ordinary way (CNI DEL, unmounts); no new pod is bound once the scheduler is gone.
	if kl := byName["kubelet"]; kl != nil && kl.alive() == nil && s.Kube != nil {
		if err := s.drainNode(kl); err != nil {
			s.logf("node drain: %v (the host clean-up below still stops everything)", err)
		}
	}
	if p := byName["kubelet"]; p != nil {
		_ = p.stop(20 * time.Second)
	}
	if !n.started {
		return nil // nothing on the host changed yet
	}
	// Containers and their shims outlive containerd by design: cleanNodeHost
	// kills what is left of them once containerd has stopped.
	if p := byName["containerd"]; p != nil {
		_ = p.stop(20 * time.Second)
	}
	return cleanNodeHost(n.state, n.bins, s.logf)
}

func (s *Stack) drainNode(kubelet *proc) error {
	cs, err := kubernetes.NewForConfig(s.Kube.Config)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	sel := fields.OneTermEqualSelector("spec.nodeName", NodeName).String()
	pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: sel})
	if err != nil {
		return err
	}
	for _, p := range pods.Items {
		err := cs.CoreV1().Pods(p.Namespace).Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](5)})
		if err != nil && !strings.Contains(err.Error(), "not found") {
			return err
		}
	}
	return waitFor(ctx, "the node's pods gone", kubelet, 80*time.Second, func(ctx context.Context) error {
		pods, err := cs.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			return err
		}
		if len(pods.Items) > 0 {
			return fmt.Errorf("%d pods left, e.g. %s/%s", len(pods.Items), pods.Items[0].Namespace, pods.Items[0].Name)
		}
		return nil
	})
}

// killNodeProcesses SIGKILLs what the node left running: every process in a
// kubepods cgroup (the containers), and the node's own kubelet, containerd,
// kube-scheduler and shims (recognized by the node folder or containerd
// socket in their command line), then waits for them to be gone.
func killNodeProcesses(st nodeState) {
	want := func() []int {
		var pids []int
		seen := map[int]bool{}
		var cgroups []string
		if !st.CgroupsExisted { // else the kubepods tree is not only the node's
			cgroups = kubepodsCgroups()
		}
		for _, cg := range cgroups {
			_ = filepath.WalkDir(cg, func(path string, d os.DirEntry, err error) error {
				if err != nil || d.Name() != "cgroup.procs" {
					return nil
				}
				b, _ := os.ReadFile(path)
				for _, f := range strings.Fields(string(b)) {
					if pid, err := strconv.Atoi(f); err == nil && pid > 1 && !seen[pid] {
						seen[pid] = true
						pids = append(pids, pid)
					}
				}
				return nil
			})
		}
		entries, _ := os.ReadDir("/proc")
		for _, e := range entries {
			pid, err := strconv.Atoi(e.Name())
			if err != nil || pid == os.Getpid() || seen[pid] {
				continue
			}
			b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
			if err != nil || len(b) == 0 {
				continue
			}
			args := strings.Split(strings.TrimRight(string(b), "\x00"), "\x00")
			switch filepath.Base(args[0]) {
			case "kubelet", "containerd", "kube-scheduler", "containerd-shim-runc-v2":
			default:
				continue
			}
			cmd := strings.Join(args, " ")
			if (st.Dir != "" && strings.Contains(cmd, st.Dir)) || (st.ContainerdSocket != "" && strings.Contains(cmd, st.ContainerdSocket)) {
				seen[pid] = true
				pids = append(pids, pid)
			}
		}
		return pids
	}
	deadline := time.Now().Add(15 * time.Second)
	for {
		pids := want()
		var alive []int
		for _, pid := range pids {
			if isAlive(pid) {
				alive = append(alive, pid)
				_ = killPid(pid)
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			return
		}
		time.Sleep(100 * time.Millisecond) // polling other processes' exit: no channel to wait on
	}
}

// cleanNodeHost undoes every host change recorded in st; each step is
// idempotent, so it also finishes a teardown that was interrupted.
func cleanNodeHost(st nodeState, b nodeBins, logf func(string, ...any)) error {
	killNodeProcesses(st)
	var errs []error
	// Mounts: the kubelet's self bind mount of its root folder, pod volumes,
	// container root filesystems, network namespaces: innermost first.
	roots := []string{}
	if st.Dir != "" {
		roots = append(roots, st.Dir)
	}
	roots = append(roots, st.CreatedDirs...)
	for i := 0; i < 10; i++ {
		mounts := mountsUnder(roots)
		if len(mounts) == 0 {
			break
		}
		for _, m := range mounts {
			if err := unmount(m); err != nil && i == 9 {
				errs = append(errs, fmt.Errorf("unmount %s: %w", m, err))
			}
		}
	}
	// Interfaces: veths left on the pod bridge, then the bridges.
	if b.ip != "" {
		if out, err := exec.Command(b.ip, "-o", "link", "show", "master", podBridge).Output(); err == nil {
			for _, line := range strings.Split(string(out), "\n") {
				f := strings.Fields(line)
				if len(f) < 2 {
					continue
				}
				name, _, _ := strings.Cut(strings.TrimSuffix(f[1], ":"), "@")
				_ = exec.Command(b.ip, "link", "del", name).Run()
			}
		}
		for _, br := range st.Bridges {
			if err := exec.Command(b.ip, "link", "show", br).Run(); err != nil {
				continue // gone
			}
			if out, err := exec.Command(b.ip, "link", "del", br).CombinedOutput(); err != nil {
				errs = append(errs, fmt.Errorf("ip link del %s: %v: %s", br, err, out))
			}
		}
	}
	// iptables: every rule carrying the node's comment, whatever port it
	// names; then the KUBE-* chains the kubelet added, with the jumps to them.
	for _, fam := range b.families() {
		for _, table := range ruleTables {
			if err := cleanRules(fam, table, st.Chains[filepath.Base(fam)+" "+table]); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for k, v := range st.Sysctls {
		if cur, err := os.ReadFile(sysctlPath(k)); err == nil && strings.TrimSpace(string(cur)) != v {
			if err := os.WriteFile(sysctlPath(k), []byte(v), 0o644); err != nil {
				errs = append(errs, fmt.Errorf("restore %s=%s: %w", k, v, err))
			}
		}
	}
	if !st.CgroupsExisted {
		for _, cg := range kubepodsCgroups() {
			if err := removeCgroupTree(cg); err != nil {
				errs = append(errs, err)
			}
		}
	}
	for _, d := range append(append([]string{}, st.CreatedDirs...), st.Dir) {
		if d == "" {
			continue
		}
		if m := mountsUnder([]string{d}); len(m) > 0 {
			errs = append(errs, fmt.Errorf("not removing %s: still mounted below it: %v", d, m))
			continue
		}
		if err := os.RemoveAll(d); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if err := os.Remove(nodeStateFile); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	logf("node torn down: no mount, interface, iptables rule, cgroup, sysctl change or folder of it left")
	return nil
}

// reapNode undoes a dead run's node when no live stack holds the node lock.
func reapNode() (string, bool) {
	if _, err := readNodeState(); err != nil {
		return "", false
	}
	l, err := takeLock(nodeLockName)
	if err != nil {
		return "", false // a live node owns it
	}
	defer func() { _ = releaseLock(l) }()
	return reapNodeHeld()
}

// reapNodeHeld is reapNode for a caller that holds the node lock already.
func reapNodeHeld() (string, bool) {
	st, err := readNodeState()
	if err != nil {
		return "", false
	}
	var b nodeBins
	b.ip, _ = sbin("ip")
	b.iptables, _ = sbin("iptables")
	b.ip6tables, _ = sbin("ip6tables")
	if err := cleanNodeHost(st, b, func(string, ...any) {}); err != nil {
		return fmt.Sprintf("node of %s: clean-up incomplete: %v", st.Dir, err), true
	}
	return fmt.Sprintf("node of %s: host changes undone", st.Dir), true
}

func sysctlPath(key string) string {
	return filepath.Join("/proc/sys", strings.ReplaceAll(key, ".", "/"))
}

// kubepodsCgroups lists the kubepods folder of each mounted cgroup hierarchy.
func kubepodsCgroups() []string {
	entries, _ := os.ReadDir("/sys/fs/cgroup")
	var out []string
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 || !e.IsDir() {
			continue
		}
		p := filepath.Join("/sys/fs/cgroup", e.Name(), "kubepods")
		if st, err := os.Stat(p); err == nil && st.IsDir() {
			out = append(out, p)
		}
	}
	if st, err := os.Stat("/sys/fs/cgroup/kubepods"); err == nil && st.IsDir() { // cgroup v2
		out = append(out, "/sys/fs/cgroup/kubepods")
	}
	return out
}

// removeCgroupTree removes a cgroup and its children, deepest first (a
// cgroup folder is removed with rmdir, its control files go with it).
func removeCgroupTree(root string) error {
	var dirs []string
	_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			dirs = append(dirs, path)
		}
		return nil
	})
	var last error
	for i := len(dirs) - 1; i >= 0; i-- {
		if err := rmdirRetry(dirs[i]); err != nil {
			last = fmt.Errorf("remove cgroup %s: %w", dirs[i], err)
		}
	}
	return last
}

func rmdirRetry(path string) error {
	var err error
	for i := 0; i < 50; i++ {
		if err = syscallRmdir(path); err == nil || errors.Is(err, os.ErrNotExist) {
			return nil
		}
		time.Sleep(100 * time.Millisecond) // a killed task leaves its cgroup a moment later: no event to wait on
	}
	return err
}

// mountsUnder lists the mount points at or below any of roots, deepest first.
func mountsUnder(roots []string) []string {
	b, err := os.ReadFile("/proc/self/mounts")
	if err != nil {
		return nil
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		mp := unescapeMount(f[1])
		for _, r := range roots {
			if mp == r || strings.HasPrefix(mp, r+"/") {
				out = append(out, mp)
				break
			}
		}
	}
	// Deepest first; a path mounted twice (the kubelet's self bind mount)
	// appears twice and is unmounted twice.
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j]) > len(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// unescapeMount decodes the octal escapes (\040 for a space) of /proc/mounts.
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

type kubeletClientCerts struct{ caFile, certFile, keyFile string }

// writeKubeletClientCerts makes a CA the kubelet trusts for client
// certificates, and the apiserver's client certificate from it
// (group system:masters, so the kubelet's webhook authorization allows logs,
// exec and port-forward).
func writeKubeletClientCerts(dir string) (kubeletClientCerts, error) {
	out := kubeletClientCerts{caFile: filepath.Join(dir, "kubelet-client-ca.crt"),
		certFile: filepath.Join(dir, "apiserver-kubelet-client.crt"), keyFile: filepath.Join(dir, "apiserver-kubelet-client.key")}
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return out, err
	}
	now := time.Now().Add(-time.Hour)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "orderhub-kubelet-client-ca"},
		NotBefore: now, NotAfter: now.Add(10 * 365 * 24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return out, err
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return out, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return out, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2),
		Subject:   pkix.Name{CommonName: "orderhub-apiserver-kubelet-client", Organization: []string{"system:masters"}},
		NotBefore: now, NotAfter: now.Add(10 * 365 * 24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return out, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return out, err
	}
	for path, block := range map[string]*pem.Block{
		out.caFile:   {Type: "CERTIFICATE", Bytes: caDER},
		out.certFile: {Type: "CERTIFICATE", Bytes: der},
		out.keyFile:  {Type: "EC PRIVATE KEY", Bytes: keyDER},
	} {
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			return out, err
		}
	}
	return out, nil
}

func readNodeState() (nodeState, error) {
	var st nodeState
	b, err := os.ReadFile(nodeStateFile)
	if err != nil {
		return st, err
	}
	return st, json.Unmarshal(b, &st)
}

func writeNodeState(st nodeState) error {
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	tmp := nodeStateFile + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, nodeStateFile)
}

func isAlive(pid int) bool { return isProcOf(pid, "") }

func killPid(pid int) error { return syscall.Kill(pid, syscall.SIGKILL) }

func syscallRmdir(path string) error {
	if err := syscall.Rmdir(path); err != nil {
		return &os.PathError{Op: "rmdir", Path: path, Err: err}
	}
	return nil
}

// unmount unmounts one mount point, lazily when it is busy.
func unmount(path string) error {
	if err := syscall.Unmount(path, 0); err == nil || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOENT) {
		return nil
	}
	return syscall.Unmount(path, syscall.MNT_DETACH)
}

// cleanRules deletes from one table the rules tagged ruleComment, and the
// KUBE-* chains not in before (the chains there before the node started),
// after the rules that jump to them. With no record of before (nil), only
// the tagged rules go.
func cleanRules(family, table string, before []string) error {
	out, err := exec.Command(family, "-w", "-t", table, "-S").Output()
	if err != nil {
		return fmt.Errorf("%s -t %s -S: %w", family, table, err)
	}
	had := map[string]bool{}
	for _, c := range before {
		had[c] = true
	}
	added := map[string]bool{}
	var newChains []string
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); before != nil && len(f) == 2 && f[0] == "-N" && strings.HasPrefix(f[1], "KUBE-") && !had[f[1]] {
			added[f[1]] = true
			newChains = append(newChains, f[1])
		}
	}
	var errs []error
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "-A" || added[f[1]] {
			continue // rules inside an added chain go with it
		}
		jumps := false
		for i := 0; i+1 < len(f); i++ {
			if (f[i] == "-j" || f[i] == "-g") && added[f[i+1]] {
				jumps = true
			}
		}
		if !jumps && !strings.Contains(line, "--comment "+ruleComment) {
			continue
		}
		// -S quotes a comment with spaces; the node's own comment has none,
		// and the kubelet's jumps carry no comment.
		args := append([]string{"-w", "-t", table, "-D"}, f[1:]...)
		if b, err := exec.Command(family, args...).CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("%s %s: %v: %s", family, strings.Join(args, " "), err, b))
		}
	}
	for _, c := range newChains {
		for _, op := range []string{"-F", "-X"} {
			if b, err := exec.Command(family, "-w", "-t", table, op, c).CombinedOutput(); err != nil {
				errs = append(errs, fmt.Errorf("%s -t %s %s %s: %v: %s", family, table, op, c, err, b))
			}
		}
	}
	return errors.Join(errs...)
}
